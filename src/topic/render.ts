import type { Element, ElementContent } from 'hast';
import type { Nodes as MdastNodes, Parents as MdastParents, PhrasingContent, Root as MdastRoot, RootContent as MdastContent } from 'mdast';
import { toMdast } from 'hast-util-to-mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown, type Options } from 'mdast-util-to-markdown';
import { attributesOf, flatText, isBlankText } from './hast.js';
import { markdownInline } from './inline.js';
import {
  BULLETED,
  compose,
  fenced,
  fenceLanguage,
  inlineCode,
  joinBlocks,
  LABELS,
  labelFor,
  MARKDOWN_SIGNIFICANT,
  topicHeaderBlocks,
} from './render-parts.js';
import { collapseWhitespace } from './whitespace.js';

const MARKDOWN: Options = { bullet: '-', emphasis: '_', fences: true, listItemIndent: 'one', rule: '-', extensions: [gfmToMarkdown()] };

/** All text below `element`, concatenated. Iterative: safe on any depth. */
function rawText(element: Element): string {
  const parts: string[] = [];
  const stack: ElementContent[] = [...element.children].reverse();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'text') parts.push(next.value);
    else if (next.type === 'element') for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
  }
  return parts.join('');
}

/** `<li>`s written directly in bv-changes/bv-files become a real list. */
function wrapBareListItems(children: ElementContent[]): ElementContent[] {
  const result: ElementContent[] = [];
  const made = new WeakSet<Element>();
  for (const child of children) {
    const last = result[result.length - 1];
    const open = last?.type === 'element' && made.has(last) ? last : undefined;
    if (child.type === 'element' && child.tagName === 'li') {
      if (open) open.children.push(child);
      else {
        const list: Element = { type: 'element', tagName: 'ul', properties: {}, children: [child] };
        made.add(list);
        result.push(list);
      }
    } else if (!(open && isBlankText(child))) {
      result.push(child);
    }
  }
  return result;
}

const PHRASING = new Set(['text', 'emphasis', 'strong', 'inlineCode', 'break', 'link', 'image', 'delete', 'html']);
const FLOW_PARENTS = new Set(['root', 'blockquote', 'listItem']);
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);

/** http(s), mailto or relative (no scheme: a colon, if any, after the first `/`, `?` or `#`). */
function isSafeUrl(url: string): boolean {
  const colon = url.indexOf(':');
  if (colon < 0) return true;
  const end = url.search(/[/?#]/);
  if (end > -1 && end < colon) return true;
  return SAFE_SCHEMES.has(url.slice(0, colon).toLowerCase());
}

/**
 * Makes the mdast of hast content safe to serialize, whatever the hast held: phrasing directly in a
 * flow container (text straight inside <ul>, <ol>, <dl>: hast-util-to-mdast leaves it there, where
 * mdast-util-to-markdown does not escape it) is wrapped in a paragraph; raw HTML nodes (comments)
 * are dropped; links and images keep only safe schemes (a second line of defence behind sanitizing).
 */
function secureMdast(root: MdastRoot): void {
  const stack: MdastParents[] = [root];
  for (let parent = stack.pop(); parent !== undefined; parent = stack.pop()) {
    const children: MdastNodes[] = [];
    let paragraph: PhrasingContent[] | undefined;
    const flow = FLOW_PARENTS.has(parent.type);
    for (const child of parent.children as MdastNodes[]) {
      const replaced = secureNode(child);
      for (const node of replaced) {
        if (flow && PHRASING.has(node.type)) {
          if (!paragraph) {
            if (node.type === 'text' && node.value.trim() === '') continue;
            paragraph = [];
            const wrapper: MdastContent = { type: 'paragraph', children: paragraph };
            children.push(wrapper);
            stack.push(wrapper);
          }
          paragraph.push(node as PhrasingContent);
          continue;
        }
        paragraph = undefined;
        children.push(node);
        if ('children' in node) stack.push(node);
      }
    }
    (parent as { children: MdastNodes[] }).children = children;
  }
}

function secureNode(node: MdastNodes): MdastNodes[] {
  if (node.type === 'html') return [];
  if ((node.type === 'link' || node.type === 'definition') && (node.url.trim() === '' || !isSafeUrl(node.url))) {
    return node.type === 'link' ? node.children : [];
  }
  // An image without a (safe) source is its alt text.
  if (node.type === 'image' && (node.url.trim() === '' || !isSafeUrl(node.url))) return node.alt ? [{ type: 'text', value: node.alt }] : [];
  return [node];
}

const RESHAPED = new Set(['details', 'summary', 'abbr']);

/**
 * Elements hast-util-to-mdast has no markdown shape for, made into ones it has: <details> is its
 * <summary> as a bold line, then its content; <abbr title> reads "HTML (HyperText Markup Language)".
 * Depth is bounded: stored and validated topics are at most MAX_NESTING_DEPTH deep.
 */
function reshape(node: ElementContent): ElementContent {
  if (node.type !== 'element') return node;
  const children = node.children.map(reshape);
  if (node.tagName === 'summary') {
    const text = rawText({ ...node, children })
      .replace(/\s+/g, ' ')
      .trim(); // abbr titles included
    const strong: Element = { type: 'element', tagName: 'strong', properties: {}, children: [{ type: 'text', value: text }] };
    return { type: 'element', tagName: 'p', properties: {}, children: text ? [strong] : [] };
  }
  if (node.tagName === 'details') return { type: 'element', tagName: 'div', properties: {}, children };
  if (node.tagName === 'abbr') {
    const title = attributesOf(node).get('title')?.replace(/\s+/g, ' ').trim();
    const text = rawText(node).trim();
    if (title && title !== text) children.push({ type: 'text', value: ` (${title})` });
    return { type: 'element', tagName: 'span', properties: {}, children };
  }
  return { ...node, children };
}

function needsReshape(children: ElementContent[]): boolean {
  const stack: ElementContent[] = [...children];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type !== 'element') continue;
    if (RESHAPED.has(next.tagName)) return true;
    for (const child of next.children) stack.push(child);
  }
  return false;
}

/** Markdown of some hast content, split into a leading paragraph (to share the label's line) and the rest. */
function contentMarkdown(children: ElementContent[]): { lead: string; body: string } {
  // Fast path, measured: most elements (rules, facts, reasons) hold one plain sentence, and the
  // hast → mdast → markdown round trip costs ~1 ms per topic, which dominates index builds.
  if (children.every((child) => child.type === 'text')) {
    const text = collapseWhitespace(children.map((child) => (child as { value: string }).value).join('')).trim();
    if (!MARKDOWN_SIGNIFICANT.test(text)) return { lead: text, body: '' };
  }
  const shaped = needsReshape(children) ? children.map(reshape) : children;
  const mdast = toMdast({ type: 'root', children: wrapBareListItems(shaped) }) as MdastRoot;
  // to-mdast leaves inline content unwrapped (inline-only content reads as one paragraph).
  secureMdast(mdast);
  const [first, ...rest] = mdast.children;
  const serialize = (nodes: MdastContent[]) => (nodes.length > 0 ? toMarkdown({ type: 'root', children: nodes }, MARKDOWN).trim() : '');
  return first?.type === 'paragraph' ? { lead: serialize([first]), body: serialize(rest) } : { lead: '', body: serialize(mdast.children) };
}

function renderChild(child: Element): string {
  const tag = child.tagName;
  if (tag === 'bv-pattern') return `${labelFor(tag, attributesOf(child))} ${inlineCode(rawText(child).trim())}`;
  if (tag === 'bv-diagram') {
    const title = markdownInline(attributesOf(child).get('title') ?? '');
    return `**Diagram:**${title ? ` ${title}` : ''}\n\n${fenced(rawText(child), fenceLanguage(attributesOf(child).get('type')))}`;
  }
  if (LABELS.has(tag)) {
    const { lead, body } = contentMarkdown(child.children);
    return compose(labelFor(tag, attributesOf(child)), lead, body, BULLETED.has(tag));
  }
  if (tag.startsWith('bv-')) return `- ${markdownInline(flatText(child), 'line-start')}`;
  const { lead, body } = contentMarkdown([child]);
  return [lead, body].filter(Boolean).join('\n\n');
}

/** The agent-facing markdown of a topic (ByteRover's rendered_md shape, with real lists, code and tables). Never throws. */
export function renderTopicMarkdown(topic: Element): string {
  const blocks = topicHeaderBlocks(attributesOf(topic));
  for (const child of topic.children) {
    if (child.type !== 'element') continue;
    try {
      blocks.push(renderChild(child));
    } catch {
      blocks.push(`- ${markdownInline(flatText(child), 'line-start')}`);
    }
  }
  return joinBlocks(blocks);
}
