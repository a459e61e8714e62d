import type { Element, ElementContent, Properties } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { attributeName, attributesOf, isBlankText, splitList } from './hast.js';
import { normalizeTopicPath } from './path.js';
import { BV_GLOBAL_ATTRIBUTES, isDataAttribute } from './registry.js';

const TOPIC_ATTRIBUTES = ['path', 'title', 'summary', 'tags', 'keywords', 'related'] as const;
const LISTS = new Set(['tags', 'keywords', 'related']);
const SERIALIZE = { characterReferences: { useNamedReferences: true } } as const;
// The parser drops one newline right after these start tags, so a leading newline must be doubled to survive.
const LEADING_NEWLINE_EATERS = new Set(['pre', 'textarea', 'listing']);

function topicAttribute(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (name === 'path') {
    const result = normalizeTopicPath(value);
    return result.ok ? result.path : value.trim();
  }
  const normalized = LISTS.has(name) ? splitList(value).join(',') : value.trim();
  return normalized === '' && name !== 'title' ? undefined : normalized;
}

function canonicalNode(node: ElementContent): ElementContent {
  if (node.type !== 'element') return node;
  const properties: Properties = {};
  const keys = Object.keys(node.properties).sort((a, b) => (attributeName(a) < attributeName(b) ? -1 : 1));
  for (const key of keys) properties[key] = node.properties[key];
  const children = node.children.filter((child) => child.type !== 'comment').map(canonicalNode);
  const first = children[0];
  if (LEADING_NEWLINE_EATERS.has(node.tagName) && first?.type === 'text' && first.value.startsWith('\n')) {
    children[0] = { ...first, value: `\n${first.value}` };
  }
  return { ...node, properties, children };
}

/**
 * One byte form per content: fixed bv-topic attribute order, sorted attributes elsewhere,
 * one top-level child per line. Content inside a child is serialized as is (pre and diagram text untouched).
 */
export function serializeCanonical(topic: Element): string {
  const attributes = attributesOf(topic);
  const properties: Properties = {};
  for (const name of TOPIC_ATTRIBUTES) {
    const value = topicAttribute(name, attributes.get(name));
    if (value !== undefined) properties[name] = value;
  }
  // Descriptive attributes (data-*, class, lang, dir) follow, sorted; stamped dates are dropped.
  const extra = [...attributes.keys()].filter((name) => isDataAttribute(name) || BV_GLOBAL_ATTRIBUTES.includes(name)).sort();
  for (const name of extra) properties[name] = attributes.get(name) ?? '';
  const open = toHtml({ type: 'element', tagName: 'bv-topic', properties, children: [] }, SERIALIZE).replace(/<\/bv-topic>$/, '');
  const lines = topic.children
    .filter((child) => !isBlankText(child) && child.type !== 'comment')
    .map((child) => `  ${toHtml(canonicalNode(child), SERIALIZE).trim()}\n`);
  return `${open}\n${lines.join('')}</bv-topic>\n`;
}
