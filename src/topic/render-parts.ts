/**
 * The string-level parts of a topic's markdown rendering, shared by render.ts (the full path, over
 * hast) and the indexer's fast extractor (src/index/fast-extract.ts): no HTML or markdown library
 * here (hast is only plain objects), so a fast extraction loads none, and both paths produce the same bytes by construction.
 */
import type { Element, ElementContent, Text } from 'hast';
import { splitList } from './hast.js';
import { CONTROL, markdownInline } from './inline.js';
import { collapseWhitespace } from './whitespace.js';

export const LABELS = new Map<string, string>(
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
export const BULLETED = new Set(['bv-pattern', 'bv-rule', 'bv-fact', 'bv-decision', 'bv-bug', 'bv-fix']);
const DETAILS = new Map([
  ['bv-pattern', ['description', 'flags']],
  ['bv-fact', ['subject', 'category', 'value']],
]);

// Characters that would turn plain text into markup; text without them needs no markdown serializer.
export const MARKDOWN_SIGNIFICANT = /[\\`*_[\]<>#|~&!]|^\s*(?:[-+=]|\d+[.)])\s|\n\s*\n/;

/** Length of the longest run of `char` in `text` (a scan: no regex, no spread of a huge match list). */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) {
    run = at > 0 && text[at - 1] === char ? run + 1 : 1;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Diagram languages go into a fence's info string: a word, nothing that could end the line or the fence. */
export function fenceLanguage(value: string | undefined): string {
  return (value ?? '').replace(/[^\w+.#-]/g, '');
}

export function inlineCode(raw: string): string {
  // A code span's line endings render as spaces; written as spaces, no line can start a new block.
  const text = raw.replace(/[\r\n]+/g, ' ');
  const ticks = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/**
 * Whether code would be live markup where a renderer does not know fences: Python-Markdown without
 * its fenced_code extension reads a fence as paragraph text, so a line starting with a tag there is
 * a raw HTML block, and a blank line splits the "code" into paragraphs where any tag, link or
 * definition is live. Such code is written as an indented code block, which every renderer knows.
 */
export function needsIndentedCode(code: string): boolean {
  return /<[A-Za-z!/?]|\][ \t\r\n]*[(:[]/.test(code);
}

/** Lines as an indented code block (blank lines stay empty). */
export function indentedCode(lines: readonly string[]): string {
  return lines.map((line) => (line.trim() === '' ? '' : `    ${line}`)).join('\n');
}

/** Verbatim text (a diagram's source) as its lines: the blank lines around it and the indent all its lines share removed. */
function verbatimLines(text: string): string[] {
  const lines = text
    .replace(/^\s*\n/, '')
    .trimEnd()
    .split('\n');
  let indent = Infinity;
  for (const line of lines) if (line.trim() !== '') indent = Math.min(indent, /^[ \t]*/.exec(line)?.[0].length ?? 0);
  return lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
}

export function fenced(text: string, language: string): string {
  const trimmed = verbatimLines(text);
  const body = trimmed.join('\n');
  if (body.trim() !== '' && needsIndentedCode(body)) return indentedCode(trimmed);
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return `${fence}${language}\n${body}\n${fence}`;
}

const PLAIN_WORD = /^[A-Za-z0-9][\w.-]{0,63}$/;

/** The label of a bv-* element (`**Rule** [must] (r1):`), from its tag and attributes (HTML names). */
export function labelFor(tag: string, attributes: ReadonlyMap<string, string>): string {
  const name = LABELS.get(tag) ?? tag;
  const severity = markdownInline(attributes.get('severity') ?? '');
  const id = markdownInline(attributes.get('id') ?? '');
  const details = (DETAILS.get(tag) ?? [])
    .filter((key) => attributes.has(key))
    .map((key) => `${key}=${markdownInline(attributes.get(key) ?? '')}`);
  // `[must] (r1)` is a link in showdown (it allows a space before the destination): harmless when
  // both are plain words (a relative link), so ByteRover's `[must] (r1)` stays as written; with
  // anything else in either (a scheme, markup, a nested `[`) the parenthesis is written `\(`, which
  // no renderer reads as a destination.
  const after = id || details.join(', ');
  const open = severity && !(PLAIN_WORD.test(severity) && PLAIN_WORD.test(after)) ? '\\(' : '(';
  const parts = [
    severity ? `[${severity}]` : '',
    id ? `${open}${id})` : '',
    details.length > 0 ? `${id ? '(' : open}${details.join(', ')})` : '',
  ].filter(Boolean);
  const label = parts.length > 0 ? `**${name}** ${parts.join(' ')}:` : `**${name}:**`;
  return BULLETED.has(tag) ? `- ${label}` : label;
}

/** labelFor as plain text, for excerpts: `Rule [must] (r1):`, `Fact (subject=rate_limit):`; values as written. */
export function plainLabel(tag: string, attributes: ReadonlyMap<string, string>): string {
  const name = LABELS.get(tag) ?? tag;
  const severity = attributes.get('severity') ?? '';
  const id = attributes.get('id') ?? '';
  const details = (DETAILS.get(tag) ?? []).filter((key) => attributes.has(key)).map((key) => `${key}=${attributes.get(key) ?? ''}`);
  const parts = [severity ? `[${severity}]` : '', id ? `(${id})` : '', details.length > 0 ? `(${details.join(', ')})` : ''].filter(Boolean);
  return `${name}${parts.length > 0 ? ` ${parts.join(' ')}` : ''}:`;
}

/**
 * A label with its content. A bulleted one is a list item (`- ` and two spaces before each further
 * line), or, when its body has a line indented four spaces (an indented code block, or code that
 * looks like one), `-   ` and four: the Markdown.pl family counts a list item's content from four
 * spaces, so only then is such code still code there, and CommonMark reads the same item.
 */
export function compose(label: string, lead: string, body: string, bulleted: boolean): string {
  const text = [lead ? `${label} ${lead}` : label, body].filter(Boolean).join('\n\n');
  if (!bulleted) return text;
  if (!/(?:^|\n) {4}/.test(body)) return text.replace(/\n(?=.)/g, '\n  ');
  return text.replace(/^- /, '-   ').replace(/\n(?=.)/g, '\n    ');
}

/** The blocks every rendering starts with: title, summary, tags/keywords/related. */
export function topicHeaderBlocks(attributes: ReadonlyMap<string, string>): string[] {
  const list = (name: string) =>
    splitList(attributes.get(name))
      .map((value) => markdownInline(value))
      .filter(Boolean)
      .join(', ');
  const summary = markdownInline(attributes.get('summary') ?? '', 'line-start');
  return [
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
}

/** An empty HTML comment: what ends a list before a block that would otherwise continue it (every renderer drops it). */
export const LIST_END = '<!---->';

/** A line that starts a list item at the left margin. */
const LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/**
 * Whether a block ends with a list at the left margin that is not the block itself (a bulleted
 * element is one item, and the next one continues its list on purpose): `**Files:**` and its items.
 */
function endsWithList(block: string): boolean {
  const lines = block.split('\n');
  for (let i = lines.length - 1; i > 0; i--) {
    const line = lines[i]!;
    if (line === '' || line.startsWith(' ') || line.startsWith('\t')) continue;
    return LIST_ITEM.test(line);
  }
  return false;
}

/**
 * A block that starts with a list item right after a block that ends with a list (a rule after
 * `<bv-files>`) would be one more item of that list in every renderer; an empty comment between
 * them ends the list.
 */
function separated(blocks: readonly string[]): string[] {
  return blocks.map((block, i) => (i > 0 && LIST_ITEM.test(block) && endsWithList(blocks[i - 1]!) ? `${LIST_END}\n\n${block}` : block));
}

/**
 * `<li>`s of `<bv-files>` that are plain text, their path (the whole text, or its first word when
 * that looks like a path: a `/` or `.` in it) as code, as the element's spec asks writers to put
 * it; a list item with any markup is left as written. Both renderings (render.ts, fast-extract.ts) use it.
 */
export function filesAsCode(children: readonly ElementContent[]): ElementContent[] {
  return children.map((child) => {
    if (child.type !== 'element') return child;
    if (child.tagName === 'ul' || child.tagName === 'ol') return { ...child, children: filesAsCode(child.children) };
    if (child.tagName !== 'li' || child.children.length === 0 || !child.children.every((c) => c.type === 'text')) return child;
    const text = collapseWhitespace(child.children.map((c) => (c as Text).value).join('')).trim();
    const space = text.indexOf(' ');
    const path = space < 0 ? text : text.slice(0, space);
    if (path === '' || (space >= 0 && !/[/.]/.test(path))) return child;
    const code: Element = { type: 'element', tagName: 'code', properties: {}, children: [{ type: 'text', value: path }] };
    return { ...child, children: space < 0 ? [code] : [code, { type: 'text', value: text.slice(space) }] };
  });
}

/**
 * The blocks joined into the final markdown; whatever they held, no control character leaves as it
 * was, and a line or paragraph separator (U+2028, U+2029) is a space: JavaScript renderers' regular
 * expressions (showdown's) take it for a line break, so a tag after one in code would start a line there.
 */
export function joinBlocks(blocks: readonly string[]): string {
  return (separated(blocks.filter((block) => block.trim() !== '')).join('\n\n') + '\n')
    .replace(CONTROL, '\uFFFD')
    .replace(/[\u2028\u2029]/g, ' ');
}
