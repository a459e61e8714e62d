import type { Element, ElementContent } from 'hast';
import { serializeCanonical } from './canonical.js';
import { attributesOf, elementsIn, flatText, splitList } from './hast.js';
import { parseTopicHtml } from './parse.js';
import { normalizeTopicPath } from './path.js';
import { BV_GLOBAL_ATTRIBUTES, elementSpec, isDataAttribute } from './registry.js';
import type { TopicValidation } from './types.js';
import { validateTopicHtml } from './validate.js';

/** Names for the two sides in conflict notes, e.g. branch names. */
export interface TopicMergeLabels {
  readonly ours: string;
  readonly theirs: string;
}

export interface TopicMergeConflict {
  /** Which part of the topic: a section name such as `bv-rule#r-1`, `title`, or `(whole topic)`. */
  readonly section: string;
  readonly reason: string;
}

export interface TopicMergeResult {
  /** Canonical topic HTML; always passes validateTopicHtml. */
  readonly html: string;
  /** True when both versions of something were kept (or a side could not be merged) and a person or agent must resolve it. */
  readonly conflicted: boolean;
  readonly conflicts: TopicMergeConflict[];
}

/**
 * A section is a child element of <bv-topic>. Its key, in order of preference: the `id` attribute;
 * `subject` for bv-fact; the text of a leading <h1>–<h6> for block elements; else the tag alone.
 * Equal keys within one topic are numbered by occurrence (`bv-reason`, `bv-reason (2)`).
 */
interface Section {
  readonly key: string;
  readonly element: Element;
  /** Canonical HTML: equal content, equal string. */
  readonly html: string;
}

type Side = 'ours' | 'theirs';
type TopicAttributes = Record<'path' | 'title' | 'summary', string> &
  Record<'tags' | 'keywords' | 'related', string[]> & {
    /** Descriptive attributes (data-*, class, lang, dir), kept through a merge. */
    readonly extra?: ReadonlyMap<string, string>;
  };

const FIXED_TOPIC_ATTRIBUTES = new Set(['path', 'title', 'summary', 'tags', 'keywords', 'related']);

function extraAttributes(topic: Element | undefined): Map<string, string> {
  const extra = new Map<string, string>();
  for (const [name, value] of topic ? attributesOf(topic) : []) {
    if (!FIXED_TOPIC_ATTRIBUTES.has(name) && (isDataAttribute(name) || BV_GLOBAL_ATTRIBUTES.includes(name))) extra.set(name, value);
  }
  return extra;
}

/** Three-way, per attribute: a side's change wins over the base; both changed: ours. */
function mergeExtra(base: Map<string, string>, ours: Map<string, string>, theirs: Map<string, string>): Map<string, string> {
  const merged = new Map<string, string>();
  for (const name of new Set([...ours.keys(), ...theirs.keys()])) {
    const value = ours.get(name) === base.get(name) ? theirs.get(name) : ours.get(name);
    if (value !== undefined) merged.set(name, value);
  }
  return merged;
}

const HEADING = /^h[1-6]$/;

function leadingHeading(element: Element): Element | undefined {
  if (elementSpec(element.tagName)?.content !== 'block') return undefined;
  const first = element.children.find((child) => child.type !== 'text' || child.value.trim() !== '');
  return first?.type === 'element' && HEADING.test(first.tagName) ? first : undefined;
}

function sectionName(element: Element): string {
  const attributes = attributesOf(element);
  const id = attributes.get('id');
  if (id !== undefined) return `${element.tagName}#${id}`;
  const subject = element.tagName === 'bv-fact' ? attributes.get('subject') : undefined;
  if (subject !== undefined) return `${element.tagName}[subject=${subject}]`;
  const heading = leadingHeading(element);
  return heading ? `${element.tagName} "${flatText(heading)}"` : element.tagName;
}

function sectionsOf(topic: Element | undefined): Section[] {
  const seen = new Map<string, number>();
  const sections: Section[] = [];
  for (const element of topic?.children ?? []) {
    if (element.type !== 'element') continue;
    const name = sectionName(element);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    const html = serializeCanonical({ type: 'element', tagName: 'bv-topic', properties: {}, children: [element] });
    sections.push({ key: n > 1 ? `${name} (${n})` : name, element, html });
  }
  return sections;
}

function attributesOfTopic(topic: Element | undefined): TopicAttributes {
  const a = topic ? attributesOf(topic) : new Map<string, string>();
  const scalar = (name: string) => (a.get(name) ?? '').trim();
  const list = (name: string) => splitList(a.get(name));
  return {
    path: scalar('path'),
    title: scalar('title'),
    summary: scalar('summary'),
    tags: list('tags'),
    keywords: list('keywords'),
    related: list('related'),
  };
}

/** Base-aware set union: an item stays unless one side removed it from the base. */
function mergeList(base: string[], ours: string[], theirs: string[]): string[] {
  const [b, o, t] = [new Set(base), new Set(ours), new Set(theirs)];
  return [...new Set([...ours, ...theirs])].filter((item) => (o.has(item) && t.has(item)) || !b.has(item));
}

function h(tagName: string, children: Array<ElementContent | string>, properties: Element['properties'] = {}): Element {
  return { type: 'element', tagName, properties, children: children.map((c) => (typeof c === 'string' ? { type: 'text', value: c } : c)) };
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Control characters and lone surrogates would make the result invalid. */
function printable(text: string): string {
  return text.replace(CONTROL, '\ufffd');
}

class Merger {
  readonly conflicts: TopicMergeConflict[] = [];
  readonly names: Record<Side, string>;

  constructor(labels: TopicMergeLabels) {
    const name = (side: Side) => {
      const label = printable(labels[side]).trim().slice(0, 100);
      return label ? `${side} (${label})` : side;
    };
    this.names = { ours: name('ours'), theirs: name('theirs') };
  }

  scalar(name: string, base: string, ours: string, theirs: string): string {
    if (ours === theirs || theirs === base) return ours;
    if (ours === base) return theirs;
    this.conflicts.push({
      section: name,
      reason: `changed on both sides; kept ${this.names.ours} "${ours}", ${this.names.theirs} has "${theirs}"`,
    });
    return ours;
  }

  /** Three-way per section; order follows ours, theirs' new sections go after their predecessor in theirs. */
  sections(base: Element | undefined, ours: Element, theirs: Element): Element[] {
    const byKey = (topic: Element | undefined) => new Map(sectionsOf(topic).map((s) => [s.key, s]));
    const [b, o, t] = [byKey(base), byKey(ours), byKey(theirs)];
    const order = [...o.keys()];
    let cursor = -1;
    for (const key of t.keys()) {
      const at = order.indexOf(key);
      if (at >= 0) cursor = at;
      else order.splice(++cursor, 0, key);
    }
    const ids = new Set([...elementsIn(ours), ...elementsIn(theirs)].flatMap((e) => attributesOf(e).get('id') ?? []));
    const result: Element[] = [];
    for (const key of order) {
      const [bs, os, ts] = [b.get(key), o.get(key), t.get(key)];
      if (os?.html === ts?.html || ts?.html === bs?.html) {
        if (os) result.push(os.element);
      } else if (os?.html === bs?.html || !os) {
        if (ts) result.push(ts.element); // unchanged or deleted on ours: theirs' change (or addition) wins
      } else if (!ts) {
        result.push(os.element); // modified on ours, deleted on theirs: knowledge is kept
      } else {
        const why = bs ? 'changed differently on both sides' : 'added on both sides with different content';
        this.conflicts.push({ section: key, reason: `${why}; both versions are kept, marked ${this.names.ours} and ${this.names.theirs}` });
        result.push(this.#marked(os.element, 'ours'), this.#marked(ts.element, 'theirs', ids));
      }
    }
    return result;
  }

  /** A copy with a visible marker; theirs' copy gets a fresh id so ids stay unique. */
  #marked(element: Element, side: Side, ids?: Set<string>): Element {
    const copy = structuredClone(element);
    const text = `Merge conflict, ${this.names[side]}:`;
    const id = attributesOf(copy).get('id');
    if (ids && id !== undefined) {
      let fresh = `${id}-theirs`;
      for (let n = 2; ids.has(fresh); n++) fresh = `${id}-theirs-${n}`;
      ids.add(fresh);
      copy.properties['id'] = fresh;
    }
    const content = elementSpec(copy.tagName)?.content;
    if (content === 'text') {
      // Plain-text elements (pattern, diagram) take no markup: the marker goes into an attribute that renders.
      const attribute = copy.tagName === 'bv-diagram' ? 'title' : 'description';
      copy.properties[attribute] = [attributesOf(copy).get(attribute), `[${text.slice(0, -1)}]`].filter(Boolean).join(' ');
    } else if (content === 'inline') {
      copy.children.unshift(h('strong', [text]), { type: 'text', value: ' ' });
    } else {
      // After a leading heading, so the heading-based key survives for the next merge.
      const heading = leadingHeading(copy);
      copy.children.splice(heading ? copy.children.indexOf(heading) + 1 : 0, 0, h('p', [h('strong', [text])]));
    }
    return copy;
  }

  /** The explanation placed first in a conflicted topic; `raws` are unmergeable sides, kept as text. */
  note(raws: Array<[Side, string]>): Element {
    const { ours, theirs } = this.names;
    return h('bv-highlights', [
      h('h3', ['Merge conflict']),
      h('p', [
        `Merging ${theirs} into ${ours} needs a decision. Where both versions of a section are kept, each is marked: keep one (or combine them) and remove the markers. Then delete this note.`,
      ]),
      h(
        'ul',
        this.conflicts.map((c) => h('li', [h('code', [c.section]), `: ${c.reason}`])),
      ),
      ...raws.flatMap(([side, raw]) => [
        h('p', [`${this.names[side]} as stored (not a valid topic; re-add what is worth keeping):`]),
        h('pre', [h('code', [printable(raw)])]),
      ]),
    ]);
  }
}

function canonicalOrRaw(html: string | undefined, validation: TopicValidation | undefined): string | undefined {
  return validation?.ok ? validation.topic.canonicalHtml : html;
}

/** The first <bv-topic> of any HTML, valid or not; base only serves for comparison, so it may be invalid. */
function looseTopic(html: string | undefined): Element | undefined {
  if (html === undefined) return undefined;
  try {
    for (const element of elementsIn(parseTopicHtml(html))) if (element.tagName === 'bv-topic') return element;
  } catch {
    // absurd nesting: treat as no topic
  }
  return undefined;
}

function topicElement(attributes: TopicAttributes, children: Element[]): Element {
  const properties: Record<string, string> = { path: attributes.path, title: attributes.title };
  for (const [name, value] of attributes.extra ?? []) properties[name] = value;
  if (attributes.summary) properties['summary'] = attributes.summary;
  for (const name of ['tags', 'keywords', 'related'] as const) {
    if (attributes[name].length > 0) properties[name] = attributes[name].join(',');
  }
  return h('bv-topic', children, properties);
}

function result(topic: Element, conflicts: TopicMergeConflict[]): TopicMergeResult | undefined {
  const html = serializeCanonical(topic);
  return validateTopicHtml(html).ok ? { html, conflicted: conflicts.length > 0, conflicts } : undefined;
}

/**
 * Three-way merge of one topic, section by section (see Section for keys). Clean when the sides changed
 * different sections; sections changed differently on both sides are kept twice, marked, with a note
 * first in the topic. tags/keywords/related merge as sets; title and summary three-way, ours on conflict.
 * `base` is undefined for add/add. Never throws: a side that is not a valid topic is kept as text in the note.
 * `fallbackPath` is the topic path to use when no side has a usable path attribute (e.g. the blob's path).
 */
export function mergeTopicHtml(
  base: string | undefined,
  ours: string,
  theirs: string,
  labels: TopicMergeLabels,
  fallbackPath?: string,
): TopicMergeResult {
  const [vb, vo, vt] = [base === undefined ? undefined : validateTopicHtml(base), validateTopicHtml(ours), validateTopicHtml(theirs)];
  const [b, o, t] = [canonicalOrRaw(base, vb), canonicalOrRaw(ours, vo), canonicalOrRaw(theirs, vt)];
  const clean = (html: string): TopicMergeResult => ({ html, conflicted: false, conflicts: [] });
  if (vo.ok && (o === t || t === b)) return clean(vo.topic.canonicalHtml);
  if (vt.ok && o === b) return clean(vt.topic.canonicalHtml);

  const merger = new Merger(labels);
  const baseTopic = vb?.ok ? vb.topic.root : looseTopic(base);
  if (vo.ok && vt.ok) {
    const [ab, ao, at] = [baseTopic, vo.topic.root, vt.topic.root].map(attributesOfTopic) as [
      TopicAttributes,
      TopicAttributes,
      TopicAttributes,
    ];
    const attributes: TopicAttributes = {
      path: ao.path,
      title: merger.scalar('title', ab.title, ao.title, at.title),
      summary: merger.scalar('summary', ab.summary, ao.summary, at.summary),
      tags: mergeList(ab.tags, ao.tags, at.tags),
      keywords: mergeList(ab.keywords, ao.keywords, at.keywords),
      related: mergeList(ab.related, ao.related, at.related),
      extra: mergeExtra(extraAttributes(baseTopic), extraAttributes(vo.topic.root), extraAttributes(vt.topic.root)),
    };
    const children = merger.sections(baseTopic, vo.topic.root, vt.topic.root);
    const merged = result(
      topicElement(attributes, merger.conflicts.length > 0 ? [merger.note([]), ...children] : children),
      merger.conflicts,
    );
    if (merged) return merged;
    // Only the size limit gets here: both versions of everything do not fit in one topic.
    merger.conflicts.splice(0, Infinity, {
      section: '(whole topic)',
      reason: `the merged topic would not be valid (too large); kept ${merger.names.ours} only, ${merger.names.theirs} is in the other parent commit`,
    });
  }

  // A side that is not a valid topic: keep the valid side whole and the other's HTML as text in the note.
  const raws: Array<[Side, string]> = [];
  for (const [side, validation, html] of [
    ['ours', vo, ours],
    ['theirs', vt, theirs],
  ] as const) {
    if (validation.ok) continue;
    raws.push([side, html]);
    const first = validation.errors[0]?.message ?? '';
    merger.conflicts.push({
      section: '(whole topic)',
      reason: `${merger.names[side]} is not a valid topic (${first}); its HTML is kept as text below`,
    });
  }
  const kept = vo.ok ? vo.topic.root : vt.ok ? vt.topic.root : undefined;
  const path = [looseTopic(ours), looseTopic(theirs), baseTopic]
    .map((topic) => (topic ? attributesOf(topic).get('path') : undefined))
    .concat(fallbackPath, 'unknown')
    .map((candidate) => normalizeTopicPath(candidate ?? ''))
    .find((p) => p.ok);
  const attributes = { ...attributesOfTopic(kept), path: path?.ok ? path.path : 'unknown', extra: extraAttributes(kept) };
  if (!attributes.title) attributes.title = attributes.path;
  const children = kept ? sectionsOf(kept).map((s) => s.element) : [];
  return (
    result(topicElement(attributes, [merger.note(raws), ...children]), merger.conflicts) ??
    result(topicElement(attributes, [merger.note([]), ...children]), merger.conflicts) ??
    result(topicElement(attributes, children), merger.conflicts) ??
    result(topicElement({ ...attributes, summary: '', tags: [], keywords: [], related: [] }, [merger.note([])]), merger.conflicts)!
  );
}
