import type { Element } from 'hast';
import { attributesOf, elementsIn, flatText, isBvTag, splitList } from './hast.js';
import { elementSpec } from './registry.js';

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

export function topicText(topic: Element): TopicText {
  const attributes = attributesOf(topic);
  const elements = [...elementsIn(topic)]
    .filter((e) => e !== topic && isBvTag(e.tagName) && elementSpec(e.tagName) !== undefined)
    .map((e) => ({ tag: e.tagName, attributes: Object.fromEntries(attributesOf(e)), text: flatText(e) }));
  return {
    title: (attributes.get('title') ?? '').trim(),
    summary: (attributes.get('summary') ?? '').trim(),
    tags: splitList(attributes.get('tags')),
    keywords: splitList(attributes.get('keywords')),
    body: flatText(topic),
    elements,
  };
}
