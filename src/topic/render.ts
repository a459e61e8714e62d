import type { Element, ElementContent } from 'hast';
import type {
  Code,
  Image,
  Link,
  ListItem,
  Nodes as MdastNodes,
  Parents as MdastParents,
  PhrasingContent,
  Root as MdastRoot,
  RootContent as MdastContent,
  Text,
} from 'mdast';
import { toMdast } from 'hast-util-to-mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { gfmTable } from 'micromark-extension-gfm-table';
import { defaultHandlers, toMarkdown, type Info, type Options, type SafeConfig, type State } from 'mdast-util-to-markdown';
import { attributesOf, flatText, isBlankText } from './hast.js';
import { markdownDestination, markdownInline, startsCharacterReference } from './inline.js';
import {
  BULLETED,
  compose,
  fenced,
  fenceLanguage,
  filesAsCode,
  indentedCode,
  inlineCode,
  joinBlocks,
  LABELS,
  labelFor,
  LIST_END,
  MARKDOWN_SIGNIFICANT,
  needsIndentedCode,
  topicHeaderBlocks,
} from './render-parts.js';
import { collapseWhitespace } from './whitespace.js';

/**
 * Text as the serializer escapes it, except that a `<` that could open a tag is written `&lt;` and
 * an `&` that would start a character reference `&amp;` (a backslash before them is an escape in
 * CommonMark only: showdown and Python-Markdown print the backslash and then read the tag). The
 * serializer finds those positions (its own rules for `<` and `&`) and writes them as numeric
 * references, which are then spelled the readable way; an `&` it escaped that starts no reference
 * (`R&D`) is written as it is. Applies only to what `safe` made of this one string: a code span or
 * code block, which keeps its characters, never passes here.
 */
function entitySafe(state: State, value: string | null | undefined, config: SafeConfig): string {
  const written = state.safe(value, { ...config, encode: [...(config.encode ?? []), '<', '&'] });
  return written.replace(/&#x(3C|26);/g, (reference: string, code: string, at: number) => {
    if (code === '3C') return '&lt;';
    return startsCharacterReference(`&${written.slice(at + reference.length, at + reference.length + 35)}`, 0) ? '&amp;' : '&';
  });
}

function text(node: Text, parent: MdastParents | undefined, state: State, info: Info): string {
  const siblings: MdastNodes[] = parent ? parent.children : [];
  const index = state.indexStack[state.indexStack.length - 1] ?? -1;
  const written = entitySafe(state, node.value, { ...info, beforeNode: siblings[index - 1], afterNode: siblings[index + 1] });
  // In a link's text, marked reads the label again after removing its escapes, so `!\[x\](data:…)`
  // there becomes an image: a `(` right after a `]` is escaped even when the `]` is.
  return state.stack.includes('label') ? written.replaceAll('](', ']\\(') : written;
}

/**
 * Links and images as `[label](destination)`: secureNode has already made the destination
 * (markdownDestination) need no escape and dropped the title, so both are written as they are. An
 * http(s) link whose text is its URL stays an autolink (`<https://…>`), as the serializer writes it.
 */
function isAutolink(node: Link): boolean {
  const only = node.children.length === 1 ? node.children[0] : undefined;
  return only?.type === 'text' && only.value === node.url && /^https?:\/\/./i.test(node.url);
}

function link(node: Link, _parent: MdastParents | undefined, state: State, info: Info): string {
  const tracker = state.createTracker(info);
  if (isAutolink(node)) return tracker.move(`<${node.url}>`);
  const exit = state.enter('link');
  const labelExit = state.enter('label');
  let value = tracker.move('[');
  const label = state.containerPhrasing(node, { before: value, after: '](', ...tracker.current() });
  value += tracker.move(label);
  labelExit();
  // At the start of a line a label with a `]:` the serializer cannot escape (in code) would make
  // `[…]: …` a definition; an empty title prevents that (as mdast-util-to-markdown does).
  const last = info.before.charAt(info.before.length - 1);
  let close = ')';
  if (last === '\n' || last === '\r') {
    let at = 0;
    while (at < label.length && label.charCodeAt(at) !== 93 /* ] */) at += label.charCodeAt(at) === 92 /* \ */ ? 2 : 1;
    if (label.charCodeAt(at + 1) === 58 /* : */) close = ' "")';
  }
  value += tracker.move(`](${node.url}${close}`);
  exit();
  return value;
}

link.peek = (node: Link) => (isAutolink(node) ? '<' : '[');

function image(node: Image, _parent: MdastParents | undefined, state: State, info: Info): string {
  const tracker = state.createTracker(info);
  const exit = state.enter('image');
  const labelExit = state.enter('label');
  let value = tracker.move('![');
  value += tracker.move(entitySafe(state, node.alt, { before: value, after: ']', ...tracker.current() }));
  labelExit();
  value += tracker.move(`](${node.url})`);
  exit();
  return value;
}
image.peek = () => '!';

/** A code block: fenced, or indented when a renderer without fences would read markup in it (needsIndentedCode). */
function code(node: Code, parent: MdastParents | undefined, state: State, info: Info): string {
  const lines = node.value
    .replace(/^(?:[ \t]*\r?\n)+/, '')
    .trimEnd()
    .split(/\r?\n/);
  if (!isIndented(node)) return defaultHandlers.code(node, parent, state, info);
  const exit = state.enter('codeIndented');
  const value = indentedCode(lines);
  exit();
  // After a list (or another such block) indented lines would continue it: an empty comment ends
  // the list, as mdast-util-to-markdown does for its own indented code.
  const index = state.indexStack[state.indexStack.length - 1] ?? 0;
  const previous = parent?.children[index - 1];
  return previous?.type === 'list' || (previous?.type === 'code' && isIndented(previous)) ? `${LIST_END}\n\n${value}` : value;
}

function isIndented(node: Code): boolean {
  return node.value.trim() !== '' && needsIndentedCode(node.value);
}

/** Whether some code below `node` is written as an indented code block. Iterative. */
function holdsIndentedCode(node: ListItem): boolean {
  const stack: MdastNodes[] = [...node.children];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'code' && isIndented(next)) return true;
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
  return false;
}

/**
 * A list item holding an indented code block is written with its content four columns in (`-   `,
 * `1.  `): the Markdown.pl family counts a list item's content from four spaces, so only then is
 * the code still code there (else `<script>` in it would be a raw HTML block); CommonMark reads the same.
 */
function listItem(node: ListItem, parent: MdastParents | undefined, state: State, info: Info): string {
  if (!holdsIndentedCode(node)) return defaultHandlers.listItem(node, parent, state, info);
  const indent = state.options.listItemIndent;
  state.options.listItemIndent = 'tab';
  try {
    return defaultHandlers.listItem(node, parent, state, info);
  } finally {
    state.options.listItemIndent = indent;
  }
}

const MARKDOWN: Options = {
  bullet: '-',
  emphasis: '_',
  fences: true,
  listItemIndent: 'one',
  rule: '-',
  extensions: [gfmToMarkdown()],
  handlers: { text, link, image, code, listItem },
};

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
  // Raw HTML, and definitions (to-mdast makes none; a reference to one would link text elsewhere).
  if (node.type === 'html' || node.type === 'definition') return [];
  if (node.type === 'link') {
    if (node.url.trim() === '' || !isSafeUrl(node.url)) return node.children;
    // Titles are dropped: a tooltip agents never see, which each renderer delimits its own way.
    return [{ ...node, url: markdownDestination(node.url), title: null }];
  }
  if (node.type === 'image') {
    // An image without a (safe) source is its alt text.
    if (node.url.trim() === '' || !isSafeUrl(node.url)) return node.alt ? [{ type: 'text', value: node.alt }] : [];
    return [{ ...node, url: markdownDestination(node.url), title: null }];
  }
  // A fence's info string: a word, as for diagrams (a class like `language-x" onmouseover=…` is not one).
  if (node.type === 'code') return [{ ...node, lang: fenceLanguage(node.lang ?? '') || null, meta: null }];
  return [node];
}

const RESHAPED = new Set(['details', 'summary', 'abbr', 'caption']);

/**
 * Elements hast-util-to-mdast has no markdown shape for, made into ones it has: <details> is its
 * <summary> as a bold line, then its content; <abbr title> reads "HTML (HyperText Markup Language)";
 * a table's <caption> is the paragraph before it (hast-util-to-mdast drops it).
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
  if (node.tagName === 'table') {
    // Markdown tables have no caption: it is the paragraph before the table.
    const caption = children.find((c): c is Element => c.type === 'element' && c.tagName === 'caption');
    if (caption) {
      const table: Element = { ...node, children: children.filter((c) => c !== caption) };
      return { type: 'element', tagName: 'div', properties: {}, children: [{ ...caption, tagName: 'div', properties: {} }, table] };
    }
  }
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
  // Not trimmed at the start: an indented code block starts with spaces.
  const serialize = (nodes: MdastContent[]) =>
    nodes.length > 0 ? toMarkdown({ type: 'root', children: nodes }, MARKDOWN).replace(/^\n+/, '').trimEnd() : '';
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
    const { lead, body } = contentMarkdown(tag === 'bv-files' ? filesAsCode(child.children) : child.children);
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
      const block = renderChild(child);
      // A block that starts with indented code would continue a list before it.
      blocks.push(block.startsWith('    ') ? `${LIST_END}\n\n${block}` : block);
    } catch {
      blocks.push(`- ${markdownInline(flatText(child), 'line-start')}`);
    }
  }
  return joinBlocks(blocks);
}

/**
 * Markdown written elsewhere (a model's answer) made as inert as a rendered topic: parsed
 * (CommonMark and GFM tables), raw HTML kept as the text it was written as (`Array<T>` stays
 * readable, and its `<` is written `&lt;`), references to definitions made plain text (no
 * definition is kept), then secured and written like a topic's content (safe URLs, encoded
 * destinations, entities where the Markdown.pl family needs them). Never throws.
 */
export function inertMarkdown(markdown: string): string {
  try {
    const tree = fromMarkdown(markdown, { extensions: [gfmTable()], mdastExtensions: [gfmFromMarkdown()] });
    const stack: MdastParents[] = [tree];
    for (let parent = stack.pop(); parent !== undefined; parent = stack.pop()) {
      const children: MdastNodes[] = [];
      for (const child of parent.children as MdastNodes[]) {
        if (child.type === 'html') children.push({ type: 'text', value: child.value });
        else if (child.type === 'linkReference') children.push(...child.children);
        else if (child.type === 'imageReference') children.push({ type: 'text', value: child.alt ?? '' });
        else children.push(child);
      }
      (parent as { children: MdastNodes[] }).children = children;
      for (const child of children) if ('children' in child) stack.push(child);
    }
    secureMdast(tree);
    // U+2028/2029 as spaces, as joinBlocks writes them (showdown takes them for line breaks).
    return toMarkdown(tree, MARKDOWN)
      .replace(/^\n+/, '')
      .trimEnd()
      .replace(/[\u2028\u2029]/g, ' ');
  } catch {
    return markdownInline(markdown);
  }
}
