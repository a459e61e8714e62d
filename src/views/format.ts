/** Small pieces every view shares. Views are pure: results in, strings out, nothing printed. */
import { markdownInline } from '../topic/inline.js';

/** The first 10 hex digits of an object id, `-` when there is none. */
export function shortOid(oid: string | undefined): string {
  return oid ? oid.slice(0, 10) : '-';
}

/** Results from a knowledge source (`brv source add`) are marked with its alias. */
export function originLabel(item: object): string {
  const source = (item as { source?: string }).source;
  return source ? `[${markdownInline(source)}] ` : '';
}

/** `n thing` or `n things`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
