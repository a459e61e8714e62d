import type { Element, ElementContent } from 'hast';
import { BrvError } from '../base/errors.js';
import { serializeCanonical } from '../topic/canonical.js';
import { attributesOf, flatText } from '../topic/hast.js';
import { readStoredTopic } from '../topic/stored.js';
import { validateTopicHtml } from '../topic/validate.js';

/**
 * The conflicts a merge left in one topic (src/topic/merge.ts): the "Merge conflict" note first in
 * the topic lists them, and each section changed differently on both sides is there twice, each
 * copy marked ("Merge conflict, ours (…):", "Merge conflict, theirs (…):"). Resolving one keeps one
 * copy (or both), removes the markers and its line of the note, and the note once it is empty.
 */
export interface TopicConflict {
  /** As the note names it: `bv-rule#r1`, `title`, `summary`, `(whole topic)`, `bv-section "Heading"`. */
  section: string;
  reason: string;
  /** The two marked copies (markers removed), canonical HTML, for sections kept twice. */
  ours?: string;
  theirs?: string;
}

export type ConflictSide = 'ours' | 'theirs' | 'both';

const NOTE_HEADING = 'Merge conflict';
const MARKER = /^Merge conflict, (ours|theirs)\b/;
const ATTRIBUTE_MARKER = /\s*\[Merge conflict, (ours|theirs)\b[^\]]*\]/;
const SCALARS = new Set(['title', 'summary']);

interface Parsed {
  topic: Element;
  note: Element | undefined;
  entries: Array<{ section: string; reason: string; item: Element }>;
  pairs: Array<{ ours: Element; theirs: Element }>;
}

function elementChildren(element: Element): Element[] {
  return element.children.filter((c): c is Element => c.type === 'element');
}

function isNote(element: Element): boolean {
  const first = elementChildren(element)[0];
  return element.tagName === 'bv-highlights' && first?.tagName === 'h3' && flatText(first).trim() === NOTE_HEADING;
}

/** Which side's marker an element carries, and where: a `<p><strong>` block, a leading `<strong>`, or an attribute. */
function markerOf(element: Element): { side: 'ours' | 'theirs'; remove: () => void } | undefined {
  for (const child of elementChildren(element).slice(0, 2)) {
    const strong = child.tagName === 'p' ? elementChildren(child)[0] : child.tagName === 'strong' ? child : undefined;
    const match = strong && MARKER.exec(flatText(strong));
    if (!match) continue;
    return {
      side: match[1] as 'ours' | 'theirs',
      remove: () => {
        const at = element.children.indexOf(child);
        const next = element.children[at + 1];
        element.children.splice(at, 1);
        if (child.tagName === 'strong' && next?.type === 'text') {
          next.value = next.value.replace(/^\s+/, '');
          if (next.value === '') element.children.splice(at, 1);
        }
      },
    };
  }
  for (const name of ['description', 'title']) {
    const value = element.properties[name];
    const match = typeof value === 'string' ? ATTRIBUTE_MARKER.exec(value) : null;
    if (!match) continue;
    return {
      side: match[1] as 'ours' | 'theirs',
      remove: () => {
        const rest = (element.properties[name] as string).replace(ATTRIBUTE_MARKER, '').trim();
        if (rest) element.properties[name] = rest;
        else delete element.properties[name];
      },
    };
  }
  return undefined;
}

/**
 * The topic as a tree: validated, or, when the blob is not valid topic HTML (a push or plumbing can carry
 * anything: a script, a handler), as the store reads any blob for display (sanitised), so that its conflicts
 * are still seen (and still hold up approval) and never come back with what the sanitiser removed.
 */
function parse(html: string): Parsed | undefined {
  const validation = validateTopicHtml(html);
  const read = validation.ok ? undefined : readStoredTopic(html);
  const root = validation.ok ? validation.topic.root : read?.ok ? read.root : undefined;
  if (!root) return undefined;
  const topic = structuredClone(root);
  const children = elementChildren(topic);
  const note = children.find(isNote);
  const entries: Parsed['entries'] = [];
  for (const list of note ? elementChildren(note).filter((e) => e.tagName === 'ul') : []) {
    for (const item of elementChildren(list)) {
      const code = elementChildren(item)[0];
      const section = code?.tagName === 'code' ? flatText(code) : flatText(item);
      const reason = flatText(item)
        .slice(section.length)
        .replace(/^\s*:\s*/, '');
      entries.push({ section, reason, item });
    }
  }
  const pairs: Parsed['pairs'] = [];
  for (let i = 0; i + 1 < children.length; i++) {
    const [ours, theirs] = [children[i]!, children[i + 1]!];
    if (markerOf(ours)?.side === 'ours' && markerOf(theirs)?.side === 'theirs') {
      pairs.push({ ours, theirs });
      i++;
    }
  }
  return { topic, note, entries, pairs };
}

function unmarked(element: Element): string {
  const copy = structuredClone(element);
  markerOf(copy)?.remove();
  return serializeCanonical({ type: 'element', tagName: 'bv-topic', properties: {}, children: [copy] })
    .replace(/^<bv-topic>\n?/, '')
    .replace(/\n?<\/bv-topic>\n?$/, '')
    .split('\n')
    .map((line) => line.replace(/^ {2}/, ''))
    .join('\n')
    .trim();
}

/** The pair of marked copies of each section entry: sections kept twice are listed in document order. */
function pairFor(parsed: Parsed): Map<string, { ours: Element; theirs: Element }> {
  const sections = parsed.entries.filter((e) => !SCALARS.has(e.section) && e.section !== '(whole topic)');
  return new Map(sections.flatMap((entry, i) => (parsed.pairs[i] ? [[entry.section, parsed.pairs[i]!] as const] : [])));
}

/** The unresolved conflicts of a topic; empty when it carries no conflict note. */
export function topicConflicts(html: string): TopicConflict[] {
  const parsed = parse(html);
  if (!parsed?.note) return [];
  const pairs = pairFor(parsed);
  return parsed.entries.map(({ section, reason }) => {
    const pair = pairs.get(section);
    return pair ? { section, reason, ours: unmarked(pair.ours), theirs: unmarked(pair.theirs) } : { section, reason };
  });
}

/** True when the topic still carries a merge conflict note. */
export function hasConflictNote(html: string): boolean {
  return parse(html)?.note !== undefined;
}

/**
 * Resolves the conflicts of a topic (`section`: one of them; all without) by keeping ours, theirs or
 * both copies. Title and summary hold one value: `both` keeps ours (the merge already did).
 * Returns the canonical topic and the sections resolved.
 */
export function resolveTopicConflicts(
  html: string,
  side: ConflictSide,
  section?: string,
): { html: string; resolved: string[]; remaining: string[] } {
  const parsed = parse(html);
  if (!parsed?.note) throw new BrvError('no-conflict', 'This topic carries no merge conflict note: there is nothing to resolve.');
  const { topic, note } = parsed;
  const chosen = section === undefined ? parsed.entries : parsed.entries.filter((e) => e.section === section);
  if (chosen.length === 0) {
    throw new BrvError(
      'no-conflict',
      `No conflict named "${section}" in this topic. Its conflicts: ${parsed.entries.map((e) => e.section).join(', ') || 'none'}.`,
    );
  }
  const pairs = pairFor(parsed);
  for (const entry of chosen) {
    if (entry.section === '(whole topic)' && side === 'theirs') {
      throw new BrvError(
        'conflict-needs-edit',
        `"(whole topic)": ${entry.reason}. There is no valid other version to keep; resolve it with --edit (or --ours to keep the topic as it is).`,
      );
    }
    if (SCALARS.has(entry.section)) {
      if (side === 'theirs') {
        const at = entry.reason.lastIndexOf(' has "');
        if (at >= 0) topic.properties[entry.section] = entry.reason.slice(at + 6).replace(/"$/, '');
      }
    } else {
      const pair = pairs.get(entry.section);
      if (pair) {
        const oursId = attributesOf(pair.ours).get('id');
        markerOf(pair.ours)?.remove();
        markerOf(pair.theirs)?.remove();
        if (side === 'ours') topic.children.splice(topic.children.indexOf(pair.theirs), 1);
        if (side === 'theirs') {
          topic.children.splice(topic.children.indexOf(pair.ours), 1);
          if (oursId !== undefined) pair.theirs.properties['id'] = oursId;
        }
      }
    }
    const list = note!.children.find((c): c is Element => c.type === 'element' && c.tagName === 'ul');
    if (list) list.children.splice(list.children.indexOf(entry.item as ElementContent), 1);
  }
  const remaining = parsed.entries.filter((e) => !chosen.includes(e)).map((e) => e.section);
  if (remaining.length === 0) topic.children.splice(topic.children.indexOf(note!), 1);
  const result = serializeCanonical(topic);
  const check = validateTopicHtml(result);
  if (!check.ok) {
    throw new BrvError(
      'conflict-needs-edit',
      `Resolving this way would not leave a valid topic (${check.errors[0]?.message}); resolve it with --edit.`,
    );
  }
  return { html: check.topic.canonicalHtml, resolved: chosen.map((e) => e.section), remaining };
}
