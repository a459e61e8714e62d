import type { ErrorKind } from '../error-kinds.js';

/** A failure for a terminal: the message, then its kind for scripts and searches (not for usage errors). */
export function errorText(kind: ErrorKind, message: string): string {
  return `error: ${message}${kind && kind !== 'usage' ? ` [${kind}]` : ''}`;
}

/** A failure as an MCP tool result's text: the kind first, so an agent can branch on it. */
export function errorMarkdown(kind: ErrorKind, message: string): string {
  return `✗ ${kind}: ${message}`;
}
