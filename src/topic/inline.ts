import { collapseWhitespace } from './whitespace.js';

/**
 * Escaping for markdown built from strings (attribute values, titles): no library code, so front
 * ends that print a title next to rendered markdown can use it without loading the renderer.
 */

// Control characters other than \t and \n (C0, DEL, C1): terminal escapes must never reach a terminal or an agent.
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Where an attribute-derived string goes: mid-line, a heading's text, or the start of a line (in a quote). */
export type InlineContext = 'inline' | 'heading' | 'line-start';

/**
 * An attribute-derived string as inline markdown text: whitespace (newlines included) folded to one
 * space, and every character that could start markup escaped, so a value never becomes raw HTML, a
 * link, emphasis or a new block in any common renderer. A backslash escapes ASCII punctuation in
 * CommonMark, but the Markdown.pl family (showdown, Python-Markdown) does not honour it before `<`:
 * a `<` that could open a tag, comment or instruction is written `&lt;`, and an `&` that would start
 * a character reference `&amp;`, which every renderer reads back as the character. Characters that
 * are markup only in some positions are escaped only there, so ordinary values ("access_token_ttl",
 * "[draft] notes", "R&D", "a < b") read as written.
 */
export function markdownInline(value: string, context: InlineContext = 'inline'): string {
  const text = collapseWhitespace(value).trim().replace(CONTROL, '\uFFFD');
  if (!INLINE_SIGNIFICANT.test(text)) return text;
  let result = '';
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '<' && (at + 1 === text.length || TAG_OPENER.test(text[at + 1]!))) {
      result += '&lt;'; // the end too: whatever is written next to the value could open a tag
      continue;
    }
    if (char === '&' && startsCharacterReference(text, at)) {
      result += '&amp;'; // "R&D" is text
      continue;
    }
    let escape = ALWAYS_ESCAPED.has(char);
    if (char === '_')
      escape = !(WORD.test(text[at - 1] ?? '') && WORD.test(text[at + 1] ?? '')); // intraword _ is literal
    // Without definitions (none can be written: a "[" starting a line is escaped), "[" opens a link
    // only with a "](" or "][" after it; showdown also takes "] (" for a link. "]:" makes a
    // definition only where the "[" starts a line: the value's start, which the caller may put
    // there ("[must]: …" mid-value stays as written).
    // At the end too: what is written after the value may be one of those, or " (".
    else if (char === ']')
      escape =
        at + 1 === text.length ||
        '(['.includes(text[at + 1]!) ||
        (text[at + 1] === ':' && text[0] === '[') ||
        (text[at + 1] === ' ' && text[at + 2] === '(');
    else if (char === '#' && context === 'heading')
      escape = at === 0 || text[at - 1] === ' '; // a closing sequence
    else if (at === 0 && context === 'line-start') escape ||= LINE_START.has(char); // a list, quote, rule, heading, definition
    result += escape ? `\\${char}` : char;
  }
  // "1. x" / "2) x" would start an ordered list at the start of a line.
  return context === 'line-start' ? result.replace(/^(\d+)([.)])/, '$1\\$2') : result;
}

const ALWAYS_ESCAPED = new Set(['\\', '`', '*', '|', '~']);
/** After a `<`, what could make it a tag (`a`), an end tag (`/`), a comment or declaration (`!`), an instruction (`?`). */
const TAG_OPENER = /[!/?A-Za-z]/;
const LINE_START = new Set(['-', '+', '>', '=', '#', '[']);
const INLINE_SIGNIFICANT = /[\\`*_\]<|~&#]|^[-+>=[]|^\d+[.)]/;
const WORD = /[\p{L}\p{N}]/u;
/**
 * Whether an `&` at `at` starts what some renderer reads as a character reference: CommonMark's
 * (a name, or up to 7 digits, 6 hex digits) and the Markdown.pl family's looser `&[#x]alnum;`.
 * Such an `&` is written `&amp;`, which all of them read back as `&`.
 */
export function startsCharacterReference(text: string, at: number): boolean {
  return CHARACTER_REFERENCE.test(text.slice(at, at + 36));
}
const CHARACTER_REFERENCE = /^&(?:#[xX][\da-fA-F]{1,32}|#\d{1,32}|[A-Za-z\d]{1,32});/;

/**
 * A URL as a link or image destination that every renderer reads as that URL and never as HTML:
 * every character outside a conservative set is percent-encoded as UTF-8 (`<`, `>`, quotes,
 * parentheses, backslash, backtick, space, `[]{}|^`, controls, anything non-ASCII; a lone surrogate
 * as U+FFFD), a `%` not followed by two hex digits is `%25`, and an `&` that would start a
 * character reference is `&amp;` (read back as `&` by every renderer, and by the browser when a
 * renderer copies it into the attribute as it is). What is left needs neither the `<…>` form nor a
 * backslash escape: `mdast-util-to-markdown` writes `url: '<script>…'` bare, and marked, markdown-it
 * and micromark then read a `<script>` element there; the Markdown.pl family does not honour
 * backslash escapes in destinations at all.
 */
export function markdownDestination(url: string): string {
  let result = '';
  for (let at = 0; at < url.length; at++) {
    const code = url.charCodeAt(at);
    const char = url[at]!;
    if (code < 0x80 && DESTINATION_SAFE.test(char)) {
      result += char;
    } else if (char === '%') {
      result += HEX_PAIR.test(url.slice(at + 1, at + 3)) ? '%' : '%25';
    } else if (char === '&') {
      result += startsCharacterReference(url, at) ? '&amp;' : '&';
    } else if (code < 0x80) {
      result += percent(code);
    } else {
      let point = url.codePointAt(at)!;
      if (point > 0xffff) at++;
      else if (point >= 0xd800 && point <= 0xdfff) point = 0xfffd; // a lone surrogate
      for (const byte of utf8(point)) result += percent(byte);
    }
  }
  return result;
}

/** Characters a destination keeps as they are (RFC 3986's unreserved and most reserved ones; `&` and `%` apart). */
const DESTINATION_SAFE = /[A-Za-z0-9\-._~:/?#@!$*+,;=]/;
const HEX_PAIR = /^[\da-fA-F]{2}$/;

function percent(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

function utf8(point: number): number[] {
  if (point < 0x800) return [0xc0 | (point >> 6), 0x80 | (point & 0x3f)];
  if (point < 0x10000) return [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f)];
  return [0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f)];
}
