/**
 * The index's fast path for topic blobs in canonical form (what brv's own writer stores): a scan of
 * the small HTML subset brv writes, straight to the hast the full path would build, then the same
 * extraction (extract.ts) and the same markdown as render.ts, written directly for the shapes it
 * knows. It loads no HTML or markdown library; anything it does not model exactly (an unknown
 * element or attribute, a comment, an entity it does not know, nesting the HTML parser would
 * repair, text whose markdown escaping it does not reproduce …) makes it answer `undefined`, and
 * the caller takes the full path (document.ts: parse5, the sanitizer, hast-util-to-mdast).
 *
 * Safe on any input: the size is checked first (as readStoredTopic does), the scan is one pass with
 * an explicit stack bounded at MAX_NESTING_DEPTH (no recursion), regexes are character classes or
 * fixed-width lookarounds (no backtracking), nothing is executed or loaded.
 */
import type { Element, ElementContent, Properties, Text } from 'hast';
import { find, html as htmlSchema } from 'property-information';
import { attributesOf } from '../topic/hast.js';
import { markdownInline, startsCharacterReference } from '../topic/inline.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import { topicPlainText } from '../topic/plain-text.js';
import {
  BLOCK_TAGS,
  BV_GLOBAL_ATTRIBUTES,
  ELEMENTS,
  GLOBAL_ATTRIBUTES,
  INLINE_TAGS,
  isDataAttribute,
  TAG_ATTRIBUTES,
  TOLERATED_TOPIC_ATTRIBUTES,
} from '../topic/registry.js';
import {
  BULLETED,
  compose,
  fenced,
  fenceLanguage,
  filesAsCode,
  inlineCode,
  joinBlocks,
  LABELS,
  labelFor,
  longestRun,
  MARKDOWN_SIGNIFICANT,
  needsIndentedCode,
  topicHeaderBlocks,
} from '../topic/render-parts.js';
import type { BlobFields, BlobProblem, CachedBlob } from './doc-cache.js';
import { extractDocument } from './extract.js';
import { collapseWhitespace } from '../topic/whitespace.js';

/** Characters the fast path does not model: raw CR (the parser rewrites it), other controls (lone surrogates: isWellFormed). */
// eslint-disable-next-line no-control-regex
const UNMODELED_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Tags the scanner knows the parse of (plain ones: no implicit closing, no special insertion mode). */
const PLAIN_TAGS = new Set([
  'p',
  'ul',
  'ol',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'code',
  'strong',
  'em',
  'b',
  'i',
  'span',
  'br',
]);
/** Start tags that close an open <p> (the parser's "close a p element in button scope"). */
const CLOSES_P = new Set(['p', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Of the known tags, the HTML "special" ones that stop the <li> start tag's search for an open <li>. */
const LI_SCOPE_STOP = new Set(['ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre']);
const VOID = new Set(['br']);
/** Deepest nesting scanned (elements, the topic included). */
const MAX_MODELED_DEPTH = 32;
const BV_TAGS = new Set(ELEMENTS.map((e) => e.name));

/** Attributes (HTML names) the sanitizer keeps per tag: a blob with any other one takes the full path. */
const ALLOWED_ATTRIBUTES = new Map<string, Set<string>>();
for (const tag of [...INLINE_TAGS, ...BLOCK_TAGS]) {
  ALLOWED_ATTRIBUTES.set(tag, new Set([...GLOBAL_ATTRIBUTES, ...(TAG_ATTRIBUTES[tag] ?? [])]));
}
for (const spec of ELEMENTS) {
  ALLOWED_ATTRIBUTES.set(
    spec.name,
    new Set([
      ...spec.attributes.map((a) => a.name),
      ...BV_GLOBAL_ATTRIBUTES,
      ...GLOBAL_ATTRIBUTES,
      ...(spec.name === 'bv-topic' ? TOLERATED_TOPIC_ATTRIBUTES : []),
    ]),
  );
}

interface AttributeInfo {
  readonly property: string;
  readonly spaceSeparated: boolean;
}

const attributeInfos = new Map<string, AttributeInfo | null>();

/** How hast stores an attribute, or null when hastscript would not keep it as the string (or space-separated list) written: booleanish values stay strings. */
function attributeInfo(name: string): AttributeInfo | null {
  let info = attributeInfos.get(name);
  if (info === undefined) {
    const found = find(htmlSchema, name);
    const plain =
      !found.boolean &&
      !found.overloadedBoolean &&
      !found.number &&
      !found.commaSeparated &&
      !found.commaOrSpaceSeparated &&
      found.attribute === name &&
      (!name.startsWith('data-') || (isDataAttribute(name) && /^data[A-Z0-9]/.test(found.property)));
    info = plain ? { property: found.property, spaceSeparated: found.spaceSeparated } : null;
    attributeInfos.set(name, info);
  }
  return info;
}

function allowedAttribute(tag: string, name: string): boolean {
  const allowed = ALLOWED_ATTRIBUTES.get(tag);
  if (!allowed) return false;
  if (allowed.has(name)) return true;
  return name.startsWith('data-') && allowed.has('data-*') && isDataAttribute(name);
}

const NAMED_REFERENCES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', '\u00a0'],
]);

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
function isHexDigit(code: number): boolean {
  return isDigit(code) || (code >= 0x61 && code <= 0x66) || (code >= 0x41 && code <= 0x46);
}
function isLowerAlnum(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || isDigit(code);
}
function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09;
}

/** Text with its character references decoded, or undefined for one the fast path does not model. */
function decode(raw: string): string | undefined {
  let amp = raw.indexOf('&');
  if (amp < 0) return raw;
  let result = '';
  let start = 0;
  while (amp >= 0) {
    const semi = raw.indexOf(';', amp + 1);
    if (semi < 0 || semi - amp > 10) return undefined;
    const body = raw.slice(amp + 1, semi);
    let value: string | undefined;
    if (body.charCodeAt(0) === 0x23 /* # */) {
      const hex = body.charCodeAt(1) === 0x78 || body.charCodeAt(1) === 0x58;
      const digits = body.slice(hex ? 2 : 1);
      if (digits === '' || digits.length > 6) return undefined;
      for (let i = 0; i < digits.length; i++) {
        if (!(hex ? isHexDigit(digits.charCodeAt(i)) : isDigit(digits.charCodeAt(i)))) return undefined;
      }
      const code = Number.parseInt(digits, hex ? 16 : 10);
      // What the parser maps or replaces (NUL, controls, CR, C1, surrogates, beyond Unicode) is not modeled.
      if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)) return undefined;
      if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return undefined;
      value = String.fromCodePoint(code);
    } else {
      value = NAMED_REFERENCES.get(body);
    }
    if (value === undefined) return undefined;
    result += raw.slice(start, amp) + value;
    start = semi + 1;
    amp = raw.indexOf('&', start);
  }
  return result + raw.slice(start);
}

/** The hast of a canonical topic blob (the bv-topic element, as parse5 and hast-util-from-parse5 build it), or undefined. */
function scanCanonicalTopic(source: string): Element | undefined {
  const html = source.trim();
  if (!html.startsWith('<bv-topic')) return undefined;
  const length = html.length;
  const stack: Element[] = [];
  let topic: Element | undefined;
  let openP = 0;
  let openA = 0;
  let at = 0;
  /** Right after a <pre> start tag: the parser drops a line feed there. */
  let afterPre = false;
  while (at < length) {
    const lt = html.indexOf('<', at);
    const textEnd = lt < 0 ? length : lt;
    if (textEnd > at) {
      const parent = stack[stack.length - 1];
      if (parent === undefined) return undefined; // text after the topic
      const raw = html.slice(at, textEnd);
      // A line feed written as a reference right after <pre> is not modeled.
      if (afterPre && raw.charCodeAt(0) === 0x26) return undefined;
      let value = decode(raw);
      if (value === undefined) return undefined;
      if (afterPre && value.charCodeAt(0) === 0x0a) value = value.slice(1);
      afterPre = false;
      if (value !== '') parent.children.push({ type: 'text', value } satisfies Text);
      at = textEnd;
      continue;
    }
    afterPre = false;
    // A tag at `at`.
    let next = html.charCodeAt(at + 1);
    if (next === 0x2f /* / */) {
      // End tag: it must close the current element, by its exact name, with nothing else in it.
      const current = stack[stack.length - 1];
      if (current === undefined) return undefined;
      const name = current.tagName;
      if (!html.startsWith(name, at + 2)) return undefined;
      let end = at + 2 + name.length;
      while (end < length && isSpace(html.charCodeAt(end))) end++;
      if (html.charCodeAt(end) !== 0x3e /* > */) return undefined;
      stack.pop();
      if (name === 'p') openP--;
      if (name === 'a') openA--;
      at = end + 1;
      if (stack.length === 0) {
        // The topic closed: nothing may follow (the source was trimmed).
        return at === length ? topic : undefined;
      }
      continue;
    }
    if (!(next >= 0x61 && next <= 0x7a)) return undefined; // comment, doctype, uppercase, a stray "<"
    let nameEnd = at + 2;
    for (next = html.charCodeAt(nameEnd); isLowerAlnum(next) || next === 0x2d; next = html.charCodeAt(nameEnd)) nameEnd++;
    const tag = html.slice(at + 1, nameEnd);
    const parent = stack[stack.length - 1];
    if (parent === undefined) {
      if (tag !== 'bv-topic' || topic !== undefined) return undefined;
    } else if (BV_TAGS.has(tag)) {
      // bv-* elements are the topic's children, never nested.
      if (tag === 'bv-topic' || parent !== topic) return undefined;
    } else {
      if (!PLAIN_TAGS.has(tag) || parent === topic) return undefined;
      if (CLOSES_P.has(tag) && openP > 0) return undefined;
      if (HEADINGS.has(tag) && HEADINGS.has(parent.tagName)) return undefined;
      if (tag === 'a' && openA > 0) return undefined;
      if (tag === 'li') {
        for (let i = stack.length - 1; i >= 0; i--) {
          const open = stack[i]!.tagName;
          if (open === 'li') return undefined;
          if (LI_SCOPE_STOP.has(open)) break;
        }
      }
    }
    // Attributes: name="value" pairs, double-quoted, each allowed on this tag and stored as a string.
    const properties: Properties = {};
    const seen = new Set<string>();
    let cursor = nameEnd;
    let selfClosing = false;
    for (;;) {
      const before = cursor;
      while (cursor < length && isSpace(html.charCodeAt(cursor))) cursor++;
      const code = html.charCodeAt(cursor);
      if (code === 0x3e /* > */) break;
      if (code === 0x2f /* / */ && html.charCodeAt(cursor + 1) === 0x3e) {
        selfClosing = true;
        cursor++;
        break;
      }
      if (cursor === before) return undefined; // attributes are separated by whitespace
      let end = cursor;
      while (end < length && (isLowerAlnum(html.charCodeAt(end)) || html.charCodeAt(end) === 0x2d)) end++;
      const name = html.slice(cursor, end);
      if (name === '' || html.charCodeAt(end) !== 0x3d /* = */ || html.charCodeAt(end + 1) !== 0x22 /* " */) return undefined;
      const close = html.indexOf('"', end + 2);
      if (close < 0) return undefined;
      const value = decode(html.slice(end + 2, close));
      if (value === undefined || seen.has(name) || !allowedAttribute(tag, name)) return undefined;
      const info = attributeInfo(name);
      if (info === null) return undefined;
      seen.add(name);
      if (info.spaceSeparated) {
        const trimmed = value.trim();
        properties[info.property] = trimmed ? trimmed.split(/[ \t\n\r\f]+/g) : [];
      } else {
        properties[info.property] = value;
      }
      cursor = close + 1;
    }
    if (selfClosing && !VOID.has(tag)) return undefined;
    // Far below MAX_NESTING_DEPTH (the full path's too-deep verdict): canonical topics nest a few levels.
    if (stack.length >= MAX_MODELED_DEPTH) return undefined;
    const element: Element = { type: 'element', tagName: tag, properties, children: [] };
    if (parent === undefined) topic = element;
    else parent.children.push(element);
    at = cursor + 1;
    if (VOID.has(tag)) continue;
    stack.push(element);
    afterPre = tag === 'pre';
    if (tag === 'p') openP++;
    if (tag === 'a') openA++;
  }
  return undefined; // unclosed elements: the parser closes them at the end; not modeled
}

// ---------------------------------------------------------------------------------------------
// Markdown: what render.ts's renderTopicMarkdown produces (hast-util-to-mdast, then
// mdast-util-to-markdown with its options), for the shapes modeled here; undefined otherwise.

/** All text below `element`, concatenated (render.ts's rawText). */
function rawText(element: Element): string {
  const parts: string[] = [];
  const stack: ElementContent[] = [...element.children].reverse();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'text') parts.push(next.value);
    else if (next.type === 'element') for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
  }
  return parts.join('');
}

/** Characters JS `\s` matches but HTML does not: the two collapses would differ, so not modeled. */
function isOtherWhitespace(code: number): boolean {
  return (
    code === 0x0b ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
/** Whitespace as the HTML minifier collapses it (not JS `\s`: a no-break space is text). */
function isHtmlWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0c || code === 0x0d;
}
function isAsciiLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}
function isAsciiAlphanumeric(code: number): boolean {
  return isAsciiLetter(code) || isDigit(code);
}
const LINE_FEED = 0x0a;
/** `*` or `_`: what strong (`**`) and emphasis (`_`) are written with. */
function isAttentionMarker(code: number): boolean {
  return code === 0x2a || code === 0x5f;
}
/** `[\-.\w]` (after an autolink literal's `@` or `.`), or `[+\-.\w]` (before an `@`). */
function isEmailCharacter(code: number, orPlus: boolean): boolean {
  return isAsciiAlphanumeric(code) || code === 0x5f || code === 0x2d || code === 0x2e || (orPlus && code === 0x2b);
}
function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 0x21 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e)
  );
}
const UNICODE_WHITESPACE = /\s/;
const UNICODE_PUNCTUATION = /\p{P}|\p{S}/u;
/**
 * Neither whitespace nor punctuation, as micromark classifies a UTF-16 code unit (the serializer's
 * test for an underscore inside a word): ASCII letters and digits, and most other characters.
 */
function isWordCharacter(code: number): boolean {
  if (code < 0x80) return isAsciiAlphanumeric(code);
  const character = String.fromCharCode(code);
  return !UNICODE_WHITESPACE.test(character) && !UNICODE_PUNCTUATION.test(character);
}

/**
 * Text as hast-util-to-mdast (whitespace runs collapsed to one space) and mdast-util-to-markdown
 * with GFM (escaping, in a paragraph) write it, ends untrimmed; undefined when not modeled (a
 * no-break or other non-HTML space). Escaped with a backslash as the serializer does: `* ~ [` and
 * `` ` `` always; `_` unless inside a word; `\` before punctuation and at the end; as render.ts's
 * entitySafe: `&` as `&amp;` where it starts a character reference, `<` as `&lt;` before `! / ?` or
 * a letter (a tag); `@` inside an
 * email-like word, `.` after `w` and `:` in `p:/`, `s:/` (GFM autolink literals); `(` right after
 * `]` (a link's destination). The serializer skips a conditional escape next to a character it
 * escapes anyway; here the only such neighbour is an underscore, left out of those conditions.
 * One pass, no regex.
 */
function textMarkdown(value: string, before = LINE_FEED, after = LINE_FEED): string | undefined {
  let out = '';
  let start = 0;
  // Where the last match of the `@` and of the `.` pattern ended (see below).
  let atConsumed = -1;
  let dotConsumed = -1;
  const length = value.length;
  for (let at = 0; at < length; at++) {
    const code = value.charCodeAt(at);
    if (code >= 0x7f) {
      if (isOtherWhitespace(code)) return undefined;
      continue;
    }
    if (isHtmlWhitespace(code)) {
      let end = at + 1;
      while (end < length && isHtmlWhitespace(value.charCodeAt(end))) end++;
      if (code !== 0x20 || end > at + 1) {
        out += `${value.slice(start, at)} `;
        start = end;
      }
      at = end - 1;
      continue;
    }
    let escape = false;
    switch (code) {
      case 0x5f /* _ */: {
        // A run of underscores inside a word (`snake_case`, `a__b`) cannot open or close emphasis:
        // left as it is; otherwise each one is escaped.
        let end = at + 1;
        while (end < length && value.charCodeAt(end) === 0x5f) end++;
        if (
          at > 0 &&
          isWordCharacter(value.charCodeAt(at - 1)) &&
          end < length &&
          isWordCharacter(value.charCodeAt(end)) &&
          // Next to an emphasis or strong marker, the letter beside the run may be written as a
          // character reference by that marker's serializer: the serializer does not count it.
          !(at === 1 && isAttentionMarker(before)) &&
          !(end === length - 1 && isAttentionMarker(after))
        ) {
          at = end - 1;
          continue;
        }
        for (; at < end; at++) {
          out += `${value.slice(start, at)}\\`;
          start = at;
        }
        at = end - 1;
        continue;
      }
      case 0x5c /* \ */: {
        // Before punctuation a backslash would escape it; at the end of the text the next character is
        // a code span's backtick or the line's end, where it would escape the newline: doubled there.
        const next = value.charCodeAt(at + 1);
        escape = at + 1 === length || isAsciiPunctuation(next);
        break;
      }
      case 0x2a /* * */:
      case 0x7e /* ~ */:
      case 0x5b /* [ */:
      case 0x60 /* ` */:
        escape = true;
        break;
      case 0x26 /* & */: {
        // Before `#` or a letter the serializer escapes it; render.ts writes `&amp;` there when it
        // starts a character reference (no character of one is ever escaped), else `&` as it is.
        const next = value.charCodeAt(at + 1);
        if ((next === 0x23 || isAsciiLetter(next)) && startsCharacterReference(value, at)) {
          out += `${value.slice(start, at)}&amp;`;
          start = at + 1;
        }
        continue;
      }
      case 0x3c /* < */: {
        // Where it could open a tag: `&lt;` (render.ts's entitySafe).
        const next = value.charCodeAt(at + 1);
        if (next === 0x21 || next === 0x2f || next === 0x3f || isAsciiLetter(next)) {
          out += `${value.slice(start, at)}&lt;`;
          start = at + 1;
        }
        continue;
      }
      // GFM autolink literals (an email's `@`, `www.`, `http:/`, `https:/`). An underscore next to
      // one of these is always escaped itself (punctuation is beside it), and the serializer then
      // leaves the other unescaped: hence `_` is not among the neighbours that call for an escape.
      // The serializer finds these with a regex that consumes the characters around each match, so
      // a match's next character cannot be the previous character of another.
      case 0x40 /* @ */: {
        const previous = at > 0 ? value.charCodeAt(at - 1) : before;
        const next = at + 1 < length ? value.charCodeAt(at + 1) : after;
        if (at - 1 >= atConsumed && isEmailCharacter(previous, true) && isEmailCharacter(next, false)) {
          atConsumed = at + 2;
          escape = !(at > 0 && previous === 0x5f) && !(at + 1 < length && next === 0x5f);
        }
        break;
      }
      case 0x3a /* : */: {
        const previous = value.charCodeAt(at - 1);
        escape = (previous === 0x70 || previous === 0x73) && value.charCodeAt(at + 1) === 0x2f;
        break;
      }
      case 0x2e /* . */: {
        const previous = value.charCodeAt(at - 1);
        const next = at + 1 < length ? value.charCodeAt(at + 1) : after;
        if (at - 1 >= dotConsumed && (previous === 0x57 || previous === 0x77) && isEmailCharacter(next, false)) {
          dotConsumed = at + 2;
          escape = !(at + 1 < length && next === 0x5f);
        }
        break;
      }
      case 0x28 /* ( */:
        escape = value.charCodeAt(at - 1) === 0x5d; /* ] */
        break;
      default:
    }
    if (escape) {
      out += `${value.slice(start, at)}\\`;
      start = at;
    }
  }
  return out === '' ? value : out + value.slice(start);
}

/** At the start of a line, characters that could start a block (escaped there, not modeled). */
const UNMODELED_LINE_START = /^(?:[#+\-=>:|_\\]|\d+[.)])/;

/** Inline content: text, a code span, or strong or emphasis holding text only. */
type Inline = { type: 'text' | 'code' | 'strong' | 'emphasis'; value: string };

/** hast-util-to-mdast's phrasing elements modeled here, each holding one text node. */
const MODELED_INLINES: Readonly<Record<string, Inline['type']>> = {
  code: 'code',
  strong: 'strong',
  b: 'strong',
  em: 'emphasis',
  i: 'emphasis',
};

/** Phrasing content (text, inline code, strong, emphasis) as inline items; false if some node is not modeled. */
function inlines(nodes: readonly ElementContent[], into: Inline[]): boolean {
  for (const node of nodes) {
    if (node.type === 'text') {
      into.push({ type: 'text', value: node.value });
    } else if (node.type === 'element' && Object.hasOwn(MODELED_INLINES, node.tagName)) {
      const only = node.children[0];
      if (node.children.length !== 1 || only?.type !== 'text' || Object.keys(node.properties).length > 0) return false;
      into.push({ type: MODELED_INLINES[node.tagName]!, value: only.value });
    } else {
      return false;
    }
  }
  return true;
}

/** What strong and emphasis are written with (render.ts's options: `**`, `_`). */
const ATTENTION_MARKER: Readonly<Record<string, string>> = { strong: '**', emphasis: '_' };

/** The last character that is not HTML whitespace, or -1. */
function lastContent(value: string): number {
  let at = value.length - 1;
  while (at >= 0 && isHtmlWhitespace(value.charCodeAt(at))) at--;
  return at;
}

/** The first character that is not HTML whitespace, or -1. */
function firstContent(value: string): number {
  for (let at = 0; at < value.length; at++) if (!isHtmlWhitespace(value.charCodeAt(at))) return at;
  return -1;
}

/** A code span as the serializer writes it, or undefined (backticks, edge spaces, non-HTML spaces: not modeled). */
function codeMarkdown(value: string): string | undefined {
  if (value.includes('`')) return undefined;
  for (let at = 0; at < value.length; at++) if (isOtherWhitespace(value.charCodeAt(at))) return undefined;
  const text = value.replace(/[ \t\n\f\r]+/g, ' ');
  if (text === '' || text.startsWith(' ') || text.endsWith(' ')) return undefined;
  return `\`${text}\``;
}

/**
 * A run of inline items as one paragraph's (or heading's) markdown, or undefined if not modeled.
 * A heading's text follows its `#` marks, never a line's start, so what could start a block there
 * needs no escape.
 */
function phrasingMarkdown(items: readonly Inline[], lineStart = true): string | undefined {
  // The run's ends are trimmed (the minifier drops whitespace at block edges); only text can start a block.
  let first = 0;
  while (first < items.length && items[first]!.type === 'text' && firstContent(items[first]!.value) < 0) first++;
  let last = items.length - 1;
  while (last >= first && items[last]!.type === 'text' && firstContent(items[last]!.value) < 0) last--;
  if (first > last) return undefined;
  // The character the serializer sees before the run: a line feed, or the space after a heading's `#`s.
  const runBefore = lineStart ? LINE_FEED : 0x20;
  // Each item's markdown; a text's escapes depend on the characters its neighbours are written with
  // (their first and last: a backtick, `*` or `_`), known from their kinds.
  const parts: string[] = [];
  for (let i = first; i <= last; i++) {
    const item = items[i]!;
    if (item.type === 'code') {
      const code = codeMarkdown(item.value);
      if (code === undefined) return undefined;
      parts.push(code);
      continue;
    }
    if (item.type !== 'text') {
      // Text inside strong or emphasis, between its markers; an edge space is moved out by the
      // converter (not modeled).
      const value = item.value;
      if (value === '' || firstContent(value) !== 0 || lastContent(value) !== value.length - 1) return undefined;
      const marker = ATTENTION_MARKER[item.type]!;
      const inner = textMarkdown(value, marker.charCodeAt(0), marker.charCodeAt(0));
      if (inner === undefined) return undefined;
      parts.push(`${marker}${inner}${marker}`);
      continue;
    }
    let value = item.value;
    if (i === first) {
      value = value.slice(firstContent(value));
      if (lineStart && UNMODELED_LINE_START.test(value)) return undefined;
    }
    // Trimmed before escaping: a backslash the trailing space followed is then at the line's end.
    if (i === last) value = value.slice(0, lastContent(value) + 1);
    const before = i === first ? runBefore : edgeCharacter(items[i - 1]!.type);
    const after = i === last ? LINE_FEED : edgeCharacter(items[i + 1]!.type);
    const text = textMarkdown(value, before, after);
    if (text === undefined) return undefined;
    parts.push(text);
  }
  // A marker between a letter and punctuation (or, for `_`, beside a letter) would not open or close
  // there: the serializer writes the character beside it as a character reference (not modeled).
  for (let i = first; i <= last; i++) {
    const type = items[i]!.type;
    if (!isAttention(type)) continue;
    // Two together: the serializer switches the second one's marker (not modeled).
    if (i > first && isAttention(items[i - 1]!.type)) return undefined;
    const part = parts[i - first]!;
    const marker = ATTENTION_MARKER[type]!.length;
    const outsideBefore = i === first ? runBefore : lastCharCode(parts[i - first - 1]!);
    const outsideAfter = i === last ? LINE_FEED : parts[i - first + 1]!.charCodeAt(0);
    if (
      encodesBeside(outsideBefore, part.charCodeAt(marker), type) ||
      encodesBeside(outsideAfter, part.charCodeAt(part.length - marker - 1), type)
    )
      return undefined;
  }
  return parts.join('');
}

/** The character an inline item of this kind starts and ends with when it is not text (two texts are never neighbours: the parser joins them). */
function edgeCharacter(type: Inline['type']): number {
  if (type === 'code') return 0x60;
  if (type === 'strong') return 0x2a;
  return type === 'emphasis' ? 0x5f : LINE_FEED;
}

function isAttention(type: Inline['type']): type is 'strong' | 'emphasis' {
  return type === 'strong' || type === 'emphasis';
}

function lastCharCode(text: string): number {
  return text.charCodeAt(text.length - 1);
}

/**
 * mdast-util-to-markdown's encodeInfo: whether a marker between `outside` and `inside` needs a
 * character reference on either side to work (`*`: a letter outside, punctuation inside; `_`: a
 * letter outside). Whitespace inside is never modeled (see phrasingMarkdown).
 */
function encodesBeside(outside: number, inside: number, type: 'strong' | 'emphasis'): boolean {
  if (!isWordCharacter(outside)) return false;
  return type === 'emphasis' || !isWordCharacter(inside);
}

const PHRASING_TAGS = new Set(['code']);

function isPhrasing(node: ElementContent): boolean {
  return node.type === 'text' || (node.type === 'element' && PHRASING_TAGS.has(node.tagName));
}

function isBlank(node: ElementContent): boolean {
  return node.type === 'text' && firstContent(node.value) < 0;
}

/** Languages written in a fence's info string as they are (anything else is escaped or encoded there: not modeled). */
const PLAIN_LANGUAGE = /^[A-Za-z0-9_+.-]*$/;

/**
 * A <pre> as a fenced code block (hast-util-to-mdast: the text verbatim, trailing line feeds
 * dropped, the language from a `language-*` class of its <code>; mdast-util-to-markdown: a fence
 * longer than any backtick run), for a <pre> holding text or one <code> holding text; else undefined.
 */
function codeBlockMarkdown(pre: Element): string | undefined {
  if (Object.keys(pre.properties).length > 0 || pre.children.length !== 1) return undefined;
  const only = pre.children[0]!;
  let text: string;
  let language = '';
  if (only.type === 'text') {
    text = only.value;
  } else if (only.type === 'element' && only.tagName === 'code') {
    const { className, ...rest } = only.properties;
    if (Object.keys(rest).length > 0 || only.children.length > 1) return undefined;
    const inner = only.children[0];
    if (inner !== undefined && inner.type !== 'text') return undefined;
    text = inner?.value ?? '';
    if (className !== undefined) {
      if (!Array.isArray(className)) return undefined;
      const found = className.find((name) => String(name).startsWith('language-'));
      language = found === undefined ? '' : String(found).slice('language-'.length);
    }
  } else {
    return undefined;
  }
  // Written as an indented block by render.ts (needsIndentedCode): not modeled.
  if (!PLAIN_LANGUAGE.test(language) || needsIndentedCode(text)) return undefined;
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end--;
  const body = text.slice(0, end);
  const fence = '`'.repeat(Math.max(longestRun(body, '`') + 1, 3));
  return `${fence}${language}\n${body === '' ? '' : `${body}\n`}${fence}`;
}

/** A list's markdown: one line per item (items hold phrasing only), or undefined. */
function listMarkdown(items: readonly Element[], ordered: boolean): string | undefined {
  if (items.length === 0) return undefined;
  const lines: string[] = [];
  for (const [index, item] of items.entries()) {
    if (Object.keys(item.properties).length > 0) return undefined;
    const content: Inline[] = [];
    if (!inlines(item.children, content)) return undefined;
    const text = phrasingMarkdown(content);
    if (text === undefined) return undefined;
    lines.push(`${ordered ? `${index + 1}.` : '-'} ${text}`);
  }
  return lines.join('\n');
}

/** Flow content as markdown blocks (each block's markdown), or undefined when a shape is not modeled. */
function flowBlocks(children: readonly ElementContent[]): Array<{ paragraph: boolean; markdown: string }> | undefined {
  const blocks: Array<{ paragraph: boolean; markdown: string; list?: boolean }> = [];
  let run: ElementContent[] = [];
  let bareItems: Element[] = [];
  const flushRun = (): boolean => {
    if (run.length === 0) return true;
    const nodes = run;
    run = [];
    if (nodes.every(isBlank)) return true;
    const content: Inline[] = [];
    if (!inlines(nodes, content)) return false;
    const markdown = phrasingMarkdown(content);
    if (markdown === undefined) return false;
    blocks.push({ paragraph: true, markdown });
    return true;
  };
  const pushList = (markdown: string | undefined): boolean => {
    // Two lists in a row: the serializer switches bullets for the second; not modeled.
    if (markdown === undefined || blocks[blocks.length - 1]?.list) return false;
    blocks.push({ paragraph: false, markdown, list: true });
    return true;
  };
  const flushItems = (): boolean => {
    if (bareItems.length === 0) return true;
    const items = bareItems;
    bareItems = [];
    return pushList(listMarkdown(items, false));
  };
  for (const child of children) {
    // <li>s written directly in the element become a list (render.ts's wrapBareListItems); blank text between them is dropped.
    if (child.type === 'element' && child.tagName === 'li') {
      if (!flushRun()) return undefined;
      bareItems.push(child);
      continue;
    }
    if (bareItems.length > 0 && isBlank(child)) continue;
    if (!flushItems()) return undefined;
    if (isPhrasing(child)) {
      run.push(child);
      continue;
    }
    if (!flushRun()) return undefined;
    if (child.type !== 'element' || Object.keys(child.properties).length > 0) return undefined;
    const tag = child.tagName;
    if (tag === 'p') {
      const content: Inline[] = [];
      if (!inlines(child.children, content)) return undefined;
      const markdown = phrasingMarkdown(content);
      if (markdown === undefined) return undefined;
      blocks.push({ paragraph: true, markdown });
    } else if (HEADINGS.has(tag)) {
      const content: Inline[] = [];
      if (!inlines(child.children, content)) return undefined;
      const markdown = phrasingMarkdown(content, false);
      if (markdown === undefined || markdown.endsWith('#')) return undefined;
      blocks.push({ paragraph: false, markdown: `${'#'.repeat(Number(tag.slice(1)))} ${markdown}` });
    } else if (tag === 'pre') {
      const markdown = codeBlockMarkdown(child);
      if (markdown === undefined) return undefined;
      blocks.push({ paragraph: false, markdown });
    } else if (tag === 'ul' || tag === 'ol') {
      const items: Element[] = [];
      for (const item of child.children) {
        if (item.type === 'element' && item.tagName === 'li') items.push(item);
        else if (!isBlank(item)) return undefined;
      }
      if (!pushList(listMarkdown(items, tag === 'ol'))) return undefined;
    } else {
      return undefined;
    }
  }
  if (!flushItems() || !flushRun()) return undefined;
  return blocks;
}

/** render.ts's contentMarkdown, for the modeled shapes. */
function contentMarkdown(children: readonly ElementContent[]): { lead: string; body: string } | undefined {
  if (children.every((child) => child.type === 'text')) {
    const text = collapseWhitespace(children.map((child) => (child as Text).value).join('')).trim();
    if (!MARKDOWN_SIGNIFICANT.test(text)) return { lead: text, body: '' };
  }
  const blocks = flowBlocks(children);
  if (blocks === undefined) return undefined;
  const serialize = (list: typeof blocks) => list.map((b) => b.markdown).join('\n\n');
  const [first, ...rest] = blocks;
  return first?.paragraph ? { lead: first.markdown, body: serialize(rest) } : { lead: '', body: serialize(blocks) };
}

function renderChild(child: Element): string | undefined {
  const tag = child.tagName;
  if (tag === 'bv-pattern') return `${labelFor(tag, attributesOf(child))} ${inlineCode(rawText(child).trim())}`;
  if (tag === 'bv-diagram') {
    const attributes = attributesOf(child);
    const title = markdownInline(attributes.get('title') ?? '');
    return `**Diagram:**${title ? ` ${title}` : ''}\n\n${fenced(rawText(child), fenceLanguage(attributes.get('type')))}`;
  }
  if (!LABELS.has(tag)) return undefined;
  const content = contentMarkdown(tag === 'bv-files' ? filesAsCode(child.children) : child.children);
  if (content === undefined) return undefined;
  return compose(labelFor(tag, attributesOf(child)), content.lead, content.body, BULLETED.has(tag));
}

/** No lone surrogate (String.prototype.isWellFormed: Node 20, not yet in TypeScript's ES2023 lib). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** renderTopicMarkdown's output for a scanned topic, or undefined when some content is not modeled. */
function fastTopicMarkdown(topic: Element): string | undefined {
  const blocks = topicHeaderBlocks(attributesOf(topic));
  for (const child of topic.children) {
    if (child.type !== 'element') {
      if (!isBlank(child)) return undefined;
      continue;
    }
    const block = renderChild(child);
    if (block === undefined) return undefined;
    blocks.push(block);
  }
  return joinBlocks(blocks);
}

/**
 * `blobDocument(html)` (document.ts) for a blob in canonical form, computed without the HTML
 * toolchain; `undefined` means "not sure: take the full path". Blobs over the size limit get the
 * full path's verdict here (it needs no parse).
 */
export function fastBlobDocument(html: string): CachedBlob | undefined {
  const topic = scanned(html);
  if (topic === undefined || !('type' in topic)) return topic;
  const markdown = fastTopicMarkdown(topic);
  if (markdown === undefined) return undefined;
  return { ...extractDocument(topic), markdown, text: topicPlainText(topic) };
}

/**
 * What `fastBlobDocument` answers but the markdown: the index document's fields and facts (or the
 * blob's problem), `undefined` when the scan is not sure. For the first query of a tree with no
 * index (tree-index.ts, `scan`), which renders only the topics it returns. Extraction reads the
 * hast the scan built, which is the full path's (test/query/fast-extract.test.ts checks both paths
 * agree wherever the scan answers, the markdown bailing or not).
 */
export function fastBlobFields(html: string): BlobFields | BlobProblem | undefined {
  const topic = scanned(html);
  if (topic === undefined || !('type' in topic)) return topic;
  return extractDocument(topic);
}

/** The topic element the scan reads from a canonical blob, a too-large verdict, or undefined (not modeled). */
function scanned(html: string): Element | BlobProblem | undefined {
  // UTF-8 never has fewer bytes than UTF-16 code units: a long string is refused without encoding it.
  const bytes = html.length > MAX_STORED_TOPIC_BYTES ? html.length : Buffer.byteLength(html);
  if (bytes > MAX_STORED_TOPIC_BYTES) {
    return { problem: 'too-large', message: `The blob is ${bytes} bytes; topics are at most ${MAX_STORED_TOPIC_BYTES} bytes.` };
  }
  if (UNMODELED_CHARACTERS.test(html) || !isWellFormed(html)) return undefined;
  return scanCanonicalTopic(html);
}
