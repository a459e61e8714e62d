import type { Element, Nodes, Root } from 'hast';
import { find, html as htmlSchema } from 'property-information';
import { serializeCanonical } from './canonical.js';
import { attributesOf, elementsIn, isBlankText, isBvTag, nestingDepth, splitList, startOf } from './hast.js';
import { checkNesting } from './nesting.js';
import { parseTopicHtml, stripCodeFence } from './parse.js';
import { normalizeTopicPath } from './path.js';
import { ELEMENTS, elementSpec, isDataAttribute, validateElementAttributes } from './registry.js';
import { parseRelated } from './related.js';
import { checkSafety, isUnsafeAttributeName, sanitizerWouldChange } from './safety.js';
import type { ParsedTopic, TopicError, TopicPath, TopicValidation } from './types.js';

import { MAX_NESTING_DEPTH, MAX_TOPIC_BYTES } from './limits.js';

export { MAX_NESTING_DEPTH, MAX_TOPIC_BYTES };

export interface TopicLimits {
  readonly maxBytes: number;
  /**
   * An unknown attribute of a bv-* element (`owner="…"`: inert, it only describes) is kept as
   * `data-owner` with a warning instead of refused, as `brv import` repairs it (curate's writes).
   */
  readonly unknownAttributesAsData?: boolean;
}

const DEFAULT_LIMITS: TopicLimits = { maxBytes: MAX_TOPIC_BYTES };

function checkSize(html: string, maxBytes: number): TopicError | undefined {
  const fix = 'Split it into several topics.';
  // UTF-8 never has fewer bytes than UTF-16 code units, so a long string is refused without encoding it.
  if (html.length > maxBytes) {
    return { kind: 'too-large', message: `The topic is at least ${html.length} bytes; the limit is ${maxBytes} bytes. ${fix}` };
  }
  const bytes = new TextEncoder().encode(html).length;
  if (bytes > maxBytes) return { kind: 'too-large', message: `The topic is ${bytes} bytes; the limit is ${maxBytes} bytes. ${fix}` };
  return undefined;
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkCharacters(html: string): TopicError[] {
  const errors: TopicError[] = [];
  const controls = html.match(CONTROL);
  if (controls) {
    const codes = [...new Set(controls)].map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
    errors.push({
      kind: 'unsafe-html',
      message: `The HTML contains ${controls.length} control character(s) (${codes.join(', ')}); NUL and other control characters are never stored. Remove them.`,
    });
  }
  if (LONE_SURROGATE.test(html)) {
    errors.push({ kind: 'unsafe-html', message: 'The HTML contains invalid Unicode (an unpaired surrogate); send valid UTF-8 text.' });
  }
  return errors;
}

// After entity decoding, only tab and newline are allowed: `&#x1b;` is an ESC all the same, and \r
// (only reachable as `&#13;`, the parser turns raw ones into \n) would not survive a round trip.
// eslint-disable-next-line no-control-regex
const DECODED_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

function decodedControls(value: string, found: Set<string>): void {
  DECODED_CONTROL.lastIndex = 0;
  if (!DECODED_CONTROL.test(value)) return;
  for (const c of value.match(DECODED_CONTROL) ?? []) found.add(c);
}

/** Control characters written as character references (raw ones are reported by checkCharacters). */
function checkDecodedCharacters(root: Root): TopicError[] {
  const found = new Set<string>();
  const stack: Nodes[] = [root];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'text') decodedControls(next.value, found);
    if (next.type === 'element') {
      for (const [prop, value] of Object.entries(next.properties)) {
        if (next.tagName === 'bv-topic' && prop === 'path') continue; // reported as unsafe-path
        for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') decodedControls(v, found);
      }
    }
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
  if (found.size === 0) return [];
  const codes = [...found].map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
  return [
    {
      kind: 'unsafe-html',
      message: `The HTML encodes control character(s) (${codes.join(', ')}) as character references; terminal escapes and other control characters are never stored, however written. Remove them.`,
    },
  ];
}

/**
 * Positions in the HTML as sent: the parser saw it trimmed and without a surrounding code fence,
 * so a line and column it gives are moved by where that text starts in the input.
 */
function locatedInInput(html: string, errors: TopicError[]): TopicError[] {
  if (!errors.some((e) => e.line !== undefined)) return errors;
  const base = html.indexOf(stripCodeFence(html));
  if (base <= 0) return errors;
  const before = html.slice(0, base);
  const lines = before.split('\n');
  const baseLine = lines.length - 1;
  const baseColumn = lines[lines.length - 1]!.length;
  return errors.map((e) =>
    e.line === undefined || e.column === undefined
      ? e
      : { ...e, line: e.line + baseLine, column: e.line === 1 ? e.column + baseColumn : e.column },
  );
}

/** `target.push(...items)` without spreading: a huge error list would overflow the call stack. */
function pushAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

function parseShallow(html: string): Root | undefined {
  try {
    const root = parseTopicHtml(html);
    return nestingDepth(root) > MAX_NESTING_DEPTH ? undefined : root;
  } catch {
    return undefined; // the parser recurses per level: only absurd nesting gets here
  }
}

function describe(node: Root['children'][number]): string {
  if (node.type === 'element') return `<${node.tagName}>`;
  if (node.type === 'comment') return 'an HTML comment';
  return node.type === 'text' ? `text "${node.value.trim().slice(0, 40)}"` : node.type;
}

/** Bug 12 of ByteRover: the topic must be THE root, nothing may sit around it. */
function checkOutside(root: Root, topic: Element): TopicError[] {
  const errors: TopicError[] = [];
  const fix = 'send only the <bv-topic> element, with nothing before or after it.';
  const topicIndex = root.children.findIndex((child) => child.type === 'element' && [...elementsIn(child)].includes(topic));
  root.children.forEach((child, index) => {
    if (child === topic || isBlankText(child) || child.type === 'doctype' || child.type === 'comment') return;
    if (child.type === 'element' && child.tagName === 'bv-topic') return; // reported as multiple-bv-topic
    if (index === topicIndex && child.type === 'element') {
      errors.push({
        kind: 'content-outside-topic',
        tag: child.tagName,
        ...startOf(child),
        message: `<bv-topic> must be the root, but it is wrapped in <${child.tagName}>; ${fix}`,
      });
    } else {
      const where = index < topicIndex ? 'before' : 'after';
      errors.push({ kind: 'content-outside-topic', message: `Found ${describe(child)} ${where} <bv-topic>; ${fix}`, ...startOf(child) });
    }
  });
  return errors;
}

function closeNames(tag: string): string[] {
  const stem = tag.replace(/^bv-/, '').replace(/s$/, '');
  return ELEMENTS.map((e) => e.name).filter((name) => {
    const other = name.replace(/^bv-/, '');
    return other.length > 2 && stem.length > 2 && (other.includes(stem) || stem.includes(other));
  });
}

/**
 * Whether `error` is an unknown attribute name that `data-<name>` can keep: a name the element's
 * spec does not have (a bad value of a known one, or a reserved name, is still an error), and whose
 * data-* form is a valid name not already on the element.
 */
function keepableAsData(tag: string, error: TopicError, attributes: ReadonlyMap<string, string>): boolean {
  const name = error.attribute;
  if (error.kind !== 'attribute-validation' || name === undefined || !attributes.has(name)) return false;
  if (elementSpec(tag)?.attributes.some((a) => a.name === name) || !/unknown attribute/.test(error.message)) return false;
  return isDataAttribute(`data-${name}`) && !attributes.has(`data-${name}`);
}

function checkVocabulary(topic: Element, unknownAsData: boolean, warnings: string[]): TopicError[] {
  const errors: TopicError[] = [];
  for (const element of elementsIn(topic)) {
    const tag = element.tagName;
    if (!isBvTag(tag) || (tag === 'bv-topic' && element !== topic)) continue;
    if (elementSpec(tag)) {
      const attributes = new Map([...attributesOf(element)].filter(([name]) => !isUnsafeAttributeName(name)));
      const at = startOf(element);
      for (const error of validateElementAttributes(tag, attributes)) {
        if (unknownAsData && keepableAsData(tag, error, attributes)) {
          const name = error.attribute!;
          const value = attributes.get(name)!;
          delete element.properties[find(htmlSchema, name).property];
          element.properties[find(htmlSchema, `data-${name}`).property] = value;
          const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
          warnings.push(`<${tag}> ${name}="${shown}" is not a ${tag} attribute; kept as data-${name}.`);
          continue;
        }
        errors.push({ ...error, ...at });
      }
    } else {
      const close = closeNames(tag);
      const hint = close.length > 0 ? ` Did you mean <${close.join('>, <')}>?` : '';
      errors.push({
        kind: 'unknown-element',
        tag,
        ...startOf(element),
        message: `<${tag}> is not a topic element; the vocabulary is closed (${ELEMENTS.map((e) => e.name).join(', ')}).${hint}`,
      });
    }
  }
  const path = attributesOf(topic).get('path');
  if (path === undefined || path.trim() === '') {
    errors.push({
      kind: 'missing-path-attribute',
      tag: 'bv-topic',
      attribute: 'path',
      ...startOf(topic),
      message: '<bv-topic> needs a non-empty path attribute, e.g. path="security/auth".',
    });
  } else {
    const result = normalizeTopicPath(path);
    if (!result.ok) errors.push({ ...result.error, tag: 'bv-topic', ...startOf(topic) });
  }
  return errors;
}

/** A copy of `node` without comment nodes (they are dropped, not judged). Iterative. */
function withoutComments<T extends Nodes>(node: T): T {
  const copy = { ...node } as T;
  const stack: Nodes[] = [copy];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (!('children' in next)) continue;
    const children = next.children.filter((child) => child.type !== 'comment').map((child) => ({ ...child }));
    (next as { children: Nodes[] }).children = children;
    for (const child of children) stack.push(child);
  }
  return copy;
}

/** Comments anywhere in the document: dropped from the stored topic, reported as one warning. */
function commentWarnings(root: Root): string[] {
  let count = 0;
  const stack: Nodes[] = [root];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'comment') count++;
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
  if (count === 0) return [];
  return [
    `Dropped ${count} HTML comment${count === 1 ? '' : 's'}: topics keep no comments (renderers hide them and they can hide markup). Put notes you want kept in a bv-* element.`,
  ];
}

function toParsedTopic(topic: Element, warnings: readonly string[]): ParsedTopic {
  const attributes = attributesOf(topic);
  const path = normalizeTopicPath(attributes.get('path') ?? '');
  const summary = attributes.get('summary')?.trim();
  return {
    path: (path.ok ? path.path : '') as TopicPath,
    title: (attributes.get('title') ?? '').trim(),
    ...(summary ? { summary } : {}),
    tags: splitList(attributes.get('tags')),
    keywords: splitList(attributes.get('keywords')),
    related: parseRelated(attributes.get('related')),
    root: topic,
    canonicalHtml: serializeCanonical(topic),
    warnings,
  };
}

/** Validates an agent-written topic; returns every problem found, never throws. */
export function validateTopicHtml(html: string, limits: TopicLimits = DEFAULT_LIMITS): TopicValidation {
  const tooLarge = checkSize(html, limits.maxBytes);
  if (tooLarge) return { ok: false, errors: [tooLarge] };
  const root = parseShallow(html);
  if (!root) {
    return {
      ok: false,
      errors: [{ kind: 'too-large', message: `Elements are nested more than ${MAX_NESTING_DEPTH} levels deep; flatten the HTML.` }],
    };
  }
  const errors = checkCharacters(html);
  // Raw control characters decode to themselves: report each problem once.
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(html)) pushAll(errors, checkDecodedCharacters(root));
  const topics = [...elementsIn(root)].filter((e) => e.tagName === 'bv-topic');
  const topic = topics[0];
  if (topics.length > 1) {
    errors.push({
      kind: 'multiple-bv-topic',
      tag: 'bv-topic',
      ...startOf(topics[1]!),
      message: `Found ${topics.length} <bv-topic> elements; a topic document has exactly one. Send one topic per document.`,
    });
  }
  for (const child of root.children) pushAll(errors, checkSafety(child));
  if (!topic) {
    errors.push({
      kind: 'missing-bv-topic',
      message: 'No <bv-topic> element found; wrap the topic in <bv-topic path="domain/topic" title="…">…</bv-topic>.',
    });
    return { ok: false, errors };
  }
  const kept: string[] = [];
  for (const found of [
    checkOutside(root, topic),
    checkVocabulary(topic, limits.unknownAttributesAsData === true, kept),
    checkNesting(topic),
  ])
    pushAll(errors, found);
  const warnings = [...commentWarnings(root), ...kept];
  if (errors.length === 0 && sanitizerWouldChange(warnings.length > kept.length ? withoutComments(root) : root)) {
    errors.push({
      kind: 'unsafe-html',
      message:
        'The HTML contains markup outside the allowed set (the sanitizer would change it); use only bv-* elements and plain tags such as <p>, <ul>, <code>, <pre>, <table>, <a>.',
    });
  }
  return errors.length > 0
    ? { ok: false, errors: locatedInInput(html, errors) }
    : { ok: true, topic: toParsedTopic(warnings.length > kept.length ? withoutComments(topic) : topic, warnings) };
}
