import type { LlmUsage } from '../models/llm/client.js';

/**
 * What a command's model calls cost, as one line for stderr:
 * `model openai gpt-5-mini: 3 requests, 1,234 tokens in, 456 out, ≈ $0.0012`.
 */
export function usageLine(usage: LlmUsage): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const parts = [
    `${n(usage.requests)} request${usage.requests === 1 ? '' : 's'}`,
    `${n(usage.inputTokens)} tokens in`,
    `${n(usage.outputTokens)} out`,
  ];
  if (usage.embeddingTokens > 0) parts.push(`${n(usage.embeddingTokens)} embedded`);
  parts.push(usage.costUsd === null ? 'price unknown' : `≈ $${usage.costUsd.toFixed(4)}`);
  return `model ${usage.provider} ${usage.model}: ${parts.join(', ')}`;
}
