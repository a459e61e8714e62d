import { createHash } from 'node:crypto';

/** One contiguous replacement in a text: `length` characters at `offset` become `text`. */
export interface TextEdit {
  offset: number;
  length: number;
  text: string;
}

export function applyEdit(content: string, edit: TextEdit): string {
  return content.slice(0, edit.offset) + edit.text + content.slice(edit.offset + edit.length);
}

/** Applies several non-overlapping edits (any order). */
export function applyEdits(content: string, edits: readonly TextEdit[]): string {
  let result = content;
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) result = applyEdit(result, edit);
  return result;
}

/**
 * The edit that turns `after` back into `before`: the span between their common prefix and suffix.
 * Recorded at install, so uninstall gives back the exact bytes when nothing else changed the file.
 */
export function undoEdit(before: string, after: string): TextEdit {
  let prefix = 0;
  const max = Math.min(before.length, after.length);
  while (prefix < max && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  return { offset: prefix, length: after.length - prefix - suffix, text: before.slice(prefix, before.length - suffix) };
}

export function sha256(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/**
 * Appends a block of lines (no final newline in `block`) at the end of a file, after one blank line.
 * `removeAppended` is its exact inverse, whether or not the file ended with a newline.
 */
export function appendBlock(content: string, block: string): string {
  if (content === '') return `${block}\n`;
  return content.endsWith('\n') ? `${content}\n${block}\n` : `${content}\n\n${block}`;
}

/**
 * Removes the span [start, end) that holds a block added by `appendBlock` (or moved since), with
 * the separator `appendBlock` put around it; blocks in the middle of a file take one blank line with them.
 */
export function removeSpan(content: string, start: number, end: number): string {
  const before = content.slice(0, start);
  const after = content.slice(end);
  if (after === '') return before.endsWith('\n\n') ? before.slice(0, -2) : before;
  if (after === '\n') return before.endsWith('\n\n') ? before.slice(0, -1) : before;
  let rest = after.startsWith('\n') ? after.slice(1) : after;
  if ((before === '' || before.endsWith('\n\n')) && rest.startsWith('\n')) rest = rest.slice(1);
  return before + rest;
}

/** `\r\n` when the text uses it, else `\n`. */
export function lineEnding(content: string): string {
  return content.includes('\r\n') ? '\r\n' : '\n';
}

/** Start offset of the line holding `offset`. */
export function lineStart(content: string, offset: number): number {
  return content.lastIndexOf('\n', offset - 1) + 1;
}

/** Whether only spaces and tabs precede `offset` on its line. */
export function startsLine(content: string, offset: number): boolean {
  return /^[ \t]*$/.test(content.slice(lineStart(content, offset), offset));
}

/** Structural equality for parsed configuration values (any prototype, key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || b instanceof Date) return String(a) === String(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameValue(item, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    if (keysA.length !== keysB.length) return false;
    return keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameValue((a as any)[key], (b as any)[key]));
  }
  return false;
}

/** Whether `actual` has every field of `wanted` with the same value (extra fields a user added are fine). */
export function includesFields(actual: unknown, wanted: Readonly<Record<string, unknown>>): boolean {
  if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(wanted).every(([key, value]) => sameValue((actual as Record<string, unknown>)[key], value));
}

/** A key path for people: `mcpServers.brv`, quoting keys that hold dots (`"amp.mcpServers".brv`). */
export function displayKey(key: readonly (string | number)[]): string {
  return key.map((part) => (typeof part === 'string' && /[.\s"]/.test(part) ? JSON.stringify(part) : String(part))).join('.');
}
