import type { Element, ElementContent } from 'hast';
import type { PhrasingContent, Root as MdastRoot, RootContent as MdastContent } from 'mdast';
import { toMdast } from 'hast-util-to-mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown, type Options } from 'mdast-util-to-markdown';
import { attributesOf, flatText, isBlankText, splitList } from './hast.js';

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

function rawText(element: Element): string {
  return element.children.map((child) => (child.type === 'text' ? child.value : child.type === 'element' ? rawText(child) : '')).join('');
}

function longestRun(text: string, char: string): number {
  return Math.max(0, ...(text.match(new RegExp(`\\${char}+`, 'g')) ?? []).map((run) => run.length));
}

function inlineCode(text: string): string {
  const ticks = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

function fenced(text: string, language: string): string {
  const lines = text
    .replace(/^\s*\n/, '')
    .trimEnd()
    .split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0));
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

// Characters that would turn plain text into markup; text without them needs no markdown serializer.
const MARKDOWN_SIGNIFICANT = /[\\`*_[\]<>#|~&!]|^\s*(?:[-+=]|\d+[.)])\s|\n\s*\n/;

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
  const mdast = toMdast({ type: 'root', children: wrapBareListItems(children) }) as MdastRoot;
  // to-mdast leaves inline-only content unwrapped; it reads as one paragraph.
  if (mdast.children.every((node) => PHRASING.has(node.type))) {
    mdast.children = [{ type: 'paragraph', children: mdast.children as PhrasingContent[] }];
  }
  const [first, ...rest] = mdast.children;
  const serialize = (nodes: MdastContent[]) => (nodes.length > 0 ? toMarkdown({ type: 'root', children: nodes }, MARKDOWN).trim() : '');
  return first?.type === 'paragraph' ? { lead: serialize([first]), body: serialize(rest) } : { lead: '', body: serialize(mdast.children) };
}

function labelFor(element: Element): string {
  const tag = element.tagName;
  const name = LABELS.get(tag) ?? tag;
  const attributes = attributesOf(element);
  const severity = attributes.get('severity');
  const id = attributes.get('id');
  const details = (DETAILS.get(tag) ?? []).filter((key) => attributes.has(key)).map((key) => `${key}=${attributes.get(key)}`);
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
    const title = attributesOf(child).get('title');
    return `**Diagram:**${title ? ` ${title}` : ''}\n\n${fenced(rawText(child), attributesOf(child).get('type') ?? '')}`;
  }
  if (LABELS.has(tag)) {
    const { lead, body } = contentMarkdown(child.children);
    return compose(labelFor(child), lead, body, BULLETED.has(tag));
  }
  if (tag.startsWith('bv-')) return `- ${flatText(child)}`;
  const { lead, body } = contentMarkdown([child]);
  return [lead, body].filter(Boolean).join('\n\n');
}

/** The agent-facing markdown of a topic (ByteRover's rendered_md shape, with real lists, code and tables). Never throws. */
export function renderTopicMarkdown(topic: Element): string {
  const attributes = attributesOf(topic);
  const list = (name: string) => splitList(attributes.get(name)).join(', ');
  const blocks = [
    `# ${attributes.get('title')?.trim() || attributes.get('path') || 'Untitled topic'}`,
    attributes.get('summary')?.trim() ? `> ${attributes.get('summary')?.trim()}` : '',
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
      blocks.push(`- ${flatText(child)}`);
    }
  }
  return blocks.filter((block) => block.trim() !== '').join('\n\n') + '\n';
}
