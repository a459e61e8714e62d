// Search highlighting: an excerpt or title split into plain and matched segments, which the page renders as
// text nodes and <mark> elements (never as HTML). Pure: no DOM, tested in test/web/client-highlight.test.ts.

export interface Segment {
  text: string;
  mark: boolean;
}

const MAX_TERMS = 32;
const MAX_TERM_LENGTH = 100;

/** `text` cut into segments, the occurrences of any of `terms` (case-insensitive, longest first) marked. */
export function highlight(text: string, terms: readonly string[]): Segment[] {
  if (text === '') return [];
  const unique = [...new Set(terms.map((term) => term.trim()).filter((term) => term !== '' && term.length <= MAX_TERM_LENGTH))]
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_TERMS);
  if (unique.length === 0) return [{ text, mark: false }];
  const pattern = new RegExp(unique.map(escapeRegExp).join('|'), 'giu');
  const segments: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const start = match.index;
    if (match[0] === '') continue;
    if (start > last) push(segments, text.slice(last, start), false);
    push(segments, match[0], true);
    last = start + match[0].length;
  }
  if (last < text.length) push(segments, text.slice(last), false);
  return segments;
}

function push(segments: Segment[], text: string, mark: boolean): void {
  const previous = segments[segments.length - 1];
  if (previous && previous.mark === mark) previous.text += text;
  else segments.push({ text, mark });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
