import type { ErrorKind } from './error-kinds.js';

export type { ErrorKind } from './error-kinds.js';

/**
 * The one error type the library throws for operational failures. `kind` is API: front ends map it
 * to exit codes and JSON envelopes, scripts match on it. Every kind is registered, with its meaning,
 * in `src/error-kinds.ts`.
 */
export class BrvError extends Error {
  readonly kind: ErrorKind;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'BrvError';
    this.kind = kind;
    this.details = details;
  }
}

export function isBrvError(error: unknown): error is BrvError {
  return error instanceof BrvError;
}
