import type { Root } from 'hast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';

const FENCE = '```';

function isInfoCharacter(code: number): boolean {
  // [\w-]: ASCII letters, digits, "_" and "-"
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2d
  );
}

/**
 * Agents often wrap their answer in one ```html fence; only a fence around the whole input is removed.
 * A scan, not a regex: the input is agent- or remote-controlled, and the lazy body of
 * /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\s*```$/ backtracked quadratically on a long run of spaces.
 */
export function stripCodeFence(input: string): string {
  const trimmed = input.trim();
  if (!trimmed.startsWith(FENCE)) return trimmed;
  let at = FENCE.length;
  while (at < trimmed.length && isInfoCharacter(trimmed.charCodeAt(at))) at++;
  while (trimmed[at] === ' ' || trimmed[at] === '\t') at++;
  if (trimmed[at] === '\r') at++;
  if (trimmed[at] !== '\n') return trimmed;
  const body = trimmed.slice(at + 1);
  // The closing fence is the input's last three characters, after the opening line.
  return body.length >= FENCE.length && body.endsWith(FENCE) ? body.slice(0, -FENCE.length).trim() : trimmed;
}

const parser = unified().use(rehypeParse, { fragment: true });

/** Forgiving HTML fragment parse; never throws. */
export function parseTopicHtml(html: string): Root {
  return parser.parse(stripCodeFence(html));
}
