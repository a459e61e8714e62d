import { isMap, isScalar, parseDocument, stringify, type Document, type Pair, type YAMLMap } from 'yaml';
import { BrvError } from '../../base/errors.js';
import { appendBlock, lineStart, removeSpan, sameValue } from './text.js';

// Hermes' config.yaml: brv's server is one entry of the `mcp_servers` block mapping, inserted and
// removed as text in the mapping's own indentation so comments and layout are kept. Other shapes
// (flow mappings) go through the yaml Document API, which keeps comments. Every result is parsed
// again and compared with the value it must have.

function parseYaml(content: string, file: string): Document.Parsed {
  const doc = parseDocument(content, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!.message.split('\n')[0];
    throw new BrvError(
      'config-malformed',
      `${file} is not valid YAML (${first}); brv left it untouched. Fix it, then run the command again.`,
    );
  }
  const root = doc.contents;
  if (root !== null && !isMap(root) && !(isScalar(root) && root.value === null)) {
    throw new BrvError('config-malformed', `${file} does not hold a YAML mapping; brv left it untouched.`);
  }
  return doc;
}

function data(doc: Document.Parsed): Record<string, unknown> {
  const value = doc.toJS() as unknown;
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => (isScalar(pair.key) ? pair.key.value : pair.key) === key) as Pair | undefined;
}

function pairStart(pair: Pair): number | undefined {
  return isScalar(pair.key) || isMap(pair.key) ? (pair.key as { range?: [number, number, number] }).range?.[0] : undefined;
}

function pairEnd(pair: Pair): number | undefined {
  const value = pair.value as { range?: [number, number, number] } | null;
  return value?.range?.[2] ?? (pair.key as { range?: [number, number, number] }).range?.[2];
}

function isBlockMap(node: unknown): node is YAMLMap {
  return isMap(node) && !node.flow;
}

/** `{name: entry}` as block YAML, every line indented by `indent`, without a final newline. */
function render(name: string, entry: unknown, indent: string): string {
  return stringify({ [name]: entry }, { indent: 2 })
    .trimEnd()
    .split('\n')
    .map((line) => indent + line)
    .join('\n');
}

function verify(after: string, file: string, expected: unknown): void {
  let actual: unknown = Symbol('unparsable');
  try {
    const doc = parseDocument(after);
    if (doc.errors.length === 0) actual = data(doc);
  } catch {
    // compared below
  }
  if (!sameValue(actual, expected)) {
    throw new BrvError('config-conflict', `brv could not edit ${file} safely, so it left the file untouched; edit it by hand.`);
  }
}

export function yamlGet(content: string, file: string, key: readonly string[]): unknown {
  let value: unknown = data(parseYaml(content, file));
  for (const part of key) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** `content` with `entry` under `table.name`. */
export function yamlSet(content: string, file: string, table: string, name: string, entry: Readonly<Record<string, unknown>>): string {
  const doc = parseYaml(content, file);
  const before = data(doc);
  const servers = (before[table] && typeof before[table] === 'object' ? before[table] : {}) as Record<string, unknown>;
  const expected = { ...before, [table]: { ...servers, [name]: entry } };
  const root = doc.contents;
  let after: string | undefined;
  const tablePair = isBlockMap(root) ? findPair(root, table) : undefined;
  if (!tablePair && (root === null || isBlockMap(root) || isScalar(root))) {
    after = appendBlock(content, render(table, { [name]: entry }, ''));
  } else if (tablePair && isBlockMap(tablePair.value) && tablePair.value.items.length > 0) {
    const map = tablePair.value;
    const first = pairStart(map.items[0] as Pair);
    const existing = findPair(map, name);
    if (first !== undefined) {
      const indent = content.slice(lineStart(content, first), first);
      if (/^[ \t]*$/.test(indent)) {
        if (existing) {
          const start = pairStart(existing);
          const stop = pairEnd(existing);
          if (start !== undefined && stop !== undefined) {
            const tail = content.slice(0, stop).endsWith('\n') ? '\n' : '';
            after = content.slice(0, lineStart(content, start)) + render(name, entry, indent) + tail + content.slice(stop);
          }
        } else {
          const stop = pairEnd(map.items[map.items.length - 1] as Pair);
          if (stop !== undefined) {
            const atLineStart = stop === 0 || content[stop - 1] === '\n';
            const text = render(name, entry, indent);
            after = content.slice(0, stop) + (atLineStart ? `${text}\n` : `\n${text}`) + content.slice(stop);
          }
        }
      }
    }
  }
  if (after === undefined) {
    doc.setIn([table, name], entry);
    after = doc.toString();
  }
  verify(after, file, expected);
  return after;
}

/** `content` without `table.name`; undefined when it is not there. `pruneTable`: also remove the table left empty. */
export function yamlRemove(content: string, file: string, table: string, name: string, pruneTable: boolean): string | undefined {
  const doc = parseYaml(content, file);
  const before = data(doc);
  const servers = before[table];
  if (!servers || typeof servers !== 'object' || !(name in servers)) return undefined;
  const { [name]: _removed, ...others } = servers as Record<string, unknown>;
  const removeTable = pruneTable && Object.keys(others).length === 0;
  const expected: Record<string, unknown> = { ...before, [table]: others };
  if (removeTable) delete expected[table];
  const root = doc.contents;
  const tablePair = isBlockMap(root) ? findPair(root, table) : undefined;
  const pair = removeTable ? tablePair : tablePair && isBlockMap(tablePair.value) ? findPair(tablePair.value, name) : undefined;
  let after: string | undefined;
  const start = pair ? pairStart(pair) : undefined;
  const stop = pair ? pairEnd(pair) : undefined;
  if (start !== undefined && stop !== undefined && /^[ \t]*$/.test(content.slice(lineStart(content, start), start))) {
    const from = lineStart(content, start);
    after = removeTable
      ? removeSpan(content, from, content.slice(0, stop).endsWith('\n') ? stop - 1 : stop)
      : content.slice(0, from) + content.slice(stop);
  }
  if (after === undefined) {
    if (removeTable) doc.deleteIn([table]);
    else doc.deleteIn([table, name]);
    after = doc.toString();
  }
  verify(after, file, expected);
  return after;
}
