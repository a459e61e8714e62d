import type { Element } from 'hast';
import { attributesOf, elementsIn } from './hast.js';
import { parseTopicHtml } from './parse.js';
import { renderTopicMarkdown } from './render.js';

export interface StoredTopic {
  readonly root: Element;
  readonly title: string;
}

/**
 * Reads a topic blob from the tree for display or indexing. Blobs written by brv are canonical and
 * valid, but refs can be moved by plain git, so this never trusts them: it only parses (no scripts
 * run, and markdown rendering emits text), and returns undefined when there is no <bv-topic>.
 */
export function readStoredTopic(html: string): StoredTopic | undefined {
  const tree = parseTopicHtml(html);
  for (const element of elementsIn(tree)) {
    if (element.tagName === 'bv-topic') return { root: element, title: (attributesOf(element).get('title') ?? '').trim() };
  }
  return undefined;
}

/** Markdown for agents; a blob that is not a topic renders as a notice instead of its raw bytes. */
export function renderStoredTopic(html: string): string {
  const topic = readStoredTopic(html);
  return topic ? renderTopicMarkdown(topic.root) : '_This file is not a <bv-topic> document._\n';
}
