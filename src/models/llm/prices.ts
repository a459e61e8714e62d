/** List price of a model in US dollars per million tokens (the catalog's; approximate, for the usage report). */
export interface Price {
  input: number;
  output: number;
}

export function costOf(price: Price, inputTokens: number, outputTokens: number): number {
  return Math.round(((inputTokens * price.input + outputTokens * price.output) / 1e6) * 1e6) / 1e6;
}
