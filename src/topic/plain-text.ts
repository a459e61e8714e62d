import type { Element, ElementContent } from 'hast';
import { attributesOf } from './hast.js';
import { CONTROL } from './inline.js';
import { INLINE_TAGS } from './registry.js';
import { LABELS, plainLabel } from './render-parts.js';
import { collapseWhitespace } from './whitespace.js';

/** Phrasing elements: their text runs on with their neighbours' (`<code>rate_limit</code>s`); `<br>` is a gap. */
const RUN_ON = new Set(INLINE_TAGS.filter((tag) => tag !== 'br'));

/**
 * The text of hast content as a reader sees it, from its text nodes: a space where a block (or
 * `<br>`) starts or ends, nothing between phrasing elements and the text around them. Iterative.
 */
function contentText(children: readonly ElementContent[]): string {
  const parts: string[] = [];
  const stack: Array<ElementContent | ' '> = [...children].reverse();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next === ' ') parts.push(' ');
    else if (next.type === 'text') parts.push(next.value);
    else if (next.type === 'element') {
      const gap = !RUN_ON.has(next.tagName);
      if (gap) stack.push(' ');
      for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
      if (gap) parts.push(' ');
    }
  }
  return parts.join('');
}

/**
 * A topic as plain text for search excerpts: its summary, then each element's label
 * (`Rule [must]:`, `Fact (subject=rate_limit, value=100/min):`) and text, made from the topic's
 * text nodes and attributes as written — no markup and no escapes, so identifiers (`rate_limit`,
 * `*.test.ts`, `?cursor=…&limit=50`) read as they are. Whitespace is collapsed, control characters
 * are U+FFFD. What views print it in (markdown, a terminal, HTML) escapes it for that.
 */
export function topicPlainText(topic: Element): string {
  const parts = [attributesOf(topic).get('summary') ?? ''];
  for (const child of topic.children) {
    if (child.type !== 'element') continue;
    const label = LABELS.has(child.tagName) ? plainLabel(child.tagName, attributesOf(child)) : '';
    parts.push(label, contentText(child.children));
  }
  return collapseWhitespace(parts.join(' ')).trim().replace(CONTROL, '\uFFFD');
}
