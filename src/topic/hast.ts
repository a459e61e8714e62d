import type { Element, ElementContent, Nodes, Properties, RootContent } from 'hast';
import { find, html } from 'property-information';
import { collapseWhitespace } from './whitespace.js';

export function isBvTag(tagName: string): boolean {
  return tagName.startsWith('bv-');
}

export function isBlankText(node: Nodes | RootContent): boolean {
  return node.type === 'text' && node.value.trim() === '';
}

/** `find(html, property)`, remembered (a first query extracts every topic: ~10 lookups each); bounded. */
const infos = new Map<string, ReturnType<typeof find>>();
function propertyInfo(property: string): ReturnType<typeof find> {
  let info = infos.get(property);
  if (info === undefined) {
    if (infos.size >= 4096) infos.clear();
    infos.set(property, (info = find(html, property)));
  }
  return info;
}

/** The HTML attribute name of a hast property name (`onClick` → `onclick`, `className` → `class`). */
export function attributeName(property: string): string {
  return propertyInfo(property).attribute;
}

function attributeValue(property: string, value: Properties[string]): string | undefined {
  if (value === null || value === undefined || value === false) return undefined;
  if (value === true) return '';
  if (Array.isArray(value)) return value.join(propertyInfo(property).commaSeparated ? ',' : ' ');
  return String(value);
}

/** An element's attributes as HTML names → string values, in source order. */
export function attributesOf(element: Element): Map<string, string> {
  const result = new Map<string, string>();
  for (const [property, raw] of Object.entries(element.properties)) {
    const value = attributeValue(property, raw);
    if (value !== undefined) result.set(attributeName(property), value);
  }
  return result;
}

/** Every element below (and including) `node`, depth first in document order. Iterative: safe on any depth. */
export function* elementsIn(node: Nodes): Generator<Element> {
  const stack: Nodes[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'element') yield next;
    if ('children' in next) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
  }
}

/** Text with a space at every element boundary, whitespace collapsed. Iterative: safe on any depth. */
export function flatText(node: Nodes): string {
  const parts: string[] = [];
  const stack: Array<Nodes | ' '> = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next === ' ' || next.type === 'text') parts.push(next === ' ' ? ' ' : next.value);
    else if (next.type === 'element' || next.type === 'root') {
      stack.push(' ');
      for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
      stack.push(' ');
    }
  }
  return collapseWhitespace(parts.join('')).trim();
}

/** All text below `element` as written (line breaks kept), concatenated. Iterative: safe on any depth. */
export function rawText(element: Element): string {
  const parts: string[] = [];
  const stack: ElementContent[] = [...element.children].reverse();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'text') parts.push(next.value);
    else if (next.type === 'element') for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
  }
  return parts.join('');
}

/** Deepest element nesting under `node`, computed without recursion. */
export function nestingDepth(node: Nodes): number {
  let max = 0;
  const stack: Array<[Nodes, number]> = [[node, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, depth] = next;
    max = Math.max(max, depth);
    if ('children' in current) for (const child of current.children) stack.push([child, child.type === 'element' ? depth + 1 : depth]);
  }
  return max;
}

/** Splits a comma-separated attribute: trimmed, empties and exact duplicates dropped, order kept. */
export function splitList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return [
    ...new Set(
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    ),
  ];
}

/** Where a parsed node starts (1-based line and column of the parsed text), or nothing for a node made in code. */
export function startOf(node: Nodes | RootContent): { line?: number; column?: number } {
  const start = node.position?.start;
  return start ? { line: start.line, column: start.column } : {};
}
