import type { ErrorKind } from './error-kinds.js';

export type { ErrorKind } from './error-kinds.js';

/**
 * The one error type the library throws for operational failures. `kind` is API: front ends map it
 * to exit codes and JSON envelopes, scripts match on it. Every kind is registered, with its meaning,
 * in `src/base/error-kinds.ts`.
 */
export class BrvError extends Error {
  readonly kind: ErrorKind;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, message: string, details?: Record<string, unknown>) {
    super(redactCredentials(message));
    this.name = 'BrvError';
    this.kind = kind;
    this.details = details;
  }
}

export function isBrvError(error: unknown): error is BrvError {
  return error instanceof BrvError;
}

/** Where a URL's authority ends (the userinfo is the part before its last "@"). */
const AUTHORITY_END = new Set(['/', '?', '#', ' ', '\t', '\n', '\r', "'", '"', '<', '>', '`']);
/** Schemes whose user name is an account name, never a secret (ssh passwords are still redacted). */
const NAMED_USER_SCHEMES = new Set(['ssh', 'git+ssh', 'ssh+git']);

/**
 * `text` with the credentials of every `scheme://userinfo@host` URL in it replaced by `***`: the
 * password of `user:password@` (`https://x-access-token:***@github.com/…`), and over http(s) and
 * other schemes a bare user name too, which is how tokens are passed (`https://***@github.com/…`);
 * an ssh user name (`ssh://git@host`) is kept. Every BrvError message goes through it, and so does
 * whatever brv prints of a remote's URL or quotes of git's words: a remote URL may hold a token.
 * Linear: one pass over the text, no regular expression that can backtrack.
 */
export function redactCredentials(text: string): string {
  let found = text.indexOf('://');
  if (found < 0) return text;
  let out = '';
  let copied = 0;
  // Everything before `scanned` was looked at already: each character is scanned a bounded number of times.
  let scanned = 0;
  while (found >= 0) {
    let schemeStart = found;
    while (schemeStart > scanned && /[A-Za-z0-9+.-]/.test(text[schemeStart - 1]!)) schemeStart--;
    const scheme = text.slice(schemeStart, found).toLowerCase();
    const start = found + 3;
    let end = start;
    let at = -1;
    for (; end < text.length && !AUTHORITY_END.has(text[end]!); end++) if (text[end] === '@') at = end;
    if (at >= 0) {
      const userinfo = text.slice(start, at);
      const colon = userinfo.indexOf(':');
      const shown = colon >= 0 ? `${userinfo.slice(0, colon)}:***` : NAMED_USER_SCHEMES.has(scheme) ? userinfo : '***';
      out += text.slice(copied, start) + shown;
      copied = at;
    }
    // A scheme may start inside this authority (`a://b:c://…`); none starts before it.
    scanned = start;
    found = text.indexOf('://', Math.max(start, end - 1));
  }
  return out + text.slice(copied);
}
