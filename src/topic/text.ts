import type { Element, Nodes } from 'hast';
import { attributesOf, isBvTag, splitList } from './hast.js';
import { elementSpec } from './registry.js';
import { collapseWhitespace } from './whitespace.js';

export interface ElementText {
  readonly tag: string;
  readonly attributes: Record<string, string>;
  readonly text: string;
}

export interface TopicText {
  readonly title: string;
  readonly summary: string;
  readonly tags: string[];
  readonly keywords: string[];
  /** All text, a space at element boundaries, whitespace collapsed. */
  readonly body: string;
  /** Every registered bv-* element below the root, for element-level search. */
  readonly elements: ElementText[];
}

/** Whitespace collapsed to single spaces, ends trimmed (flatText's normalisation). */
function collapsed(raw: string): string {
  return collapseWhitespace(raw).trim();
}

/**
 * The topic's text and its registered bv-* elements' texts in one walk: the text of every node with
 * a space at each element boundary, as flatText writes it, where each element's text is its own
 * slice — the same strings as `flatText(topic)` and `flatText(element)`, without walking every
 * element twice (the index build's cold path extracts every topic of a fetched tree). Iterative.
 */
export function topicText(topic: Element): TopicText {
  const attributes = attributesOf(topic);
  const elements: Array<{ tag: string; attributes: Record<string, string>; text: string }> = [];
  // Parts, not one growing string: an element's text is joined from its own parts (linear in its size).
  const parts: string[] = [' '];
  // The topic's text from its children's texts (each element child's text is computed anyway): the
  // same string as collapsing the whole, as long as no two text children touch (parsers merge them).
  const segments: string[] = [];
  let segmentsValid = true;
  let previousWasText = false;
  // A frame per open element: its children, the next child, its first part, its entry in `elements`.
  const frames: Array<{ children: readonly Nodes[]; next: number; start: number; entry: number }> = [
    { children: topic.children, next: 0, start: 0, entry: -1 },
  ];
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    const child = frame.children[frame.next++];
    if (child === undefined) {
      parts.push(' ');
      frames.pop();
      if (frame.entry >= 0 || frames.length === 1) {
        const text = collapsed(parts.slice(frame.start).join(''));
        if (frame.entry >= 0) elements[frame.entry]!.text = text;
        if (frames.length === 1) segments.push(text);
      }
      continue;
    }
    if (frames.length === 1 && child.type !== 'comment' && child.type !== 'doctype') {
      if (child.type === 'text' && previousWasText) segmentsValid = false;
      previousWasText = child.type === 'text';
    }
    if (child.type === 'text') {
      parts.push(child.value);
      if (frames.length === 1) segments.push(collapsed(child.value));
    } else if (child.type === 'element') {
      let entry = -1;
      if (isBvTag(child.tagName) && elementSpec(child.tagName) !== undefined) {
        entry = elements.length;
        elements.push({ tag: child.tagName, attributes: Object.fromEntries(attributesOf(child)), text: '' });
      }
      frames.push({ children: child.children, next: 0, start: parts.length, entry });
      parts.push(' ');
    }
    // A comment between two texts adds nothing: they touch all the same.
  }
  const body = segmentsValid ? segments.filter((segment) => segment !== '').join(' ') : collapsed(parts.join(''));
  return {
    title: (attributes.get('title') ?? '').trim(),
    summary: (attributes.get('summary') ?? '').trim(),
    tags: splitList(attributes.get('tags')),
    keywords: splitList(attributes.get('keywords')),
    body,
    elements,
  };
}
