/**
 * The one error type the library throws for operational failures. `kind` strings are API:
 * front ends map them to exit codes and JSON envelopes, scripts match on them.
 */
export class BrvError extends Error {
  readonly kind: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'BrvError';
    this.kind = kind;
    this.details = details;
  }
}

export function isBrvError(error: unknown): error is BrvError {
  return error instanceof BrvError;
}
