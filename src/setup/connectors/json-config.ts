// The ES module build: esbuild cannot bundle the package's UMD entry (its require is a parameter).
import {
  applyEdits as applyJsonEdits,
  findNodeAtLocation,
  format,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type JSONPath,
  type Node,
  type ParseError,
} from 'jsonc-parser/lib/esm/main.js';
import { BrvError } from '../../base/errors.js';
import { applyEdits, displayKey, lineEnding, lineStart, sameValue, startsLine, type TextEdit } from './text.js';

// Edits JSON and JSONC configuration files as text: brv inserts or removes only its own member, in
// the file's own indentation and line endings, so comments, formatting and other entries are kept
// byte for byte. Insertions and replacements are jsonc-parser's own edits (`modify`), formatted with
// its `format` over the inserted text only; removal is brv's (see removeMember for why). Every result
// is parsed again and compared with the value it must have before anything is written.

type Key = string | number;

interface Parsed {
  /** undefined for an empty (or whitespace-only) file. */
  root: Node | undefined;
  /** A byte order mark the file starts with, kept out of the parser's way. */
  bom: string;
  body: string;
}

function parse(content: string, file: string): Parsed {
  const bom = content.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = content.slice(bom.length);
  if (body.trim() === '') return { root: undefined, bom, body };
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length > 0 || !root) {
    const first = errors[0];
    const where = first ? ` (${printParseErrorCode(first.error)} at line ${body.slice(0, first.offset).split('\n').length})` : '';
    throw new BrvError('config-malformed', `${file} is not valid JSON${where}; brv left it untouched. Fix it, then run the command again.`);
  }
  if (root.type !== 'object') throw new BrvError('config-malformed', `${file} does not hold a JSON object; brv left it untouched.`);
  return { root, bom, body };
}

/** The value at `key` in a JSON(C) file, or undefined. Throws `config-malformed`. */
export function jsonGet(content: string, file: string, key: readonly Key[]): unknown {
  const { root } = parse(content, file);
  if (!root) return undefined;
  const node = findNodeAtLocation(root, [...key]);
  return node ? getNodeValue(node) : undefined;
}

/** The whole parsed value of a JSON(C) file ({} when empty). */
function jsonValue(content: string, file: string): unknown {
  const { root } = parse(content, file);
  return root ? getNodeValue(root) : {};
}

function indentUnit(body: string): string {
  const match = /^([ \t]+)["}\]{[]/m.exec(body);
  if (!match) return '  ';
  return match[1]!.startsWith('\t') ? '\t' : match[1]!;
}

/** Skips whitespace and comments from `offset`; returns the offset of the next token. */
function skipTrivia(text: string, offset: number): number {
  let i = offset;
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) i++;
    else if (text.startsWith('//', i)) {
      const newline = text.indexOf('\n', i);
      i = newline < 0 ? text.length : newline + 1;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? text.length : close + 2;
    } else break;
  }
  return i;
}

/**
 * The file's style as jsonc-parser's formatting options: its indentation unit and line endings. A
 * tab-indented file is formatted with tabs whatever the tab size (jsonc-parser counts levels in it).
 */
function formatting(body: string): FormattingOptions {
  const unit = indentUnit(body);
  return { insertSpaces: unit !== '\t', tabSize: unit === '\t' ? 4 : unit.length, eol: lineEnding(body) };
}

function end(node: Node): number {
  return node.offset + node.length;
}

/**
 * `body` with `value` at `path`, by jsonc-parser's `modify`. Not with modify's own formatting: it
 * formats every whole line the edit touches, so inserting after `"x": { "a": 1 }` re-wrapped that
 * other server over three lines. The inserted text alone is formatted instead (`format` only edits
 * whitespace inside its range), or, when `container` was empty, that container (its braces included,
 * so the new member gets lines of its own). `multiline` false keeps a one-line container on one line.
 */
function modifyText(body: string, path: JSONPath, value: unknown, multiline: boolean, container?: Node): string {
  const edits = modify(body, path, value, { isArrayInsertion: true });
  if (!multiline) {
    // One line: modify's `,"brv": {…}` gets the space after the comma that such lines usually have.
    return applyJsonEdits(
      body,
      edits.map((e) => (e.content.startsWith(',') ? { ...e, content: `, ${e.content.slice(1)}` } : e)),
    );
  }
  const after = applyJsonEdits(body, edits);
  if (edits.length !== 1) return after;
  const edit = edits[0]!;
  const grown = edit.content.length - edit.length;
  const range =
    container && (container.children ?? []).length === 0
      ? { offset: container.offset, length: container.length + grown }
      : { offset: edit.offset, length: edit.content.length };
  return applyJsonEdits(after, format(after, range, formatting(body)));
}

/** Whether a container's members are on lines of their own (an empty one gets them so). */
function isMultiline(body: string, container: Node): boolean {
  const first = container.children?.[0];
  return first === undefined || startsLine(body, first.offset);
}

/**
 * The edits removing one member of an object or array, comments and other members kept: whole lines
 * when the member has its own lines, and the comma that separated it.
 *
 * Not jsonc-parser's `modify(text, path, undefined)`: it removes from the end of the member before
 * to the end of this one, so a comment between them goes too — `{\n  "a": 1, // keep\n  "brv": {}\n}`
 * became `{\n  "a": 1\n}` — and without formatting options a first member took the line break before
 * the next with it (`{\n  "brv": {},\n  "a": 1\n}` became `{"a": 1\n}`); with them, the lines around
 * are re-formatted. Uninstall must give back the user's bytes, so this stays brv's.
 */
function removeMember(body: string, container: Node, index: number): TextEdit[] {
  const children = container.children ?? [];
  const target = children[index]!;
  const previous = children[index - 1];
  const isLast = index === children.length - 1;
  const afterTarget = skipTrivia(body, end(target));
  const ownComma = body[afterTarget] === ',' ? afterTarget : undefined;
  let stop = ownComma !== undefined ? ownComma + 1 : end(target);
  const edits: TextEdit[] = [];
  const open = container.offset;
  const close = end(container) - 1;
  if (children.length === 1 && (body.slice(open + 1, target.offset) + body.slice(stop, close)).trim() === '') {
    return [{ offset: open + 1, length: close - open - 1, text: '' }]; // the only member: `{}` / `[]`
  }
  let start = target.offset;
  const restOfLine = /^[ \t]*(\r?\n|$)/.exec(body.slice(stop));
  if (startsLine(body, target.offset) && restOfLine) {
    start = lineStart(body, target.offset);
    stop += restOfLine[0].length;
  } else if (startsLine(body, target.offset) && ownComma !== undefined && lineStart(body, target.offset) > open + 1) {
    // `"brv": {…}, // a comment` on its own line: the comment goes back to the end of the line before
    start = lineStart(body, target.offset) - 1;
    if (body[start - 1] === '\r') start--;
  } else if (previous && isLast && ownComma === undefined) {
    // `…, "brv": {…} }` on one line: take the separating comma and the space before the member
    start = end(previous);
  } else if (ownComma !== undefined) {
    while (body[stop] === ' ' || body[stop] === '\t') stop++; // `"brv": {…}, ` in the middle of a line
  }
  edits.push({ offset: start, length: stop - start, text: '' });
  if (previous && isLast && ownComma === undefined && start !== end(previous)) {
    // the member before becomes the last: drop its separating comma (strict JSON readers refuse a trailing one)
    const comma = skipTrivia(body, end(previous));
    if (body[comma] === ',') edits.push({ offset: comma, length: 1, text: '' });
  }
  return edits;
}

function propertyIndex(object: Node, key: string): number {
  return (object.children ?? []).findIndex((property) => property.children?.[0]?.value === key);
}

/** Checks that `after` parses to exactly `expected`, so a wrong edit is never written. */
function verify(after: string, file: string, expected: unknown): void {
  let actual: unknown;
  try {
    actual = jsonValue(after, file);
  } catch {
    actual = Symbol('unparsable');
  }
  if (!sameValue(actual, expected)) {
    throw new BrvError('config-conflict', `brv could not edit ${file} safely, so it left the file untouched; edit it by hand.`);
  }
}

function setIn(value: unknown, key: readonly Key[], leaf: unknown): unknown {
  if (key.length === 0) return leaf;
  const [head, ...rest] = key;
  const base = value && typeof value === 'object' ? value : {};
  const copy: any = Array.isArray(base) ? [...base] : { ...base };
  copy[head as any] = setIn(copy[head as any], rest, leaf);
  return copy;
}

function deleteIn(value: unknown, key: readonly Key[]): unknown {
  const [head, ...rest] = key;
  if (!value || typeof value !== 'object') return value;
  if (rest.length === 0) {
    if (Array.isArray(value)) return value.filter((_, i) => i !== head);
    const { [head as string]: _removed, ...others } = value as Record<string, unknown>;
    return others;
  }
  const copy: any = Array.isArray(value) ? [...value] : { ...value };
  copy[head as any] = deleteIn(copy[head as any], rest);
  return copy;
}

export interface JsonSetResult {
  content: string;
  /** The outermost key brv created (the rest of `key` did not exist before), for uninstall to prune. */
  created: string[] | undefined;
}

/**
 * `content` with `value` at `key` (objects created as needed). A new member goes after the last one
 * of its object in the file's style; an existing one has its value replaced.
 */
export function jsonSet(content: string, file: string, key: readonly string[], value: unknown): JsonSetResult {
  const { root, bom, body } = parse(content, file);
  const expected = setIn(root ? getNodeValue(root) : {}, key, value);
  if (!root) {
    const text = `${JSON.stringify(setIn({}, key, value), null, 2)}\n`;
    return { content: bom + text, created: [key[0]!] };
  }
  let object = root;
  for (let depth = 0; depth < key.length; depth++) {
    const index = propertyIndex(object, key[depth]!);
    if (index < 0) {
      const after = bom + modifyText(body, [...key], value, isMultiline(body, object), object);
      verify(after, file, expected);
      return { content: after, created: key.slice(0, depth + 1) };
    }
    const child = object.children![index]!.children![1]!;
    if (depth === key.length - 1) {
      const multiline = body.slice(child.offset, end(child)).includes('\n') || startsLine(body, object.children![index]!.offset);
      const after = bom + modifyText(body, [...key], value, multiline);
      verify(after, file, expected);
      return { content: after, created: undefined };
    }
    if (child.type !== 'object') {
      throw new BrvError(
        'config-conflict',
        `${file}: ${displayKey(key.slice(0, depth + 1))} is not an object; brv left the file untouched.`,
      );
    }
    object = child;
  }
  throw new Error('unreachable');
}

/** `content` with `item` appended to the array at `key` (created when missing). */
export function jsonAppend(content: string, file: string, key: readonly string[], item: unknown): JsonSetResult {
  const { root, bom, body } = parse(content, file);
  const node = root ? findNodeAtLocation(root, [...key]) : undefined;
  if (!root || !node) return jsonSet(content, file, key, [item]);
  if (node.type !== 'array')
    throw new BrvError('config-conflict', `${file}: ${displayKey(key)} is not a list; brv left the file untouched.`);
  const current = getNodeValue(node) as unknown[];
  const expected = setIn(getNodeValue(root), key, [...current, item]);
  const after = bom + modifyText(body, [...key, -1], item, isMultiline(body, node), node);
  verify(after, file, expected);
  return { content: after, created: undefined };
}

/**
 * `content` without the member at `key` (a property name or an array index as the last part);
 * undefined when it is not there. `prune` names the outermost container brv created at install:
 * containers from there down that are left empty are removed too.
 */
export function jsonRemove(content: string, file: string, key: readonly Key[], prune?: readonly string[]): string | undefined {
  const { root, bom, body } = parse(content, file);
  if (!root) return undefined;
  const parentKey = key.slice(0, -1);
  const parent = parentKey.length === 0 ? root : findNodeAtLocation(root, [...parentKey]);
  const last = key[key.length - 1]!;
  if (!parent) return undefined;
  const index =
    parent.type === 'array' && typeof last === 'number' ? last : parent.type === 'object' ? propertyIndex(parent, String(last)) : -1;
  if (index < 0 || index >= (parent.children?.length ?? 0)) return undefined;
  const expected = deleteIn(getNodeValue(root), key);
  let after = bom + applyEdits(body, removeMember(body, parent, index));
  verify(after, file, expected);
  if (prune && prune.length > 0 && prune.length <= parentKey.length && prune.every((part, i) => parentKey[i] === part)) {
    const container = jsonGet(after, file, parentKey);
    const empty = Array.isArray(container)
      ? container.length === 0
      : !!container && typeof container === 'object' && Object.keys(container).length === 0;
    if (empty) after = jsonRemove(after, file, parentKey, prune) ?? after;
  }
  return after;
}

/** Whether a JSON file holds nothing but an empty object (and whitespace): what is left of a file brv created. */
export function jsonIsEmpty(content: string): boolean {
  return /^\uFEFF?\s*(\{\s*\})?\s*$/.test(content);
}
