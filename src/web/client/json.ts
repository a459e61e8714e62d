// Reading the API's JSON defensively: a field of the wrong type reads as empty, never as a crash.

export type Json = Record<string, unknown>;

/** An object, or {} for anything else. */
export const record = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};

/** An array, or [] for anything else. */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The first non-empty string among the values, or ''. */
export const str = (...values: unknown[]): string => {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return '';
};
