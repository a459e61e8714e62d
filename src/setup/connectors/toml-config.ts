import { parse } from 'smol-toml';
import { BrvError } from '../../base/errors.js';
import { appendBlock, removeSpan, sameValue } from './text.js';

// Codex's config.toml: brv owns one table, `[mcp_servers.brv]` (and any `[mcp_servers.brv.*]`
// sub-tables), found by its header line and replaced or removed as text; the rest of the file is
// never rewritten. smol-toml validates the file before and after every edit.

function parseToml(content: string, file: string): Record<string, unknown> {
  try {
    return parse(content) as Record<string, unknown>;
  } catch (error) {
    const first = String((error as Error).message).split('\n')[0];
    throw new BrvError(
      'config-malformed',
      `${file} is not valid TOML (${first}); brv left it untouched. Fix it, then run the command again.`,
    );
  }
}

const bare = (name: string) => `(?:${name}|"${name}"|'${name}')`;

function headerPattern(table: string, name: string): RegExp {
  return new RegExp(`^[ \\t]*\\[[ \\t]*${bare(table)}[ \\t]*\\.[ \\t]*${bare(name)}[ \\t]*(\\.[^\\]\\n]*)?\\][ \\t]*(#.*)?\\r?$`);
}

interface Span {
  start: number;
  end: number;
}

/** brv's table: from its header to the last content line before the next other table (comments that lead into it stay with it). */
function findTable(content: string, table: string, name: string): Span | undefined {
  const header = headerPattern(table, name);
  const lines = content.split('\n');
  let offset = 0;
  let start: number | undefined;
  let lastContentEnd = 0;
  for (const line of lines) {
    const lineEnd = offset + line.replace(/\r$/, '').length;
    const isHeader = /^[ \t]*\[/.test(line);
    if (start === undefined) {
      if (header.test(line)) {
        start = offset;
        lastContentEnd = lineEnd;
      }
    } else if (isHeader && !header.test(line)) {
      break;
    } else if (line.trim() !== '' && !line.trim().startsWith('#')) {
      lastContentEnd = lineEnd;
    }
    offset += line.length + 1;
  }
  return start === undefined ? undefined : { start, end: lastContentEnd };
}

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item)}`);
    return entries.length > 0 ? `{ ${entries.join(', ')} }` : '{}';
  }
  throw new Error(`no TOML form for ${String(value)}`);
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

function renderTomlTable(table: string, name: string, entry: Readonly<Record<string, unknown>>): string {
  const lines = Object.entries(entry).map(([key, value]) => `${tomlKey(key)} = ${tomlValue(value)}`);
  return [`[${tomlKey(table)}.${tomlKey(name)}]`, ...lines].join('\n');
}

export function tomlGet(content: string, file: string, table: string, name: string): unknown {
  const data = parseToml(content, file);
  const servers = data[table];
  return servers && typeof servers === 'object' ? (servers as Record<string, unknown>)[name] : undefined;
}

function withoutEmptyTable(data: Record<string, unknown>, table: string): Record<string, unknown> {
  const servers = data[table];
  if (servers && typeof servers === 'object' && !Array.isArray(servers) && Object.keys(servers).length === 0) {
    const { [table]: _empty, ...rest } = data;
    return rest;
  }
  return data;
}

function verify(after: string, file: string, expected: Record<string, unknown>, table: string): void {
  let actual: Record<string, unknown> | undefined;
  try {
    actual = parse(after) as Record<string, unknown>;
  } catch {
    actual = undefined;
  }
  if (!actual || !sameValue(withoutEmptyTable(actual, table), withoutEmptyTable(expected, table))) {
    throw new BrvError(
      'config-conflict',
      `brv could not edit ${file} safely (is [${table}.brv] written as an inline table or dotted keys?), so it left the file untouched; edit it by hand.`,
    );
  }
}

/** `content` with brv's table set to `entry`: its old table replaced, or a new one appended. */
export function tomlSet(content: string, file: string, table: string, name: string, entry: Readonly<Record<string, unknown>>): string {
  const data = parseToml(content, file);
  const servers = (data[table] && typeof data[table] === 'object' ? data[table] : {}) as Record<string, unknown>;
  const expected = { ...data, [table]: { ...servers, [name]: entry } };
  const rendered = renderTomlTable(table, name, entry);
  const span = findTable(content, table, name);
  const after = span ? content.slice(0, span.start) + rendered + content.slice(span.end) : appendBlock(content, rendered);
  verify(after, file, expected, table);
  return after;
}

/** `content` without brv's table; undefined when it has none. */
export function tomlRemove(content: string, file: string, table: string, name: string): string | undefined {
  const data = parseToml(content, file);
  const servers = data[table];
  if (!servers || typeof servers !== 'object' || !(name in servers)) return undefined;
  const span = findTable(content, table, name);
  if (!span) {
    throw new BrvError('config-conflict', `${file} defines ${table}.${name} without a [${table}.${name}] table; remove it by hand.`);
  }
  const { [name]: _removed, ...others } = servers as Record<string, unknown>;
  const after = removeSpan(content, span.start, span.end);
  verify(after, file, { ...data, [table]: others }, table);
  return after;
}
