import type { ErrorKind } from '../base/error-kinds.js';

/** A failure for a terminal: the message, then its kind for scripts and searches (not for usage errors). */
export function errorText(kind: ErrorKind, message: string): string {
  return `error: ${message}${kind && kind !== 'usage' ? ` [${kind}]` : ''}`;
}

/**
 * What to do next in the MCP tools' own terms, for kinds whose library message is worded for the
 * command line (`--overwrite`, `brv ls`), which an MCP client cannot run. The kind stays the same.
 */
const MCP_MESSAGES: Partial<Record<ErrorKind, string>> = {
  'path-exists':
    'A topic already exists at that path (its content is below). Merge your knowledge into it and call brv-curate again with confirmOverwrite: true, or choose another path.',
  'missing-query': 'Say what to look for: pass a non-empty query.',
  'not-found': 'No topic at that path. List topics with brv-list, or find one with brv-search.',
};

/** A failure as an MCP tool result's text: the kind first, so an agent can branch on it. */
export function errorMarkdown(kind: ErrorKind, message: string): string {
  return `✗ ${kind}: ${MCP_MESSAGES[kind] ?? message}`;
}
