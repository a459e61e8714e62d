// A topic's markdown (as brv renders it for agents) laid out for a terminal of a given width:
// headings underlined, lists with bullets, code indented, tables drawn with box lines, every
// paragraph word-wrapped. Pure: lines of styled spans; the App turns styles into colours (or
// none, with NO_COLOR), so the layout reads the same without them.
import type { List, ListItem, Nodes, PhrasingContent, Root, RootContent, Table } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfmTable } from 'micromark-extension-gfm-table';
import stringWidth from 'string-width';
import { printable } from '../topic/printable.js';
import { LIST_END } from '../topic/render-parts.js';

export interface SpanStyle {
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  dim?: boolean;
  strike?: boolean;
  color?: 'cyan' | 'green' | 'yellow' | 'magenta' | 'blue';
}

export interface Span {
  text: string;
  style?: SpanStyle;
}

export type StyledLine = Span[];

/** The text of a line, without styles (tests, search in the pager, plain output). */
export function plainLine(line: StyledLine): string {
  return line.map((span) => span.text).join('');
}

const MIN_WIDTH = 20;

/** Display width: wide characters take two columns. */
export const widthOf = (text: string): number => stringWidth(text);

function parseMarkdown(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfmTable()], mdastExtensions: [gfmFromMarkdown()] });
}

/** Inline content as spans, styles nested (bold inside a link stays bold). */
function inlineSpans(nodes: readonly PhrasingContent[], style: SpanStyle = {}): Span[] {
  const spans: Span[] = [];
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        spans.push({ text: node.value.replace(/\s+/g, ' '), style });
        break;
      case 'strong':
        spans.push(...inlineSpans(node.children, { ...style, bold: true }));
        break;
      case 'emphasis':
        spans.push(...inlineSpans(node.children, { ...style, italic: true }));
        break;
      case 'delete':
        spans.push(...inlineSpans(node.children, { ...style, strike: true }));
        break;
      case 'inlineCode':
        spans.push({ text: node.value, style: { ...style, color: 'cyan' } });
        break;
      case 'break':
        spans.push({ text: '\n' });
        break;
      case 'link': {
        const label = inlineSpans(node.children, { ...style, underline: true, color: 'blue' });
        spans.push(...label);
        const text = label.map((s) => s.text).join('');
        if (node.url && node.url !== text) spans.push({ text: ` <${node.url}>`, style: { dim: true } });
        break;
      }
      case 'image':
        spans.push({ text: `[image: ${node.alt || node.url}]`, style: { ...style, dim: true } });
        break;
      default:
        if ('value' in node && typeof node.value === 'string') spans.push({ text: node.value, style });
        else if ('children' in node) spans.push(...inlineSpans(node.children as PhrasingContent[], style));
    }
  }
  return spans;
}

/** Splits spans into words and single spaces (a forced break stays a "\n" token). */
function tokens(spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const span of spans) {
    for (const part of span.text.split(/( |\n)/))
      if (part !== '') out.push({ text: part === '\n' ? part : printable(part), ...(span.style ? { style: span.style } : {}) });
  }
  return out;
}

/** Cuts a word wider than `width` into pieces that fit. */
function splitWide(token: Span, width: number): Span[] {
  const pieces: Span[] = [];
  let piece = '';
  for (const char of token.text) {
    if (widthOf(piece + char) > width && piece !== '') {
      pieces.push({ ...token, text: piece });
      piece = '';
    }
    piece += char;
  }
  if (piece !== '') pieces.push({ ...token, text: piece });
  return pieces;
}

/**
 * Word-wraps spans into lines of at most `width` columns: the first line starts with `first`, the
 * others with `rest` (both already counted in the width).
 */
export function wrapSpans(spans: readonly Span[], width: number, first: Span[] = [], rest: Span[] = []): StyledLine[] {
  const lines: StyledLine[] = [];
  let line: Span[] = [...first];
  let used = widthOf(plainLine(first));
  let empty = true;
  const newLine = () => {
    while (line.length > 0 && line[line.length - 1]!.text === ' ') line.pop();
    lines.push(line);
    line = [...rest];
    used = widthOf(plainLine(rest));
    empty = true;
  };
  const room = Math.max(1, width - widthOf(plainLine(rest)));
  for (const token of tokens(spans)) {
    if (token.text === '\n') {
      newLine();
      continue;
    }
    if (token.text === ' ') {
      if (!empty && used < width) {
        line.push(token);
        used += 1;
      }
      continue;
    }
    const size = widthOf(token.text);
    if (used + size > width && !empty) newLine();
    for (const piece of size > room ? splitWide(token, room) : [token]) {
      const pieceSize = widthOf(piece.text);
      if (used + pieceSize > width && !empty) newLine();
      line.push(piece);
      used += pieceSize;
      empty = false;
    }
  }
  if (!empty || lines.length === 0) newLine();
  return lines;
}

const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - widthOf(text)));

function tableLines(table: Table, width: number): StyledLine[] {
  const rows = table.children.map((row) => row.children.map((cell) => inlineSpans(cell.children)));
  const columns = Math.max(...rows.map((r) => r.length), 1);
  const natural = Array.from({ length: columns }, (_, c) => Math.max(1, ...rows.map((r) => widthOf(plainLine(r[c] ?? [])))));
  // "│ " before each cell and " │" after the last: 3 columns per cell, 1 more in all.
  const room = Math.max(columns * 3, width - (columns * 3 + 1));
  const widths = [...natural];
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 3) break;
    widths[widest]!--;
  }
  const border = (left: string, middle: string, right: string): StyledLine => [
    { text: left + widths.map((w) => '─'.repeat(w + 2)).join(middle) + right, style: { dim: true } },
  ];
  const lines: StyledLine[] = [border('┌', '┬', '┐')];
  rows.forEach((row, r) => {
    const cells = widths.map((w, c) =>
      wrapSpans(row[c] ?? [], w).map((l) => (r === 0 ? l.map((s) => ({ ...s, style: { ...s.style, bold: true } })) : l)),
    );
    const height = Math.max(...cells.map((c) => c.length));
    for (let i = 0; i < height; i++) {
      const line: StyledLine = [];
      cells.forEach((cell, c) => {
        const content = cell[i] ?? [];
        line.push({ text: c === 0 ? '│ ' : ' │ ', style: { dim: true } }, ...content, {
          text: pad('', widths[c]! - widthOf(plainLine(content))),
        });
      });
      line.push({ text: ' │', style: { dim: true } });
      lines.push(line);
    }
    if (r === 0 && rows.length > 1) lines.push(border('├', '┼', '┤'));
  });
  lines.push(border('└', '┴', '┘'));
  return lines;
}

function listLines(list: List, width: number, indent: string): StyledLine[] {
  const lines: StyledLine[] = [];
  list.children.forEach((item: ListItem, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}. ` : '• ';
    const hang = ' '.repeat(widthOf(marker));
    item.children.forEach((child, j) => {
      const lead = j === 0 ? marker : hang;
      if (child.type === 'paragraph') {
        lines.push(...wrapSpans(inlineSpans(child.children), width, [{ text: indent + lead }], [{ text: indent + hang }]));
      } else lines.push(...blockLines(child, width, indent + hang));
    });
  });
  return lines;
}

function blockLines(node: RootContent, width: number, indent = ''): StyledLine[] {
  const inner = Math.max(MIN_WIDTH, width);
  switch (node.type) {
    case 'heading': {
      const spans = inlineSpans(node.children, { bold: true, ...(node.depth <= 2 ? { color: 'magenta' as const } : {}) });
      const lines = wrapSpans(spans, inner, [{ text: indent }], [{ text: indent }]);
      if (node.depth <= 2) {
        const underline = Math.min(inner - indent.length, Math.max(...lines.map((l) => widthOf(plainLine(l)) - indent.length)));
        lines.push([{ text: indent + (node.depth === 1 ? '═' : '─').repeat(Math.max(1, underline)), style: { dim: true } }]);
      }
      return lines;
    }
    case 'paragraph':
      return wrapSpans(inlineSpans(node.children), inner, [{ text: indent }], [{ text: indent }]);
    case 'blockquote':
      return node.children.flatMap((child, i) => [
        ...(i > 0 ? [[{ text: `${indent}│`, style: { dim: true } }]] : []),
        ...blockLines(child, inner, `${indent}│ `).map((line) =>
          line.map((span, s) => (s === 0 ? { ...span, style: { dim: true } } : span)),
        ),
      ]);
    case 'list':
      return listLines(node, inner, indent);
    case 'code': {
      const room = Math.max(10, inner - indent.length - 4);
      return node.value.split('\n').flatMap((codeLine) =>
        (widthOf(codeLine) > room ? splitWide({ text: codeLine }, room) : [{ text: codeLine }]).map((piece) => [
          { text: `${indent}  │ `, style: { dim: true } },
          { text: piece.text, style: { color: 'green' as const } },
        ]),
      );
    }
    case 'table':
      return tableLines(node, inner - indent.length).map((line) => [{ text: indent }, ...line]);
    case 'thematicBreak':
      return [[{ text: indent + '─'.repeat(Math.max(1, inner - indent.length)), style: { dim: true } }]];
    case 'html':
      return wrapSpans([{ text: node.value }], inner, [{ text: indent }], [{ text: indent }]);
    default:
      if ('children' in node) return (node.children as Nodes[]).flatMap((child) => blockLines(child as RootContent, inner, indent));
      return 'value' in node && typeof node.value === 'string'
        ? wrapSpans([{ text: node.value }], inner, [{ text: indent }], [{ text: indent }])
        : [];
  }
}

/** Markdown laid out in `width` columns: blocks separated by one blank line. */
export function renderTerminalMarkdown(markdown: string, width: number): StyledLine[] {
  const root = parseMarkdown(markdown);
  const lines: StyledLine[] = [];
  for (const block of root.children) {
    // The empty comment rendered topics put between two lists (LIST_END, render-parts.ts) is not shown.
    if (block.type === 'html' && block.value === LIST_END) continue;
    if (lines.length > 0) lines.push([]);
    lines.push(...blockLines(block, Math.max(MIN_WIDTH, width)));
  }
  return lines;
}

/** Plain text (a command's output) as lines wrapped to `width`, keeping its own line breaks and indentation. */
export function wrapPlainText(text: string, width: number): StyledLine[] {
  const room = Math.max(MIN_WIDTH, width);
  return text.split('\n').flatMap((line) => {
    if (widthOf(line) <= room) return [[{ text: line }]];
    const indent = /^\s*/.exec(line)![0];
    return wrapSpans([{ text: line.slice(indent.length) }], room, [{ text: indent }], [{ text: `${indent}  ` }]);
  });
}
