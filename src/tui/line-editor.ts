// The prompt's line: text and caret, edited by key. Pure: the App maps Ink's keys to these edits.

export interface Line {
  text: string;
  /** The caret, as an index into `text` (0 … text.length). */
  cursor: number;
}

export type LineEdit =
  | { type: 'insert'; text: string }
  /** `count` characters before the caret (several Backspaces read as one chunk); one when absent. */
  | { type: 'backspace'; count?: number }
  | { type: 'delete' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'word-left' }
  | { type: 'word-right' }
  | { type: 'home' }
  | { type: 'end' }
  /** Ctrl-U: everything before the caret. */
  | { type: 'kill-before' }
  /** Ctrl-K: everything after the caret. */
  | { type: 'kill-after' }
  /** Ctrl-W: the word before the caret. */
  | { type: 'kill-word' }
  | { type: 'set'; text: string };

export const EMPTY_LINE: Line = { text: '', cursor: 0 };

/** The longest line the prompt takes (a paste of a whole file is cut here). */
export const MAX_LINE = 4000;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Pasted or typed text as one line: newlines and tabs become spaces, other control characters go. */
/**
 * How many Backspaces `input` is when it is nothing else: a terminal sends DEL (or BS) for each, and
 * ink reads a lone one as the key but several that arrive in one read (a held key on a busy machine)
 * as text, which `cleanInput` would drop. 0 for anything else.
 */
export function backspacesIn(input: string): number {
  return /^[\u007f\b]+$/.test(input) ? input.length : 0;
}

export function cleanInput(text: string): string {
  return text.replace(/\r\n|[\r\n\t]/g, ' ').replace(CONTROL, '');
}

const isSpace = (c: string | undefined): boolean => c === ' ';

function wordStartBefore(text: string, at: number): number {
  let i = at;
  while (i > 0 && isSpace(text[i - 1])) i--;
  while (i > 0 && !isSpace(text[i - 1])) i--;
  return i;
}

function wordEndAfter(text: string, at: number): number {
  let i = at;
  while (i < text.length && isSpace(text[i])) i++;
  while (i < text.length && !isSpace(text[i])) i++;
  return i;
}

export function editLine(line: Line, edit: LineEdit): Line {
  const { text, cursor } = line;
  switch (edit.type) {
    case 'insert': {
      const added = cleanInput(edit.text).slice(0, Math.max(0, MAX_LINE - text.length));
      return { text: text.slice(0, cursor) + added + text.slice(cursor), cursor: cursor + added.length };
    }
    case 'backspace': {
      const erased = Math.min(cursor, edit.count ?? 1);
      return erased === 0 ? line : { text: text.slice(0, cursor - erased) + text.slice(cursor), cursor: cursor - erased };
    }
    case 'delete':
      return cursor >= text.length ? line : { text: text.slice(0, cursor) + text.slice(cursor + 1), cursor };
    case 'left':
      return { text, cursor: Math.max(0, cursor - 1) };
    case 'right':
      return { text, cursor: Math.min(text.length, cursor + 1) };
    case 'word-left':
      return { text, cursor: wordStartBefore(text, cursor) };
    case 'word-right':
      return { text, cursor: wordEndAfter(text, cursor) };
    case 'home':
      return { text, cursor: 0 };
    case 'end':
      return { text, cursor: text.length };
    case 'kill-before':
      return { text: text.slice(cursor), cursor: 0 };
    case 'kill-after':
      return { text: text.slice(0, cursor), cursor };
    case 'kill-word': {
      const start = wordStartBefore(text, cursor);
      return { text: text.slice(0, start) + text.slice(cursor), cursor: start };
    }
    case 'set': {
      const clean = cleanInput(edit.text).slice(0, MAX_LINE);
      return { text: clean, cursor: clean.length };
    }
  }
}
