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
 * space, and every character that could start markup backslash-escaped (CommonMark allows a backslash
 * before any ASCII punctuation), so a value never becomes raw HTML, a link, emphasis or a new block.
 * Characters that are markup only in some positions are escaped only there, so ordinary values
 * ("access_token_ttl", "[draft] notes", "R&D") read as written.
 */
export function markdownInline(value: string, context: InlineContext = 'inline'): string {
  const text = collapseWhitespace(value).trim().replace(CONTROL, '\uFFFD');
  if (!INLINE_SIGNIFICANT.test(text)) return text;
  let result = '';
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    let escape = ALWAYS_ESCAPED.has(char);
    if (char === '_')
      escape = !(WORD.test(text[at - 1] ?? '') && WORD.test(text[at + 1] ?? '')); // intraword _ is literal
    else if (char === '&')
      escape = CHARACTER_REFERENCE.test(text.slice(at, at + 40)); // "R&D" is text
    // Without definitions (none can be written: a "[" starting a line is escaped), "[" opens a link
    // only with a "](", "][" or "]:" after it.
    else if (char === ']') escape = '([:'.includes(text[at + 1] ?? ' ');
    else if (char === '#' && context === 'heading')
      escape = at === 0 || text[at - 1] === ' '; // a closing sequence
    else if (at === 0 && context === 'line-start') escape ||= LINE_START.has(char); // a list, quote, rule, heading, definition
    result += escape ? `\\${char}` : char;
  }
  // "1. x" / "2) x" would start an ordered list at the start of a line.
  return context === 'line-start' ? result.replace(/^(\d+)([.)])/, '$1\\$2') : result;
}

const ALWAYS_ESCAPED = new Set(['\\', '`', '*', '<', '|', '~']);
const LINE_START = new Set(['-', '+', '>', '=', '#', '[']);
const INLINE_SIGNIFICANT = /[\\`*_\]<|~&#]|^[-+>=[]|^\d+[.)]/;
const WORD = /[\p{L}\p{N}]/u;
const CHARACTER_REFERENCE = /^&(?:#\d{1,7}|#[xX][\da-fA-F]{1,6}|[A-Za-z][A-Za-z\d]{0,31});/;
