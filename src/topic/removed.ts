import type { Element } from 'hast';
import { attributesOf, flatText } from './hast.js';
import { parseTopicHtml } from './parse.js';

/**
 * What replacing a topic takes out of it, named so a person can see it before trusting the change:
 * facts, rules and files one by one, and every other section that is gone entirely. A fact or rule
 * whose words changed counts as removed (the old wording is no longer there).
 */
export interface RemovedContent {
  /** Each by its subject, else its text (cut to 80 characters). */
  facts: string[];
  rules: string[];
  /** The paths of <bv-files> items. */
  files: string[];
  /** Other sections gone: `bv-reason`, `bv-decision#d-1`, `bv-highlights "Heading"`. */
  sections: string[];
}

const NAME_CHARS = 80;

function named(text: string): string {
  return text.length <= NAME_CHARS ? text : `${text.slice(0, NAME_CHARS - 1)}…`;
}

function topicElement(html: string): Element | undefined {
  return parseTopicHtml(html).children.find((node): node is Element => node.type === 'element' && node.tagName === 'bv-topic');
}

function sections(topic: Element | undefined): Element[] {
  return (topic?.children ?? []).filter((node): node is Element => node.type === 'element');
}

/** A section's name: its id, a fact's subject, the heading it starts with, else its tag. */
function sectionName(element: Element): string {
  const id = attributesOf(element).get('id');
  if (id !== undefined) return `${element.tagName}#${id}`;
  const first = element.children.find((child) => child.type !== 'text' || child.value.trim() !== '');
  if (first?.type === 'element' && /^h[1-6]$/.test(first.tagName)) return `${element.tagName} "${named(flatText(first))}"`;
  return element.tagName;
}

function fileItems(topic: Element | undefined): string[] {
  return sections(topic)
    .filter((s) => s.tagName === 'bv-files')
    .flatMap((s) => s.children.filter((child): child is Element => child.type === 'element' && child.tagName === 'li'))
    .flatMap((li) => {
      const path = flatText(li);
      return path ? [path] : [];
    });
}

/** Items of `before` missing from `after`, compared by `key`, each named once. */
function missing<T>(before: readonly T[], after: readonly T[], key: (item: T) => string, name: (item: T) => string): string[] {
  const kept = new Set(after.map(key));
  return [...new Set(before.filter((item) => !kept.has(key(item))).map(name))];
}

/** What `after` no longer holds of `before` (both topic HTML). */
export function removedContent(before: string, after: string): RemovedContent {
  const [old, next] = [topicElement(before), topicElement(after)];
  const of = (topic: Element | undefined, tag: string) => sections(topic).filter((s) => s.tagName === tag);
  const text = (element: Element) => flatText(element);
  const individually = new Set(['bv-fact', 'bv-rule', 'bv-files']);
  return {
    facts: missing(of(old, 'bv-fact'), of(next, 'bv-fact'), text, (fact) => named(attributesOf(fact).get('subject')?.trim() || text(fact))),
    rules: missing(of(old, 'bv-rule'), of(next, 'bv-rule'), text, (rule) => named(text(rule))),
    files: missing(fileItems(old), fileItems(next), (path) => path, named),
    sections: missing(
      sections(old).filter((s) => !individually.has(s.tagName)),
      sections(next),
      sectionName,
      sectionName,
    ),
  };
}

/** How many things `removed` names. */
export function removedCount(removed: RemovedContent): number {
  return removed.facts.length + removed.rules.length + removed.files.length + removed.sections.length;
}

/** One line per removed thing (`fact access_token_ttl`, `file src/jwt.ts`), as a commit records them. */
export function removedLines(removed: RemovedContent): string[] {
  return [
    ...removed.facts.map((name) => `fact ${name}`),
    ...removed.rules.map((name) => `rule ${name}`),
    ...removed.files.map((name) => `file ${name}`),
    ...removed.sections.map((name) => `section ${name}`),
  ];
}
