import type { Root } from 'hast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';

const OUTER_FENCE = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\s*```$/;

/** Agents often wrap their answer in one ```html fence; only a fence around the whole input is removed. */
export function stripCodeFence(input: string): string {
  const trimmed = input.trim();
  const match = OUTER_FENCE.exec(trimmed);
  return match ? (match[1] ?? '').trim() : trimmed;
}

const parser = unified().use(rehypeParse, { fragment: true });

/** Forgiving HTML fragment parse; never throws. */
export function parseTopicHtml(html: string): Root {
  return parser.parse(stripCodeFence(html));
}
