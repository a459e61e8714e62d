import type { Element, Nodes, Root, RootContent } from 'hast';
import { attributesOf, nestingDepth } from './hast.js';
import { parseTopicHtml } from './parse.js';
import { renderTopicMarkdown } from './render.js';
import { isSanitized, sanitizeTopic } from './safety.js';
import { CONTROL } from './inline.js';
import { MAX_NESTING_DEPTH, MAX_STORED_TOPIC_BYTES } from './limits.js';

export { MAX_STORED_TOPIC_BYTES };

export interface StoredTopic {
  readonly root: Element;
  readonly title: string;
}

/** Why a blob in the tree cannot be read as a topic. */
export type StoredTopicProblem = 'too-large' | 'too-deep' | 'not-a-topic';

export type StoredTopicRead =
  ({ readonly ok: true } & StoredTopic) | { readonly ok: false; readonly problem: StoredTopicProblem; readonly message: string };

function firstTopic(root: Root): Element | undefined {
  const stack: RootContent[] = [...root.children].reverse();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type !== 'element') continue;
    if (next.tagName === 'bv-topic') return next;
    for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
  }
  return undefined;
}

/** Control characters other than tab and newline, wherever they came from (raw bytes or decoded entities). */
function withoutControls(value: string): string {
  CONTROL.lastIndex = 0;
  return CONTROL.test(value) ? value.replace(CONTROL, '\uFFFD') : value;
}

/** Replaces control characters in text and attribute values with U+FFFD, in place. Iterative. */
function replaceControls(node: Nodes): void {
  const stack: Nodes[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'text') next.value = withoutControls(next.value);
    if (next.type !== 'element' && next.type !== 'root') continue;
    if (next.type === 'element') {
      for (const [prop, value] of Object.entries(next.properties)) {
        if (typeof value === 'string') next.properties[prop] = withoutControls(value);
        else if (Array.isArray(value)) next.properties[prop] = value.map((v) => (typeof v === 'string' ? withoutControls(v) : v));
      }
    }
    for (const child of next.children) stack.push(child);
  }
}

/** The topic as a sanitizer would leave it: brv's own (already safe) blobs are returned as parsed. */
function sanitized(topic: Element): Element | undefined {
  if (!isSanitized(topic)) {
    const clean = sanitizeTopic(topic);
    if (clean.type !== 'element') return undefined;
    topic = clean;
  }
  replaceControls(topic);
  return topic;
}

/**
 * Reads a topic blob from the tree for display or indexing. Refs can be moved by plain git (a
 * teammate's push, a knowledge source, plumbing), so nothing here trusts the blob: size and depth are
 * bounded before any recursive walk, and a blob that fails is reported with its problem, never thrown.
 * The topic returned is sanitized with TOPIC_SCHEMA (no script, handler, comment, style or unsafe URL
 * survives) and holds no control character other than tab and newline: safe to render and index.
 */
export function readStoredTopic(html: string): StoredTopicRead {
  // UTF-8 never has fewer bytes than UTF-16 code units: a long string is refused without encoding it.
  const bytes = html.length > MAX_STORED_TOPIC_BYTES ? html.length : Buffer.byteLength(html);
  if (bytes > MAX_STORED_TOPIC_BYTES) {
    return { ok: false, problem: 'too-large', message: `The blob is ${bytes} bytes; topics are at most ${MAX_STORED_TOPIC_BYTES} bytes.` };
  }
  let tree;
  try {
    tree = parseTopicHtml(html);
  } catch {
    tree = undefined; // the parser recurses per level: only absurd nesting gets here
  }
  if (tree === undefined || nestingDepth(tree) > MAX_NESTING_DEPTH) {
    return { ok: false, problem: 'too-deep', message: `Elements are nested more than ${MAX_NESTING_DEPTH} levels deep.` };
  }
  const found = firstTopic(tree);
  const root = found && sanitized(found);
  if (!root) return { ok: false, problem: 'not-a-topic', message: 'The blob is not a <bv-topic> document.' };
  return { ok: true, root, title: (attributesOf(root).get('title') ?? '').trim() };
}

/** Markdown for agents; a blob that cannot be read renders as a notice instead of its raw bytes. */
export function renderStoredTopic(html: string): string {
  const topic = readStoredTopic(html);
  return topic.ok ? renderTopicMarkdown(topic.root) : `_This file cannot be shown as a topic: ${topic.message}_\n`;
}
