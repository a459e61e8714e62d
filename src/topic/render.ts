import type { Element, ElementContent } from 'hast';
import type { Nodes as MdastNodes, Parents as MdastParents, PhrasingContent, Root as MdastRoot, RootContent as MdastContent } from 'mdast';
import { toMdast } from 'hast-util-to-mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown, type Options } from 'mdast-util-to-markdown';
import { attributesOf, flatText, isBlankText, splitList } from './hast.js';
import { CONTROL, markdownInline } from './inline.js';

const MARKDOWN: Options = { bullet: '-', emphasis: '_', fences: true, listItemIndent: 'one', rule: '-', extensions: [gfmToMarkdown()] };

const LABELS = new Map<string, string>(
  Object.entries({
    'bv-reason': 'Reason',
    'bv-task': 'Task',
    'bv-changes': 'Changes',
    'bv-files': 'Files',
    'bv-flow': 'Flow',
    'bv-timestamp': 'Timestamp',
    'bv-author': 'Author',
    'bv-pattern': 'Pattern',
    'bv-structure': 'Structure',
    'bv-dependencies': 'Dependencies',
    'bv-highlights': 'Highlights',
    'bv-rule': 'Rule',
    'bv-examples': 'Examples',
    'bv-diagram': 'Diagram',
    'bv-fact': 'Fact',
    'bv-decision': 'Decision',
    'bv-bug': 'Bug',
    'bv-fix': 'Fix',
  }),
);
// Repeatable elements render as list items, as in ByteRover's rendered_md.
const BULLETED = new Set(['bv-pattern', 'bv-rule', 'bv-fact', 'bv-decision', 'bv-bug', 'bv-fix']);
const DETAILS = new Map([
  ['bv-pattern', ['description', 'flags']],
  ['bv-fact', ['subject', 'category', 'value']],
]);

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

/** Length of the longest run of `char` in `text` (a scan: no regex, no spread of a huge match list). */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) {
    run = at > 0 && text[at - 1] === char ? run + 1 : 1;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Diagram languages go into a fence's info string: a word, nothing that could end the line or the fence. */
function fenceLanguage(value: string | undefined): string {
  return (value ?? '').replace(/[^\w+.#-]/g, '');
}

function inlineCode(raw: string): string {
  // A code span's line endings render as spaces; written as spaces, no line can start a new block.
  const text = raw.replace(/[\r\n]+/g, ' ');
  const ticks = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

function fenced(text: string, language: string): string {
  const lines = text
    .replace(/^\s*\n/, '')
    .trimEnd()
    .split('\n');
  let indent = Infinity;
  for (const line of lines) if (line.trim() !== '') indent = Math.min(indent, /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const body = lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return `${fence}${language}\n${body}\n${fence}`;
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

// Characters that would turn plain text into markup; text without them needs no markdown serializer.
const MARKDOWN_SIGNIFICANT = /[\\`*_[\]<>#|~&!]|^\s*(?:[-+=]|\d+[.)])\s|\n\s*\n/;

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
    const text = children
      .map((child) => (child as { value: string }).value)
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
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

function labelFor(element: Element): string {
  const tag = element.tagName;
  const name = LABELS.get(tag) ?? tag;
  const attributes = attributesOf(element);
  const severity = markdownInline(attributes.get('severity') ?? '');
  const id = markdownInline(attributes.get('id') ?? '');
  const details = (DETAILS.get(tag) ?? [])
    .filter((key) => attributes.has(key))
    .map((key) => `${key}=${markdownInline(attributes.get(key) ?? '')}`);
  const parts = [severity ? `[${severity}]` : '', id ? `(${id})` : '', details.length > 0 ? `(${details.join(', ')})` : ''].filter(Boolean);
  const label = parts.length > 0 ? `**${name}** ${parts.join(' ')}:` : `**${name}:**`;
  return BULLETED.has(tag) ? `- ${label}` : label;
}

function compose(label: string, lead: string, body: string, bulleted: boolean): string {
  const text = [lead ? `${label} ${lead}` : label, body].filter(Boolean).join('\n\n');
  return bulleted ? text.replace(/\n(?=.)/g, '\n  ') : text;
}

function renderChild(child: Element): string {
  const tag = child.tagName;
  if (tag === 'bv-pattern') return `${labelFor(child)} ${inlineCode(rawText(child).trim())}`;
  if (tag === 'bv-diagram') {
    const title = markdownInline(attributesOf(child).get('title') ?? '');
    return `**Diagram:**${title ? ` ${title}` : ''}\n\n${fenced(rawText(child), fenceLanguage(attributesOf(child).get('type')))}`;
  }
  if (LABELS.has(tag)) {
    const { lead, body } = contentMarkdown(child.children);
    return compose(labelFor(child), lead, body, BULLETED.has(tag));
  }
  if (tag.startsWith('bv-')) return `- ${markdownInline(flatText(child), 'line-start')}`;
  const { lead, body } = contentMarkdown([child]);
  return [lead, body].filter(Boolean).join('\n\n');
}

/** The agent-facing markdown of a topic (ByteRover's rendered_md shape, with real lists, code and tables). Never throws. */
export function renderTopicMarkdown(topic: Element): string {
  const attributes = attributesOf(topic);
  const list = (name: string) =>
    splitList(attributes.get(name))
      .map((value) => markdownInline(value))
      .filter(Boolean)
      .join(', ');
  const summary = markdownInline(attributes.get('summary') ?? '', 'line-start');
  const blocks = [
    `# ${markdownInline(attributes.get('title') ?? '', 'heading') || markdownInline(attributes.get('path') ?? '', 'heading') || 'Untitled topic'}`,
    summary ? `> ${summary}` : '',
    [
      ['Tags', list('tags')],
      ['Keywords', list('keywords')],
      ['Related', list('related')],
    ]
      .filter(([, value]) => value)
      .map(([label, value]) => `${label}: ${value}`)
      .join('\n'),
  ];
  for (const child of topic.children) {
    if (child.type !== 'element') continue;
    try {
      blocks.push(renderChild(child));
    } catch {
      blocks.push(`- ${markdownInline(flatText(child), 'line-start')}`);
    }
  }
  // Whatever the content held, no control character (a terminal escape) leaves as it was.
  return (blocks.filter((block) => block.trim() !== '').join('\n\n') + '\n').replace(CONTROL, '\uFFFD');
}
