// Reading the API's JSON defensively: a field of the wrong type reads as empty, never as a crash.

export type Json = Record<string, unknown>;

/** An object, or {} for anything else. */
export const record = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};

/**
 * An API object (src/web/api-types.ts) as it arrives: the fields its type declares, each still `unknown` until
 * read defensively; `Legacy` names fields of older shapes that are also read. A field the shared type no longer
 * has fails the client's type check.
 */
export type Wire<T, Legacy extends string = never> = { readonly [K in Keys<T> | Legacy]?: unknown };

/** The field names of every member of T (of a union, all of them: a union answer's fields are each read). */
export type Keys<T> = T extends unknown ? keyof T : never;

/** `value` as the API type T's fields (see Wire), or {} for anything but an object. */
export const wire = <T, Legacy extends string = never>(value: unknown): Wire<T, Legacy> => record(value) as Wire<T, Legacy>;

/** An array, or [] for anything else. */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The first non-empty string among the values, or ''. */
export const str = (...values: unknown[]): string => {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return '';
};

/**
 * Newline-delimited JSON as it arrives in chunks: `push` returns the complete lines' values (a line
 * that is not JSON is skipped), `end` the last one if the stream did not end with a newline.
 */
export class NdjsonLines {
  private pending = '';

  push(chunk: string): unknown[] {
    const parts = (this.pending + chunk).split('\n');
    this.pending = parts.pop() ?? '';
    return parts.flatMap(parse);
  }

  end(): unknown[] {
    const rest = this.pending;
    this.pending = '';
    return parse(rest);
  }
}

function parse(line: string): unknown[] {
  if (line.trim() === '') return [];
  try {
    return [JSON.parse(line) as unknown];
  } catch {
    return [];
  }
}
