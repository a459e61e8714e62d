import type { Element, ElementContent, Properties, Text } from 'hast';
import type { Definition, Heading, List, ListItem, Nodes, Paragraph, PhrasingContent, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { parseDocument } from 'yaml';
import { serializeCanonical } from '../topic/canonical.js';
import { splitList } from '../topic/hast.js';
import { normalizeTopicPath } from '../topic/path.js';
import { elementSpec } from '../topic/registry.js';
import type { TopicErrorKind, TopicPath } from '../topic/types.js';
import { MAX_NESTING_DEPTH, MAX_TOPIC_BYTES, validateTopicHtml } from '../topic/validate.js';

/**
 * ByteRover's legacy Markdown topics (YAML frontmatter + `## Reason`, `## Raw Concept`, `## Narrative`,
 * `## Facts`, snippets; spec §1.6) converted to one `<bv-topic>` document. Pure: no fs.
 *
 * Known sections map to their bv-* elements; everything else (snippets, unknown `## X` sections,
 * unknown frontmatter fields, blocks a field cannot hold) is kept in a `<bv-highlights>` (or the
 * element an orphan heading names), so no text is lost. Each such decision is reported in `notes`.
 */

export type LegacyMarkdownErrorKind = 'invalid-frontmatter' | 'invalid-encoding' | TopicErrorKind;

export type LegacyMarkdownResult =
  { ok: true; path: TopicPath; html: string; notes: string[] } | { ok: false; kind: LegacyMarkdownErrorKind; message: string };

/** Frontmatter fields ByteRover scores; brv has no ranking sidecar. */
const DROPPED_FRONTMATTER_FIELDS: readonly string[] = ['importance', 'recency', 'maturity', 'accessCount', 'updateCount'];

const FACT_CATEGORIES = new Set(elementSpec('bv-fact')?.attributes.find((a) => a.name === 'category')?.values ?? []);
const DIAGRAM_TYPES = new Set(elementSpec('bv-diagram')?.attributes.find((a) => a.name === 'type')?.values ?? []);
const SAFE_SCHEMES = ['http', 'https', 'mailto'];
// C0 controls other than tab, newline, carriage return; DEL. NUL is the usual sign of a binary file.
const BINARY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

type Failure = { ok: false; kind: LegacyMarkdownErrorKind; message: string };
const fail = (kind: LegacyMarkdownErrorKind, message: string): Failure => ({ ok: false, kind, message });

// ---------------------------------------------------------------------------------------------
// hast building: the topic is a tree of elements and text nodes (no markup is ever written as text),
// serialised by the canonical serializer, then the whole document goes through the validator.

function text(value: string): Text {
  return { type: 'text', value };
}

/** An element; undefined attributes are left out, `class` is hast's `className`. */
function el(tagName: string, attributes: Record<string, string | undefined>, children: ElementContent[]): Element {
  const properties: Properties = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (key === 'class') properties.className = value.split(' ');
    else properties[key] = value;
  }
  return { type: 'element', tagName, properties, children };
}

/** Whether nodes serialise to nothing (what an empty string was when this built HTML text). */
function isEmpty(nodes: readonly ElementContent[]): boolean {
  return nodes.every((node) => node.type === 'text' && node.value === '');
}

/** Same rule as the sanitizer (src/topic/safety.ts): a colon before any `/`, `?`, `#` starts a scheme. */
function safeUrl(url: string): boolean {
  const colon = url.indexOf(':');
  if (colon < 0) return true;
  for (const stop of ['/', '?', '#']) {
    const at = url.indexOf(stop);
    if (at > -1 && at < colon) return true;
  }
  return SAFE_SCHEMES.includes(url.slice(0, colon));
}

/** Plain text of an mdast node (alt text of images included). */
function textOf(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if (node.type === 'break') return '\n';
  if ('children' in node) return (node.children as Nodes[]).map(textOf).join('');
  return '';
}

/** The cells of a pipe-table row: outer pipes dropped, `\\|` is not a separator. */
function cells(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function depthOf(root: Root): number {
  let max = 0;
  const stack: Array<[Nodes, number]> = [[root, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    max = Math.max(max, depth);
    if ('children' in node) for (const child of node.children as Nodes[]) stack.push([child, depth + 1]);
  }
  return max;
}

/**
 * The most container markers (`>`, `-`, `*`, `+`, `1.`, `1)`) that open any one line. Checked before
 * parsing: a line of 262,000 `>` nests as many block quotes, which the parser handles in quadratic time.
 */
function deepestLineNesting(text: string): number {
  let deepest = 0;
  for (let at = 0; at < text.length;) {
    let depth = 0;
    for (;;) {
      let i = at;
      while (i < at + 3 && text[i] === ' ') i++;
      const char = text[i];
      if (char === '>') at = i + 1;
      else if ((char === '-' || char === '*' || char === '+') && /[ \t\n]/.test(text[i + 1] ?? '\n')) at = i + 1;
      else {
        let digits = i;
        while (digits < i + 9 && text.charCodeAt(digits) >= 0x30 && text.charCodeAt(digits) <= 0x39) digits++;
        if (digits === i || (text[digits] !== '.' && text[digits] !== ')') || !/[ \t\n]/.test(text[digits + 1] ?? '\n')) break;
        at = digits + 1;
      }
      if (text[at] === ' ' || text[at] === '\t') at++;
      depth++;
      if (depth > deepest) deepest = depth;
    }
    const end = text.indexOf('\n', at);
    at = end < 0 ? text.length : end + 1;
  }
  return deepest;
}

const MAX_TABLE_CELLS = 20_000;

/** `*` (not a bullet) and `[` markers the parser pairs up: runs of them cost it quadratic time. */
const MAX_DELIMITERS = 10_000;

function delimiterCount(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === 0x5b)
      count++; // [
    else if (char === 0x2a && !/[ \t\n]/.test(text[at + 1] ?? '\n')) count++; // * not followed by whitespace
  }
  return count;
}

/** Adjacent text nodes merged, so `[category]` or `: statement` is one string. */
function mergeText(nodes: readonly PhrasingContent[]): PhrasingContent[] {
  const merged: PhrasingContent[] = [];
  for (const node of nodes) {
    const last = merged[merged.length - 1];
    if (node.type === 'text' && last?.type === 'text') merged[merged.length - 1] = { type: 'text', value: last.value + node.value };
    else merged.push(node);
  }
  return merged;
}

function trimPhrasing(nodes: readonly PhrasingContent[]): PhrasingContent[] {
  const result = mergeText(nodes);
  const first = result[0];
  if (first?.type === 'text') result[0] = { type: 'text', value: first.value.replace(/^\s+/, '') };
  const last = result[result.length - 1];
  if (last?.type === 'text') result[result.length - 1] = { type: 'text', value: last.value.replace(/\s+$/, '') };
  while (result[0]?.type === 'break') result.shift();
  while (result[result.length - 1]?.type === 'break') result.pop();
  return result.filter((n) => n.type !== 'text' || n.value !== '');
}

// ---------------------------------------------------------------------------------------------
// mdast → hast

class Converter {
  readonly notes = new Set<string>();
  private readonly definitions = new Map<string, Definition>();
  private readonly referenced = new Set<string>();

  constructor(
    private readonly source: string,
    root: Root,
  ) {
    const stack: Nodes[] = [root];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      if (next.type === 'definition' && !this.definitions.has(next.identifier)) this.definitions.set(next.identifier, next);
      if (next.type === 'linkReference' || next.type === 'imageReference') this.referenced.add(next.identifier);
      // One push per child: a spread of a huge child list overflows the call stack.
      if ('children' in next) for (const child of next.children as Nodes[]) stack.push(child);
    }
  }

  note(message: string): void {
    this.notes.add(message);
  }

  /** A link reference definition some link or image uses (it needs no output of its own). */
  used(node: RootContent): boolean {
    return node.type === 'definition' && this.referenced.has(node.identifier);
  }

  /** The markdown source of a node (what a fallback keeps verbatim). */
  sourceOf(node: Nodes): string {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    return start !== undefined && end !== undefined ? this.source.slice(start, end) : textOf(node);
  }

  /** Inline markup; `inline` elements cannot hold `<img>`, so images stay as their markdown there. */
  phrasing(nodes: readonly PhrasingContent[], inline: boolean): ElementContent[] {
    return nodes.map((node) => this.phrase(node, inline));
  }

  private phrase(node: PhrasingContent, inline: boolean): ElementContent {
    switch (node.type) {
      case 'text':
        return text(node.value);
      case 'emphasis':
        return el('em', {}, this.phrasing(node.children, inline));
      case 'strong':
        return el('strong', {}, this.phrasing(node.children, inline));
      case 'inlineCode':
        return el('code', {}, [text(node.value)]);
      case 'break':
        return el('br', {}, []);
      case 'link':
        return this.link(node.url, node.title ?? undefined, this.phrasing(node.children, inline), node);
      case 'image':
        return this.image(node.url, node.alt ?? '', node.title ?? undefined, inline, node);
      case 'linkReference':
      case 'imageReference': {
        const definition = this.definitions.get(node.identifier);
        if (!definition) return text(this.sourceOf(node));
        return node.type === 'linkReference'
          ? this.link(definition.url, definition.title ?? undefined, this.phrasing(node.children, inline), node)
          : this.image(definition.url, node.alt ?? '', definition.title ?? undefined, inline, node);
      }
      case 'html':
        this.note('Inline HTML in the markdown was kept as text (never as markup).');
        return text(node.value);
      default:
        return text(this.sourceOf(node));
    }
  }

  private link(url: string, title: string | undefined, label: ElementContent[], node: Nodes): ElementContent {
    if (url === '' || !safeUrl(url)) {
      this.note(`A link to "${url}" is not an allowed URL (http:, https:, mailto: or relative); it was kept as text.`);
      return text(this.sourceOf(node));
    }
    return el('a', { href: url, title }, label);
  }

  private image(url: string, alt: string, title: string | undefined, inline: boolean, node: Nodes): ElementContent {
    if (inline || url === '' || !safeUrl(url)) {
      if (!inline) this.note(`An image from "${url}" is not an allowed URL; it was kept as text.`);
      return text(this.sourceOf(node));
    }
    return el('img', { src: url, alt, title }, []);
  }

  /** Block content for `block` elements (bv-structure, bv-highlights, …). */
  blocks(nodes: readonly RootContent[]): ElementContent[] {
    return nodes.flatMap((node) => this.block(node));
  }

  private block(node: RootContent): ElementContent[] {
    switch (node.type) {
      case 'paragraph':
        return [this.table(node) ?? el('p', {}, this.phrasing(node.children, false))];
      case 'heading':
        return [el(`h${node.depth}`, {}, this.phrasing(node.children, false))];
      case 'thematicBreak':
        return [el('hr', {}, [])];
      case 'blockquote':
        return [el('blockquote', {}, this.blocks(node.children))];
      case 'list':
        return [this.list(node)];
      case 'listItem':
        return [this.listItem(node)];
      case 'code':
        if (node.meta) this.note(`The code block info "${node.lang ?? ''} ${node.meta}" was shortened to its language.`);
        return [el('pre', {}, [el('code', { class: node.lang ? `language-${node.lang}` : undefined }, [text(node.value)])])];
      case 'html':
        this.note('An HTML block in the markdown was kept as code (never as markup).');
        return [el('pre', {}, [el('code', { class: 'language-html' }, [text(node.value)])])];
      case 'definition':
        // Used ones live on in the links that name them; an unused one is kept as its text.
        return this.used(node) ? [] : [el('p', {}, [text(this.sourceOf(node))])];
      default:
        return [el('p', {}, [text(this.sourceOf(node))])];
    }
  }

  /**
   * A GFM pipe table (parsed here: the GFM micromark extension is not a dependency). Without it the
   * table would still be kept, as one paragraph of text.
   */
  private table(node: Paragraph): Element | undefined {
    const lines = this.sourceOf(node).split('\n');
    const [head, delimiter, ...body] = lines;
    if (head === undefined || delimiter === undefined || !head.includes('|')) return undefined;
    if (!/^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(delimiter) || !delimiter.includes('|')) return undefined;
    if (body.some((line) => !line.includes('|'))) return undefined;
    const aligns = cells(delimiter).map((cell) => {
      const left = cell.startsWith(':');
      const right = cell.endsWith(':');
      return left && right ? 'center' : right ? 'right' : left ? 'left' : undefined;
    });
    const header = cells(head);
    if (header.length !== aligns.length) return undefined;
    // Each cell is parsed on its own; a giant table stays one paragraph of text instead.
    if (header.length * lines.length > MAX_TABLE_CELLS) return undefined;
    const row = (line: string, cellTag: 'th' | 'td') => {
      const texts = cells(line); // once per row: per cell it was quadratic in the number of columns
      return el(
        'tr',
        {},
        aligns.map((align, i) => el(cellTag, { align }, this.cell(texts[i] ?? ''))),
      );
    };
    const rows = body.map((line) => row(line, 'td'));
    return el('table', {}, [el('thead', {}, [row(head, 'th')]), ...(rows.length > 0 ? [el('tbody', {}, rows)] : [])]);
  }

  private cell(source: string): ElementContent[] {
    const root = fromMarkdown(source.replace(/\\\|/g, '|'));
    const first = root.children[0];
    if (root.children.length !== 1 || first?.type !== 'paragraph') return [text(source)];
    const converter = new Converter(source, root);
    const content = converter.phrasing(first.children, true);
    for (const note of converter.notes) this.note(note);
    return content;
  }

  list(list: List): Element {
    const items = list.children.map((item) => this.listItem(item));
    return list.ordered
      ? el('ol', { start: list.start !== null && list.start !== undefined && list.start !== 1 ? String(list.start) : undefined }, items)
      : el('ul', {}, items);
  }

  listItem(item: ListItem): Element {
    if (item.spread) return el('li', {}, this.blocks(item.children));
    return el(
      'li',
      {},
      item.children.flatMap((child) => (child.type === 'paragraph' ? this.phrasing(child.children, false) : this.block(child))),
    );
  }

  /**
   * Content for an `inline` element: the leading paragraphs (joined by `<br>`); the remaining blocks,
   * which an inline element cannot hold, are returned to be kept elsewhere.
   */
  inline(nodes: readonly RootContent[]): { content: ElementContent[]; rest: RootContent[] } {
    const parts: ElementContent[][] = [];
    let index = 0;
    for (; index < nodes.length; index++) {
      const node = nodes[index]!;
      if (this.used(node)) continue;
      if (node.type !== 'paragraph') break;
      const content = this.phrasing(trimPhrasing(node.children), true);
      if (!isEmpty(content)) parts.push(content);
    }
    const content = parts.flatMap((part, i) => (i === 0 ? part : [el('br', {}, []), ...part]));
    return { content, rest: nodes.slice(index).filter((n) => !this.used(n)) };
  }
}

// ---------------------------------------------------------------------------------------------
// Output: bv-* elements in document order; blocks without a home are merged into a <bv-highlights>.

class Output {
  private readonly parts: Element[] = [];
  private pending: { label: string | undefined; content: ElementContent[] } | undefined;

  constructor(private readonly converter: Converter) {}

  element(name: string, attributes: Record<string, string | undefined>, children: ElementContent[]): void {
    this.flush();
    this.parts.push(el(name, attributes, children));
  }

  /** Blocks kept as they are, under a heading naming where they came from. */
  overflow(label: string | undefined, nodes: readonly RootContent[]): void {
    const content = this.converter.blocks(nodes);
    if (isEmpty(content)) return;
    if (this.pending && this.pending.label === label) {
      this.pending.content.push(...content);
      return;
    }
    this.flush();
    this.pending = { label, content };
  }

  /** The next overflow starts a new element (snippets separated by `---` stay apart). */
  separate(): void {
    this.flush();
  }

  private flush(): void {
    if (!this.pending) return;
    const heading = this.pending.label ? [el('h3', {}, [text(this.pending.label)])] : [];
    this.parts.push(el('bv-highlights', {}, [...heading, ...this.pending.content]));
    this.pending = undefined;
  }

  elements(): Element[] {
    this.flush();
    return this.parts;
  }
}

// ---------------------------------------------------------------------------------------------
// Sections

type FieldName = 'task' | 'changes' | 'files' | 'flow' | 'timestamp' | 'author' | 'patterns';
const FIELDS = new Set<string>(['task', 'changes', 'files', 'flow', 'timestamp', 'author', 'patterns']);
const FIELD_LABELS: Record<FieldName, string> = {
  task: 'Task',
  changes: 'Changes',
  files: 'Files',
  flow: 'Flow',
  timestamp: 'Timestamp',
  author: 'Author',
  patterns: 'Patterns',
};
const INLINE_FIELDS: Partial<Record<FieldName, string>> = {
  task: 'bv-task',
  flow: 'bv-flow',
  timestamp: 'bv-timestamp',
  author: 'bv-author',
};

type Route =
  | { kind: 'block'; element: string; heading: boolean }
  | { kind: 'rules' }
  | { kind: 'diagrams' }
  | { kind: 'facts' }
  | { kind: 'reason' }
  | { kind: 'raw-concept' }
  | { kind: 'narrative' }
  | { kind: 'relations' };

/** Where a `## X` (or, inside Narrative, `### X`) section goes. Unknown names keep their heading in a bv-highlights. */
function route(name: string, level: 2 | 3): Route {
  const key = name.trim().toLowerCase().replace(/\s+/g, ' ');
  if (level === 2) {
    if (key === 'reason') return { kind: 'reason' };
    if (key === 'raw concept') return { kind: 'raw-concept' };
    if (key === 'narrative') return { kind: 'narrative' };
    if (key === 'facts') return { kind: 'facts' };
    if (key === 'relations') return { kind: 'relations' };
  }
  if (key === 'structure') return { kind: 'block', element: 'bv-structure', heading: false };
  if (key === 'dependencies') return { kind: 'block', element: 'bv-dependencies', heading: false };
  if (key === 'highlights' || key === 'features') return { kind: 'block', element: 'bv-highlights', heading: false };
  if (key === 'examples') return { kind: 'block', element: 'bv-examples', heading: false };
  if (key === 'rules') return { kind: 'rules' };
  if (key === 'diagrams') return { kind: 'diagrams' };
  // Orphan headings, routed by name as ByteRover's MD→HTML migrator does.
  if (/^(design )?decisions?$/.test(key)) return { kind: 'block', element: 'bv-decision', heading: true };
  if (/^(bugs?|known (bugs|issues)|issues?|problems?)$/.test(key)) return { kind: 'block', element: 'bv-bug', heading: true };
  if (/^(fix(es)?|solutions?|resolutions?|workarounds?)$/.test(key)) return { kind: 'block', element: 'bv-fix', heading: true };
  if (/^(usage|example)$/.test(key)) return { kind: 'block', element: 'bv-examples', heading: true };
  if (/^(architecture|layout|overview|components|modules)$/.test(key)) return { kind: 'block', element: 'bv-structure', heading: true };
  if (/^(deps|requirements|prerequisites)$/.test(key)) return { kind: 'block', element: 'bv-dependencies', heading: true };
  return { kind: 'block', element: 'bv-highlights', heading: true };
}

/** Nothing to keep: only empty paragraphs and link definitions that links already carry. */
function isBlank(nodes: readonly RootContent[], converter: Converter): boolean {
  return nodes.every((n) => converter.used(n) || (n.type === 'paragraph' && textOf(n).trim() === ''));
}

/** `**Label:** rest` (or `**Label**: rest`): the label and the paragraph's phrasing after it. */
function labelled(node: RootContent): { label: string; rest: PhrasingContent[] } | undefined {
  if (node.type !== 'paragraph') return undefined;
  const [first, ...rest] = node.children;
  if (first?.type !== 'strong') return undefined;
  const text = textOf(first).trim();
  const next = rest[0];
  if (text.endsWith(':')) return { label: text.slice(0, -1).trim(), rest };
  if (next?.type === 'text' && next.value.startsWith(':'))
    return { label: text, rest: [{ type: 'text', value: next.value.slice(1) }, ...rest.slice(1)] };
  return undefined;
}

function paragraphOf(children: PhrasingContent[]): Paragraph {
  return { type: 'paragraph', children };
}

/** A paragraph's phrasing cut at its line breaks (soft and hard); markup spanning a break stays on its first line. */
function splitLines(children: readonly PhrasingContent[]): PhrasingContent[][] {
  const lines: PhrasingContent[][] = [[]];
  for (const node of children) {
    if (node.type === 'break') lines.push([]);
    else if (node.type === 'text' && node.value.includes('\n')) {
      node.value.split('\n').forEach((part, i) => {
        if (i > 0) lines.push([]);
        if (part !== '') lines[lines.length - 1]!.push({ type: 'text', value: part });
      });
    } else lines[lines.length - 1]!.push(node);
  }
  return lines.filter((line) => line.length > 0);
}

class TopicBuilder {
  readonly output: Output;
  readonly related: string[] = [];

  constructor(readonly converter: Converter) {
    this.output = new Output(converter);
  }

  section(route: Route, name: string, nodes: RootContent[]): void {
    if (route.kind !== 'relations' && isBlank(nodes, this.converter)) return;
    switch (route.kind) {
      case 'reason':
        this.output.element('bv-reason', {}, this.converter.blocks(nodes));
        return;
      case 'raw-concept':
        return this.rawConcept(nodes);
      case 'narrative':
        return this.narrative(nodes);
      case 'facts':
        return this.facts(nodes);
      case 'relations':
        return this.relations(nodes);
      case 'rules':
        return this.rules(nodes);
      case 'diagrams':
        return this.diagrams(nodes);
      case 'block': {
        // The heading is kept unless the element already says it ("## Decisions" → <bv-decision>).
        const label = route.element.replace(/^bv-/, '');
        const key = name.trim().toLowerCase();
        const keep = route.heading && ![label, `${label}s`, `${label}es`].includes(key);
        const heading = keep ? [el('h3', {}, [text(name.trim())])] : [];
        if (route.heading) {
          const where = route.element === 'bv-highlights' ? 'a <bv-highlights> under its heading' : `<${route.element}>`;
          this.converter.note(`Section "${name.trim()}" has no ByteRover counterpart; it was kept in ${where}.`);
        }
        this.output.element(route.element, {}, [...heading, ...this.converter.blocks(nodes)]);
        return;
      }
    }
  }

  private rawConcept(nodes: RootContent[]): void {
    let field: { name: FieldName; nodes: RootContent[] } | undefined;
    const finish = () => {
      if (field) this.field(field.name, field.nodes);
      field = undefined;
    };
    for (const node of nodes) {
      const label = labelled(node);
      const name = label?.label.toLowerCase();
      if (label && name !== undefined && FIELDS.has(name)) {
        finish();
        const lead = trimPhrasing(label.rest);
        field = { name: name as FieldName, nodes: lead.length > 0 ? [paragraphOf(lead)] : [] };
      } else if (label || !field) {
        // An unknown **Label:** ends the field before it, as in ByteRover's parser; kept as it is.
        finish();
        this.output.overflow('Raw Concept', [node]);
      } else {
        field.nodes.push(node);
      }
    }
    finish();
  }

  private field(name: FieldName, nodes: RootContent[]): void {
    const label = FIELD_LABELS[name];
    const element = INLINE_FIELDS[name];
    if (element) {
      const { content, rest } = this.converter.inline(nodes);
      if (!isEmpty(content)) this.output.element(element, {}, content);
      if (rest.length > 0) {
        this.converter.note(`Raw Concept **${label}:** holds blocks <${element}> cannot; they were kept in a <bv-highlights>.`);
        this.output.overflow(label, rest);
      }
      return;
    }
    if (name === 'patterns') return this.patterns(nodes);
    // Changes and Files: one <li> per item, directly in the element, as ByteRover writes them.
    const inner = nodes.flatMap((node) =>
      node.type === 'list' && !node.ordered ? node.children.map((item) => this.converter.listItem(item)) : this.converter.blocks([node]),
    );
    if (!isEmpty(inner)) this.output.element(name === 'changes' ? 'bv-changes' : 'bv-files', {}, inner);
  }

  private patterns(nodes: RootContent[]): void {
    for (const node of nodes) {
      if (node.type !== 'list') {
        this.output.overflow('Patterns', [node]);
        continue;
      }
      for (const item of node.children) {
        const pattern = parsePattern(item);
        if (pattern) {
          this.output.element('bv-pattern', { flags: pattern.flags, description: pattern.description }, [text(pattern.pattern)]);
        } else {
          this.converter.note('A Patterns item is not "`pattern` (flags: x) - description"; it was kept in a <bv-highlights>.');
          this.output.overflow('Patterns', [{ type: 'list', ordered: node.ordered, spread: false, children: [item] }]);
        }
      }
    }
  }

  private narrative(nodes: RootContent[]): void {
    let current: { name: string; nodes: RootContent[] } | undefined;
    const preamble: RootContent[] = [];
    const finish = () => {
      if (current) this.section(route(current.name, 3), current.name, current.nodes);
    };
    for (const node of nodes) {
      if (node.type === 'heading' && node.depth === 3) {
        finish();
        current = { name: textOf(node), nodes: [] };
      } else if (current) {
        current.nodes.push(node);
      } else {
        preamble.push(node);
      }
    }
    if (!isBlank(preamble, this.converter)) {
      this.converter.note('Narrative text before its first ### heading was kept in a <bv-highlights>.');
      this.output.overflow('Narrative', preamble);
    }
    finish();
  }

  private rules(nodes: RootContent[]): void {
    for (const node of nodes) {
      if (node.type === 'paragraph') {
        // ByteRover writes its rules as lines of one paragraph: one rule per line.
        for (const line of splitLines(node.children)) {
          const { content } = this.converter.inline([paragraphOf(line)]);
          if (!isEmpty(content)) this.output.element('bv-rule', {}, content);
        }
      } else if (node.type === 'list') {
        for (const item of node.children) {
          const { content, rest } = this.converter.inline(item.children);
          if (!isEmpty(content) && rest.length === 0) this.output.element('bv-rule', {}, content);
          else {
            this.converter.note('A rule holds more than text (a nested list or code); it was kept in a <bv-highlights>.');
            this.output.overflow('Rules', [{ type: 'list', ordered: node.ordered, spread: node.spread, children: [item] }]);
          }
        }
      } else {
        this.output.overflow('Rules', [node]);
      }
    }
  }

  private diagrams(nodes: RootContent[]): void {
    let title: RootContent | undefined;
    const flushTitle = () => {
      if (title) this.output.overflow('Diagrams', [title]);
      title = undefined;
    };
    for (const node of nodes) {
      if (node.type === 'paragraph' && node.children.length === 1 && node.children[0]?.type === 'strong') {
        flushTitle();
        title = node;
      } else if (node.type === 'code' && node.value.trim() !== '') {
        const lang = (node.lang ?? '').toLowerCase();
        let type = lang === '' ? 'ascii' : lang;
        if (!DIAGRAM_TYPES.has(type)) {
          this.converter.note(`Diagram language "${node.lang}" is not a bv-diagram type; stored as type="other".`);
          type = 'other';
        }
        const name = title ? textOf(title).trim() : undefined;
        title = undefined;
        this.output.element('bv-diagram', { type, title: name || undefined }, [text(node.value)]);
      } else {
        flushTitle();
        this.output.overflow('Diagrams', [node]);
      }
    }
    flushTitle();
  }

  private facts(nodes: RootContent[]): void {
    for (const node of nodes) {
      if (node.type === 'paragraph') {
        this.fact(node.children);
      } else if (node.type === 'list') {
        for (const item of node.children) {
          const [first, ...rest] = item.children;
          if (first?.type === 'paragraph' && rest.length === 0) this.fact(first.children);
          else {
            this.converter.note('A fact holds more than one paragraph; it was kept in a <bv-highlights>.');
            this.output.overflow('Facts', [{ type: 'list', ordered: node.ordered, spread: node.spread, children: [item] }]);
          }
        }
      } else {
        this.output.overflow('Facts', [node]);
      }
    }
  }

  /** `**subject**: statement [category]` or `statement [category]`. */
  private fact(children: PhrasingContent[]): void {
    let phrasing = trimPhrasing(children);
    let subject: string | undefined;
    let category: string | undefined;
    const label = labelled(paragraphOf(phrasing));
    if (label) {
      subject = label.label;
      phrasing = trimPhrasing(label.rest);
    }
    const last = phrasing[phrasing.length - 1];
    const match = last?.type === 'text' ? /\s*\[(\w+)\]$/.exec(last.value) : null;
    if (match && last?.type === 'text') {
      if (FACT_CATEGORIES.has(match[1]!)) {
        category = match[1];
        phrasing = trimPhrasing([...phrasing.slice(0, -1), { type: 'text', value: last.value.slice(0, match.index) }]);
      } else {
        this.converter.note(`Fact category "${match[1]}" is not a bv-fact category; it was left in the fact's text.`);
      }
    }
    const content = this.converter.phrasing(phrasing, true);
    if (isEmpty(content) && subject === undefined) return;
    this.output.element('bv-fact', { subject: subject || undefined, category }, content);
  }

  private relations(nodes: RootContent[]): void {
    for (const node of nodes) {
      const text = this.converter.sourceOf(node);
      const tokens = text
        .replace(/^\s*[-*+]\s+/gm, '')
        .split(/[\s,]+/)
        .filter((t) => t !== '');
      const refs = tokens.map((t) => (t.startsWith('@') ? relatedRef(t) : undefined));
      if (tokens.length > 0 && refs.every((r) => r !== undefined)) {
        for (const ref of refs as string[]) this.related.push(ref);
      } else {
        this.converter.note('Text in ## Relations that is not an @domain/topic/file.md reference was kept in a <bv-highlights>.');
        this.output.overflow('Relations', [node]);
      }
    }
  }
}

function parsePattern(item: ListItem): { pattern: string; flags?: string; description?: string } | undefined {
  const [first, ...more] = item.children;
  if (first?.type !== 'paragraph' || more.length > 0) return undefined;
  const [code, ...rest] = mergeText(first.children);
  if (code?.type !== 'inlineCode' || rest.some((n) => n.type !== 'text')) return undefined;
  const tail = rest.map(textOf).join('');
  const match = /^\s*(?:\(flags:\s*([^)]*?)\s*\))?\s*(?:-\s*([\s\S]*?))?\s*$/.exec(tail);
  if (!match) return undefined;
  return { pattern: code.value, flags: match[1] || undefined, description: match[2]?.replace(/\s+/g, ' ') || undefined };
}

/** A legacy relation (`@domain/topic/file.md`, `domain/topic/file.md`) as a related ref of the HTML format. */
function relatedRef(raw: string): string | undefined {
  const bare = raw.trim().replace(/^@/, '');
  // A folder's generated context.md is not imported (tree.ts): a relation to it names the folder.
  const folder = /^(.+)\/context\.md$/i.exec(bare);
  if (folder) {
    const result = normalizeTopicPath(folder[1]!);
    return result.ok ? `@${result.path}` : undefined;
  }
  const topic = /\.md$/i.test(bare) || /\.html$/i.test(bare);
  const stem = bare.replace(/\.(md|html)$/i, '');
  const result = normalizeTopicPath(stem);
  if (!result.ok) return undefined;
  return topic ? `@${result.path}.html` : `@${result.path}`;
}

// ---------------------------------------------------------------------------------------------
// Frontmatter

interface Frontmatter {
  title?: string;
  summary?: string;
  tags: string[];
  keywords: string[];
  related: string[];
  /** ByteRover's createdAt/updatedAt, kept as data-createdat/data-updatedat (see repair.ts keepStamps for why). */
  stamps: Array<[string, string]>;
  dropped: string[];
  unknown: Array<[string, unknown]>;
}

function splitFrontmatter(text: string): { yaml: string | undefined; body: string } | Failure {
  const lines = text.split('\n');
  if (lines[0]?.trimEnd() !== '---') return { yaml: undefined, body: text };
  const end = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === '---' || line.trimEnd() === '...'));
  if (end < 0)
    return fail('invalid-frontmatter', 'The YAML frontmatter opened by "---" on the first line is never closed by a "---" line.');
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n') };
}

function scalarString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

function parseFrontmatter(yaml: string): Frontmatter | Failure {
  const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: true });
  const error = doc.errors[0];
  if (error)
    return fail(
      'invalid-frontmatter',
      `The YAML frontmatter does not parse: ${(error.message.split('\n')[0] ?? '').replace(/:\s*$/, '')}. Fix the YAML between the --- lines.`,
    );
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return fail('invalid-frontmatter', `The YAML frontmatter does not parse: ${(e as Error).message}`);
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) {
    return fail('invalid-frontmatter', 'The YAML frontmatter is not a mapping of fields (title:, summary:, tags:, …).');
  }
  const fields = value as Record<string, unknown>;
  const result: Frontmatter = { tags: [], keywords: [], related: [], stamps: [], dropped: [], unknown: [] };
  for (const [key, field] of Object.entries(fields)) {
    if (key === 'title' || key === 'summary') {
      if (field === null || field === undefined) continue;
      const text = scalarString(field);
      if (text === undefined) return fail('invalid-frontmatter', `Frontmatter field "${key}" must be text, not a list or mapping.`);
      result[key] = text;
    } else if (key === 'tags' || key === 'keywords' || key === 'related') {
      if (field === null || field === undefined) continue;
      const items = Array.isArray(field) ? field : [field];
      for (const item of items) {
        const text = scalarString(item);
        if (text === undefined) return fail('invalid-frontmatter', `Frontmatter field "${key}" must be a list of strings.`);
        for (const value of key === 'related' ? [text.trim()] : text.split(',')) if (value.trim()) result[key].push(value.trim());
      }
    } else if ((key === 'createdAt' || key === 'updatedAt') && scalarString(field)?.trim()) {
      result.stamps.push([`data-${key.toLowerCase()}`, scalarString(field)!.trim()]);
    } else if (DROPPED_FRONTMATTER_FIELDS.includes(key)) {
      result.dropped.push(key);
    } else {
      result.unknown.push([key, field]);
    }
  }
  return result;
}

function describeValue(value: unknown): string {
  const scalar = scalarString(value);
  if (scalar !== undefined) return scalar;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------

function decode(input: string | Uint8Array): string | Failure {
  if (typeof input === 'string') return input;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(input);
  } catch {
    return fail('invalid-encoding', 'The file is not valid UTF-8 text; it looks binary. Save it as UTF-8 or remove it from the tree.');
  }
}

function titleFromPath(path: string): string {
  const name = path.split('/').pop() ?? path;
  return name.replace(/[_-]+/g, ' ').trim() || name;
}

/**
 * Converts one legacy Markdown topic (`relativePath` is its path in the context tree, e.g.
 * `security/auth/jwt_refresh.md`) into a canonical `<bv-topic>` document that validates.
 */
export function convertLegacyMarkdown(input: string | Uint8Array, relativePath: string): LegacyMarkdownResult {
  const decoded = decode(input);
  if (typeof decoded !== 'string') return decoded;
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input).length : input.length;
  if (bytes > MAX_TOPIC_BYTES) {
    return fail('too-large', `The file is ${bytes} bytes; the limit is ${MAX_TOPIC_BYTES} bytes. Split it into several topics.`);
  }
  if (BINARY.test(decoded)) {
    return fail('invalid-encoding', 'The file contains NUL or other control characters; it looks binary, not a Markdown topic.');
  }
  if (LONE_SURROGATE.test(decoded)) return fail('invalid-encoding', 'The text contains invalid Unicode (an unpaired surrogate).');

  const stem = relativePath.replace(/^\.\//, '').replace(/\.md$/i, '');
  const normalized = normalizeTopicPath(stem);
  if (!normalized.ok) return fail(normalized.error.kind, `${relativePath}: ${normalized.error.message}`);
  const topicPath = normalized.path;

  const normalizedText = decoded.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n');
  const split = splitFrontmatter(normalizedText);
  if ('ok' in split) return split;
  const frontmatter = split.yaml === undefined ? undefined : parseFrontmatter(split.yaml);
  if (frontmatter && 'ok' in frontmatter) return frontmatter;

  const tooDeep = () => fail('too-large', `The markdown nests more than ${MAX_NESTING_DEPTH} levels deep (lists or quotes); flatten it.`);
  if (deepestLineNesting(split.body) > MAX_NESTING_DEPTH) return tooDeep();
  const markers = delimiterCount(split.body);
  if (markers > MAX_DELIMITERS) {
    return fail(
      'too-large',
      `The markdown has ${markers} emphasis and link markers ("*", "["); at most ${MAX_DELIMITERS} are converted (the parser slows down quadratically beyond). Split it into several topics.`,
    );
  }
  const root = fromMarkdown(split.body);
  if (depthOf(root) > MAX_NESTING_DEPTH) {
    return fail('too-large', `The markdown nests more than ${MAX_NESTING_DEPTH} levels deep (lists or quotes); flatten it.`);
  }
  const converter = new Converter(split.body, root);
  const builder = new TopicBuilder(converter);
  const notes: string[] = [];
  if (!frontmatter) notes.push('The file has no YAML frontmatter (an older ByteRover format); relations were read from its body.');

  // Title: frontmatter, else a leading "# Title", else the file name.
  const children = [...root.children];
  const firstContent = children.find((n) => n.type !== 'definition');
  const leadingH1 = firstContent?.type === 'heading' && firstContent.depth === 1 ? (firstContent as Heading) : undefined;
  let title = frontmatter?.title?.trim();
  if (!title && leadingH1 && textOf(leadingH1).trim() !== '') {
    title = textOf(leadingH1).trim();
    notes.push('The title was taken from the leading "# " heading.');
  }
  if (leadingH1 && textOf(leadingH1).trim() === title) children.splice(children.indexOf(leadingH1), 1);
  if (!title) {
    title = titleFromPath(topicPath);
    notes.push(`The file has no title; it was named "${title}" after its file name.`);
  }

  // Related refs that are not topic paths have no place in the attribute; they are kept with the other odd fields.
  const related: string[] = [];
  const unknown = [...(frontmatter?.unknown ?? [])];
  const invalidRelated: string[] = [];
  for (const raw of frontmatter?.related ?? []) {
    const ref = relatedRef(raw);
    if (ref) related.push(ref);
    else invalidRelated.push(raw);
  }
  if (invalidRelated.length > 0) {
    unknown.push(['related', invalidRelated]);
    notes.push(
      `Related entries ${invalidRelated.map((r) => JSON.stringify(r)).join(', ')} are not topic paths; kept in a <bv-highlights>.`,
    );
  }
  if (unknown.length > 0) {
    const items = unknown.map(([key, value]) => el('li', {}, [el('code', {}, [text(key)]), text(`: ${describeValue(value)}`)]));
    builder.output.element('bv-highlights', {}, [el('h3', {}, [text('Frontmatter')]), el('ul', {}, items)]);
    const fields = frontmatter?.unknown.map(([k]) => k) ?? [];
    if (fields.length > 0) notes.push(`Frontmatter field(s) ${fields.join(', ')} have no bv-topic attribute; kept in a <bv-highlights>.`);
  }

  // Top level: `## X` opens a section; `---` ends it; anything outside a section is a snippet.
  let section: { name: string; nodes: RootContent[] } | undefined;
  let snippet: RootContent[] = [];
  const endSection = () => {
    if (section) builder.section(route(section.name, 2), section.name, section.nodes);
    section = undefined;
  };
  const endSnippet = () => {
    const content = snippet.filter((n) => !converter.used(n));
    if (content.length === 1 && content[0]?.type === 'paragraph' && textOf(content[0]).trim() === 'No context available.') {
      notes.push('The placeholder snippet "No context available." was dropped.');
    } else if (!isBlank(content, converter)) {
      builder.output.overflow(undefined, content);
      builder.output.separate();
    }
    snippet = [];
  };
  for (const node of children) {
    if (node.type === 'heading' && node.depth === 2) {
      endSection();
      endSnippet();
      section = { name: textOf(node), nodes: [] };
    } else if (node.type === 'thematicBreak') {
      endSection();
      endSnippet();
    } else if (section) {
      section.nodes.push(node);
    } else {
      snippet.push(node);
    }
  }
  endSection();
  endSnippet();

  if (!frontmatter) {
    // The oldest files carried relations as bare @domain/topic/file.md lines in their body.
    for (const match of split.body.matchAll(/(?:^|\s)@([\p{L}\p{N}_.-]+(?:\/[\p{L}\p{N}_.-]+){2,3})/gu)) {
      const ref = relatedRef(`@${match[1]}`);
      if (ref) builder.related.push(ref);
    }
  }
  for (const ref of builder.related) related.push(ref);

  const tags = frontmatter?.tags ?? [];
  const keywords = frontmatter?.keywords ?? [];
  const list = (items: string[]) => (items.length > 0 ? splitList(items.join(',')).join(',') : undefined);
  if (frontmatter?.dropped.length) {
    notes.push(`Dropped frontmatter field(s) ${frontmatter.dropped.join(', ')}: brv stores no ranking signals.`);
  }
  const stamps = Object.fromEntries(frontmatter?.stamps ?? []);
  if (frontmatter?.stamps.length) {
    notes.push(
      `Kept ${frontmatter.stamps.map(([name]) => name.replace(/^data-(\w+)at$/, (_, w: string) => `${w}At`)).join(' and ')} as ${frontmatter.stamps.map(([name]) => name).join(' and ')} on <bv-topic> (brv's own history is in git).`,
    );
  }
  const topic = el(
    'bv-topic',
    {
      path: topicPath,
      title,
      summary: frontmatter?.summary?.trim() || undefined,
      tags: list(tags),
      keywords: list(keywords),
      related: list(related),
      ...stamps,
    },
    builder.output.elements(),
  );
  // Serialised and validated like any topic a model writes: the validator gives the canonical bytes.
  const html = serializeCanonical(topic);
  const validation = validateTopicHtml(html);
  if (!validation.ok) {
    const first = validation.errors[0]!;
    return fail(first.kind, `The converted topic is not valid: ${validation.errors.map((e) => e.message).join(' ')}`);
  }
  return { ok: true, path: topicPath, html: validation.topic.canonicalHtml, notes: [...notes, ...converter.notes] };
}
