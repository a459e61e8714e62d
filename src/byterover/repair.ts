import type { Element, ElementContent, Nodes, Root, RootContent } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { find, html as htmlSchema } from 'property-information';
import { attributesOf, elementsIn, flatText, isBlankText, isBvTag } from '../topic/hast.js';
import { parseTopicHtml } from '../topic/parse.js';
import { BLOCK_TAGS, elementSpec, INLINE_TAGS, TOLERATED_TOPIC_ATTRIBUTES } from '../topic/registry.js';
import type { TopicError, TopicValidation } from '../topic/types.js';
import { validateTopicHtml } from '../topic/validate.js';

/**
 * Repairs for topics ByteRover 3.14 accepts but brv would refuse or store differently (spec §1.4,
 * §12): text around the root, a wrapper element, unknown attributes on bv-* elements, comments,
 * nesting ByteRover tolerates. Only what the validator reports is repaired, so the repairs shrink by
 * themselves as the vocabulary grows; nothing is dropped silently: every change is listed.
 */

/** What a repair did (stable strings, API). */
export type RepairKind =
  | 'comment-dropped'
  | 'stamp-dropped'
  | 'stamp-kept'
  | 'content-around-topic-kept'
  | 'wrapper-removed'
  | 'attribute-kept-as-data'
  | 'attribute-kept-as-fact'
  | 'loose-content-wrapped'
  | 'section-moved-up'
  | 'markup-flattened'
  | 'list-item-wrapped'
  | 'element-unwrapped';

export interface Repair {
  repair: RepairKind;
  message: string;
}

export interface RepairedTopic {
  validation: TopicValidation;
  repairs: Repair[];
}

const MAX_ROUNDS = 8;
const INLINE = () => new Set(INLINE_TAGS);
const BLOCK = () => new Set([...INLINE_TAGS, ...BLOCK_TAGS]);

// Decoded character references can hold terminal escapes; a report line never carries one.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A short, printable excerpt of file content for a repair's message. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').replace(CONTROLS, '\ufffd').trim();
  return flat.length > 60 ? `${flat.slice(0, 57)}…` : flat;
}

function element(tagName: string, properties: Element['properties'], children: ElementContent[]): Element {
  return { type: 'element', tagName, properties, children };
}

function propertyOf(attribute: string): string {
  return find(htmlSchema, attribute).property;
}

/** Text of a node as written (line breaks for <br>), for content that must be plain text. */
function textOf(node: Nodes): string {
  const parts: string[] = [];
  const stack: Nodes[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'text') parts.push(next.value);
    else if (next.type === 'element' && next.tagName === 'br') parts.push('\n');
    if (next.type === 'root' || (next.type === 'element' && next.tagName !== 'br')) {
      for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
    }
  }
  return parts.join('');
}

function dropComments(root: Root, repairs: Repair[]): void {
  const stack: Array<Root | Element> = [root];
  for (let parent = stack.pop(); parent !== undefined; parent = stack.pop()) {
    const kept: RootContent[] = [];
    for (const child of parent.children) {
      if (child.type === 'comment') {
        repairs.push({
          repair: 'comment-dropped',
          message: `Dropped the comment <!--${excerpt(child.value)}-->: comments are not stored (put a note in a bv-* element instead).`,
        });
      } else {
        kept.push(child);
        if (child.type === 'element') stack.push(child);
      }
    }
    parent.children = kept as typeof parent.children;
  }
}

function firstTopic(root: Root): Element | undefined {
  for (const e of elementsIn(root)) if (e.tagName === 'bv-topic') return e;
  return undefined;
}

/** Runs of text and inline elements become <p>; block elements stay as they are. */
function asBlocks(nodes: RootContent[]): ElementContent[] {
  const inline = INLINE();
  const out: ElementContent[] = [];
  let run: ElementContent[] = [];
  const flush = () => {
    if (run.some((n) => !isBlankText(n))) out.push(element('p', {}, trimRun(run)));
    run = [];
  };
  for (const node of nodes) {
    if (node.type === 'doctype' || node.type === 'comment') continue;
    if (node.type === 'text' || (node.type === 'element' && inline.has(node.tagName) && node.tagName !== 'br')) run.push(node);
    else if (node.type === 'element' && node.tagName === 'br') flush();
    else if (node.type === 'element') {
      flush();
      out.push(node);
    }
  }
  flush();
  return out;
}

function trimRun(run: ElementContent[]): ElementContent[] {
  return run.map((n, i) => {
    if (n.type !== 'text') return n;
    let value = n.value.replace(/\s+/g, ' ');
    if (i === 0) value = value.trimStart();
    if (i === run.length - 1) value = value.trimEnd();
    return { ...n, value };
  });
}

/** content-outside-topic: the topic becomes the root; what was around it is kept in a bv-highlights section. */
function keepContentAround(root: Root, repairs: Repair[]): boolean {
  const topic = firstTopic(root);
  if (!topic) return false;
  const before: RootContent[] = [];
  const after: RootContent[] = [];
  // The chain of ancestors from the root down to the topic.
  const chain: Array<Root | Element> = [];
  const path = (node: Root | Element): boolean => {
    chain.push(node);
    if (node === topic) return true;
    for (const child of node.children) if (child.type === 'element' && [...elementsIn(child)].includes(topic) && path(child)) return true;
    chain.pop();
    return false;
  };
  if (!path(root)) return false;
  for (let i = 0; i < chain.length - 1; i++) {
    const parent = chain[i]!;
    const next = chain[i + 1]!;
    const at = parent.children.indexOf(next as ElementContent);
    before.push(...parent.children.slice(0, at));
    after.unshift(...parent.children.slice(at + 1));
    if (i > 0) {
      const tag = (parent as Element).tagName;
      repairs.push({
        repair: 'wrapper-removed',
        message: `<bv-topic> was wrapped in <${tag}>; the wrapper was removed and its other content kept.`,
      });
    }
  }
  const sections: ElementContent[] = [];
  for (const [nodes, where] of [
    [before, 'before'],
    [after, 'after'],
  ] as const) {
    const blocks = asBlocks(nodes);
    if (blocks.length === 0) continue;
    const section = element('bv-highlights', {}, blocks);
    repairs.push({
      repair: 'content-around-topic-kept',
      message: `Content ${where} <bv-topic> ("${excerpt(flatText(section))}") was moved into a <bv-highlights> section ${where === 'before' ? 'at the start' : 'at the end'} of the topic.`,
    });
    sections.push(section);
    if (where === 'before') topic.children.unshift(section);
    else topic.children.push(section);
  }
  root.children = [topic];
  return true;
}

/** Each element of the topic with the index of the topic child (section) it is in; -1 for the topic itself. */
function* elementsBySection(topic: Element): Generator<[Element, number]> {
  yield [topic, -1];
  for (const [index, child] of topic.children.entries()) if (child.type === 'element') for (const e of elementsIn(child)) yield [e, index];
}

/** Attributes that cannot stay on their element, kept as <bv-fact> sections next to it (the topic's own first). */
function keepAsFacts(
  topic: Element,
  moves: Array<{ target: Element; section: number; attribute: string; value: string }>,
  repairs: Repair[],
): void {
  if (moves.length === 0) return;
  const after = new Map<number, Element[]>();
  const replaced = new Set<string>();
  for (const { target, section, attribute, value } of moves) {
    delete target.properties[propertyOf(attribute)];
    const name = attribute.replace(/^data-/, '');
    const tag = target.tagName;
    const fact = element('bv-fact', { subject: name, value, category: 'other' }, [
      { type: 'text', value: `Imported from ByteRover: <${tag}> had ${name}="${value}".` },
    ]);
    after.set(section, [...(after.get(section) ?? []), fact]);
    replaced.add(`<${tag}> ${name}=`);
    repairs.push({
      repair: 'attribute-kept-as-fact',
      message: `<${tag}> ${name}="${excerpt(value)}" cannot be stored on <${tag}>; kept as <bv-fact subject="${name}">.`,
    });
  }
  // One entry per attribute: an earlier "kept as data-*" that did not hold is replaced by the fact.
  const kept = repairs.filter(
    (r) => r.repair !== 'attribute-kept-as-data' || ![...replaced].some((prefix) => r.message.startsWith(prefix)),
  );
  repairs.splice(0, repairs.length, ...kept);
  const children: ElementContent[] = [...(after.get(-1) ?? [])];
  topic.children.forEach((child, index) => children.push(child, ...(after.get(index) ?? [])));
  topic.children = children;
}

/** Unknown attributes on bv-* elements: kept as data-* attributes, or (when those are refused) as a <bv-fact>. */
function keepAttributes(root: Root, errors: TopicError[], repairs: Repair[]): boolean {
  const topic = firstTopic(root);
  if (!topic) return false;
  const unknown = new Set<string>();
  for (const error of errors) {
    const { tag, attribute } = error;
    if (error.kind !== 'attribute-validation' || !tag || !attribute || !isBvTag(tag)) continue;
    const spec = elementSpec(tag);
    if (!spec || spec.attributes.some((a) => a.name === attribute)) continue; // a bad value, not an unknown name
    if (tag === 'bv-topic' && TOLERATED_TOPIC_ATTRIBUTES.includes(attribute)) continue;
    unknown.add(`${tag} ${attribute}`);
  }
  if (unknown.size === 0) return false;
  const facts: Array<{ target: Element; section: number; attribute: string; value: string }> = [];
  let changed = false;
  for (const [target, section] of elementsBySection(topic)) {
    for (const [attribute, value] of attributesOf(target)) {
      if (!unknown.has(`${target.tagName} ${attribute}`)) continue;
      changed = true;
      const data = `data-${attribute}`;
      if (!attribute.startsWith('data-') && !attributesOf(target).has(data)) {
        delete target.properties[propertyOf(attribute)];
        target.properties[propertyOf(data)] = value;
        repairs.push({
          repair: 'attribute-kept-as-data',
          message: `<${target.tagName}> ${attribute}="${excerpt(value)}" is not a ${target.tagName} attribute; kept as ${data}.`,
        });
      } else facts.push({ target, section, attribute, value });
    }
  }
  keepAsFacts(topic, facts, repairs);
  return changed;
}

/** Direct children of <bv-topic> that the validator refuses there (text, plain tags): wrapped in a bv-highlights section. */
function wrapLooseContent(topic: Element, tags: Set<string>, repairs: Repair[]): boolean {
  const offending = (n: ElementContent) =>
    (n.type === 'text' && !isBlankText(n) && tags.has('bv-topic')) || (n.type === 'element' && !isBvTag(n.tagName) && tags.has(n.tagName));
  const children: ElementContent[] = [];
  let run: ElementContent[] = [];
  let changed = false;
  const flush = () => {
    if (run.some(offending)) {
      const section = element('bv-highlights', {}, asBlocks(run));
      repairs.push({
        repair: 'loose-content-wrapped',
        message: `Content directly inside <bv-topic> ("${excerpt(flatText(section))}") was wrapped in a <bv-highlights> section.`,
      });
      children.push(section);
      changed = true;
    } else children.push(...run);
    run = [];
  };
  for (const child of topic.children) {
    if (child.type === 'element' && isBvTag(child.tagName)) {
      flush();
      children.push(child);
    } else run.push(child);
  }
  flush();
  topic.children = children;
  return changed;
}

/** bv-* elements inside other bv-* elements: moved up to be children of <bv-topic>, right after their section. */
function moveSectionsUp(topic: Element, tags: Set<string>, repairs: Repair[]): boolean {
  let changed = false;
  const children: ElementContent[] = [];
  for (const child of topic.children) {
    children.push(child);
    if (child.type !== 'element' || !isBvTag(child.tagName)) continue;
    const moved: Element[] = [];
    const stack: Element[] = [child];
    for (let parent = stack.pop(); parent !== undefined; parent = stack.pop()) {
      const kept: ElementContent[] = [];
      for (const node of parent.children) {
        if (node.type === 'element' && isBvTag(node.tagName) && node.tagName !== 'bv-topic' && tags.has(node.tagName)) {
          moved.push(node);
          repairs.push({
            repair: 'section-moved-up',
            message: `<${node.tagName}> was inside <${child.tagName}>; moved up to follow it as a section of its own.`,
          });
        } else {
          kept.push(node);
          if (node.type === 'element') stack.push(node);
        }
      }
      parent.children = kept;
    }
    if (moved.length > 0) changed = true;
    children.push(...moved);
  }
  topic.children = children;
  return changed;
}

const BLOCKISH = new Set([...BLOCK_TAGS, 'div', 'section', 'article', 'aside', 'header', 'footer', 'figure', 'details']);

/** Plain tags refused where they are inside a section: flattened to text, unwrapped, or (a stray <li>) put in a list. */
function flattenMarkup(topic: Element, tags: Set<string>, repairs: Repair[]): boolean {
  let changed = false;
  const inline = INLINE();
  const block = BLOCK();
  for (const section of topic.children) {
    if (section.type !== 'element' || !isBvTag(section.tagName)) continue;
    const model = elementSpec(section.tagName)?.content ?? 'block';
    const allowed = model === 'inline' ? inline : model === 'block' || model === 'any' ? block : new Set<string>();
    const stack: Element[] = [section];
    for (let parent = stack.pop(); parent !== undefined; parent = stack.pop()) {
      const out: ElementContent[] = [];
      const children = parent.children;
      for (let i = 0; i < children.length; i++) {
        const node = children[i]!;
        if (node.type !== 'element' || isBvTag(node.tagName) || !tags.has(node.tagName)) {
          out.push(node);
          if (node.type === 'element') stack.push(node);
          continue;
        }
        const tag = node.tagName;
        if (model === 'text') {
          out.push({ type: 'text', value: textOf(node) });
          repairs.push({
            repair: 'markup-flattened',
            message: `<${tag}> inside <${section.tagName}> (plain text only) was replaced by its text.`,
          });
          changed = true;
        } else if (!allowed.has(tag)) {
          // A block's own line is kept with a <br> on each side that has content.
          const br = BLOCKISH.has(tag) && inline.has('br');
          const last = out[out.length - 1];
          if (br && last && !isBlankText(last) && !(last.type === 'element' && last.tagName === 'br')) out.push(element('br', {}, []));
          out.push(...node.children);
          if (br && children.slice(i + 1).some((n) => !isBlankText(n))) out.push(element('br', {}, []));
          repairs.push({
            repair: 'markup-flattened',
            message: `<${tag}> is not allowed inside <${section.tagName}> (${model} content); its content was kept without it.`,
          });
          changed = true;
          // The moved children are judged again in the next round.
        } else if (tag === 'li' && !['ul', 'ol'].includes(parent.tagName)) {
          const run: ElementContent[] = [node];
          while (i + 1 < children.length && (isBlankText(children[i + 1]!) || (children[i + 1] as Element).tagName === 'li'))
            run.push(children[++i]!);
          out.push(element('ul', {}, run));
          repairs.push({ repair: 'list-item-wrapped', message: `<li> inside <${parent.tagName}> was put in a <ul>.` });
          changed = true;
        } else {
          out.push(node);
          stack.push(node);
        }
      }
      parent.children = out;
    }
  }
  return changed;
}

/** Elements the vocabulary does not know (and that are not dangerous): their content kept without them. */
function unwrapUnknown(root: Root, tags: Set<string>, repairs: Repair[]): boolean {
  let changed = false;
  const stack: Array<Root | Element> = [root];
  for (let parent = stack.pop(); parent !== undefined; parent = stack.pop()) {
    let children: RootContent[] = parent.children;
    for (let again = true; again;) {
      again = false;
      const out: RootContent[] = [];
      for (const node of children) {
        if (node.type === 'element' && tags.has(node.tagName)) {
          out.push(...node.children);
          repairs.push({
            repair: 'element-unwrapped',
            message: `<${node.tagName}> is not a topic element; its content was kept without it.`,
          });
          changed = again = true;
        } else out.push(node);
      }
      children = out;
    }
    parent.children = children as typeof parent.children;
    for (const node of children) if (node.type === 'element') stack.push(node);
  }
  return changed;
}

function applyRepairs(root: Root, errors: TopicError[], repairs: Repair[]): boolean {
  const kinds = new Set(errors.map((e) => e.kind));
  if (kinds.has('multiple-bv-topic') || kinds.has('missing-bv-topic')) return false; // ByteRover refuses these too
  if (kinds.has('content-outside-topic')) return keepContentAround(root, repairs);
  const topic = firstTopic(root);
  if (!topic) return false;
  let changed = keepAttributes(root, errors, repairs);
  const nesting = new Set(errors.filter((e) => e.kind === 'invalid-nesting' && e.tag).map((e) => e.tag!));
  if (nesting.size > 0) {
    changed = moveSectionsUp(topic, nesting, repairs) || changed;
    changed = wrapLooseContent(topic, nesting, repairs) || changed;
    changed = flattenMarkup(topic, nesting, repairs) || changed;
  }
  const unknown = new Set(errors.filter((e) => e.kind === 'unknown-element' && e.tag && !isBvTag(e.tag)).map((e) => e.tag!));
  if (unknown.size > 0) changed = unwrapUnknown(root, unknown, repairs) || changed;
  return changed;
}

/** Attributes that validated but are not in the stored form (the canonical form keeps a fixed set on <bv-topic>): kept as facts. */
function keepLostAttributes(root: Root, validation: TopicValidation, repairs: Repair[]): boolean {
  if (!validation.ok) return false;
  const topic = firstTopic(root);
  const stored = firstTopic(parseTopicHtml(validation.topic.canonicalHtml));
  if (!topic || !stored) return false;
  const kept = new Set<string>();
  for (const e of elementsIn(stored)) for (const name of attributesOf(e).keys()) kept.add(`${e.tagName} ${name}`);
  const facts: Array<{ target: Element; section: number; attribute: string; value: string }> = [];
  for (const [target, section] of elementsBySection(topic)) {
    for (const [attribute, value] of attributesOf(target)) {
      if (value.trim() === '' || kept.has(`${target.tagName} ${attribute}`)) continue;
      if (target === topic && TOLERATED_TOPIC_ATTRIBUTES.includes(attribute)) continue; // listed as stamp-dropped
      facts.push({ target, section, attribute, value });
    }
  }
  keepAsFacts(topic, facts, repairs);
  return facts.length > 0;
}

/**
 * Validates a ByteRover topic, repairing what brv refuses but ByteRover accepts. Every repair is
 * listed; what cannot be repaired (a script, two topics…) is returned as the validator's errors.
 */
export function repairByteRoverTopic(html: string): RepairedTopic {
  const repairs: Repair[] = [];
  let validation = validateTopicHtml(html);
  // Too large or too deep is never repaired: the validator refused it before any recursive walk, and
  // so must this (the HTML parser recurses per level of nesting).
  if (!validation.ok && validation.errors.some((e) => e.kind === 'too-large')) return { validation, repairs };
  const root = parseTopicHtml(html);
  const hasComment = (() => {
    for (const n of walk(root)) if (n.type === 'comment') return true;
    return false;
  })();
  if (hasComment) {
    dropComments(root, repairs);
    validation = validateTopicHtml(toHtml(root));
  }
  for (let round = 0; round < MAX_ROUNDS && !validation.ok; round++) {
    if (!applyRepairs(root, validation.errors, repairs)) break;
    validation = validateTopicHtml(toHtml(root));
  }
  if (keepLostAttributes(root, validation, repairs)) validation = validateTopicHtml(toHtml(root));
  if (validation.ok && keepStamps(root, repairs)) validation = validateTopicHtml(toHtml(root));
  if (validation.ok) noteStamps(validation, repairs);
  else if (repairs.length > 0) {
    // Said so: the file itself may be under the limit, the repaired topic is what was checked. Its
    // lines are not the file's: positions are left out.
    const errors = validation.errors.map(({ line: _line, column: _column, ...e }) =>
      e.kind === 'too-large' ? { ...e, message: `After ${repairs.length} repair(s): ${e.message}` } : e,
    );
    validation = { ok: false, errors };
  }
  return { validation, repairs };
}

function* walk(node: Nodes): Generator<Nodes> {
  const stack: Nodes[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    yield next;
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
}

/**
 * ByteRover's stamped `createdat`/`updatedat` (when the topic was first and last written there) kept
 * as `data-createdat`/`data-updatedat` on <bv-topic>, as import keeps every attribute brv has no name
 * for. Not a <time> or <bv-timestamp>: those date the knowledge itself (query --since/--until, "in May"
 * questions), and these are file times. Not the import commit's date either: one import is one commit.
 * A stamp whose data-* name is taken stays as it was (dropped by the canonical form; noteStamps says so).
 */
function keepStamps(root: Root, repairs: Repair[]): boolean {
  const topic = firstTopic(root);
  if (!topic) return false;
  const attributes = attributesOf(topic);
  const kept: string[] = [];
  for (const name of TOLERATED_TOPIC_ATTRIBUTES) {
    const value = attributes.get(name);
    if (value === undefined || value.trim() === '' || attributes.has(`data-${name}`)) continue;
    delete topic.properties[propertyOf(name)];
    topic.properties[propertyOf(`data-${name}`)] = value;
    kept.push(`${name}="${excerpt(value)}"`);
  }
  if (kept.length === 0) return false;
  repairs.push({
    repair: 'stamp-kept',
    message: `Kept ByteRover's stamped ${kept.join(', ')} as data-* attributes of <bv-topic> (brv's own history is in git).`,
  });
  return true;
}

function noteStamps(validation: TopicValidation, repairs: Repair[]): void {
  if (!validation.ok) return;
  const attributes = attributesOf(validation.topic.root);
  const stamps = TOLERATED_TOPIC_ATTRIBUTES.flatMap((name) => {
    const value = attributes.get(name);
    return value === undefined ? [] : [`${name}="${excerpt(value)}"`];
  });
  if (stamps.length > 0) {
    repairs.push({
      repair: 'stamp-dropped',
      message: `Dropped ByteRover's stamped ${stamps.join(', ')}: brv keeps a topic's history in git (the import commit dates it).`,
    });
  }
}
