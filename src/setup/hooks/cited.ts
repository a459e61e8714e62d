import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Element, Nodes, Root } from 'hast';
import type { GitRepository } from '../../git/repository.js';
import type { ContextStore, Snapshot } from '../../store/context-store.js';
import { localStateDir } from '../../store/layout.js';
import { readLocalFile, writeLocalFile } from '../../store/local-file.js';
import { elementsIn, flatText, nestingDepth } from '../../topic/hast.js';
import { MAX_NESTING_DEPTH, MAX_STORED_TOPIC_BYTES } from '../../topic/limits.js';
import { topicPathFromBlobPath } from '../../topic/path.js';

// The cited-files cache: for one brv tree, every (code path, topic) pair where the topic lists the
// path in its <bv-files>. Keyed by tree oid, so it is never stale. The pre-commit hook's shell block
// reads it with awk; Node only builds it, once per tree (from the previous tree's cache when there
// is one, re-reading only the topics that changed).
//
// File: <git-common-dir>/brv/cache/cited/<tree-oid>
//   # brv cited-files v2
//   <code path>\t<topic path>        one pair a line, sorted by code path then topic path
//   # end <number of pairs>
// The last line tells a complete file from a truncated one (the hook checks it with tail); a file
// that is not complete, not a regular file or of another version is rebuilt.

export const CITED_CACHE_HEADER = '# brv cited-files v2';
const CITED_CACHE_END = '# end';
/** Far above what any tree cites; a bigger file is not one brv wrote, and is rebuilt. */
const MAX_CACHE_BYTES = 256 * 1024 * 1024;
const KEEP_CACHE_FILES = 8;
const READ_CHUNK = 256;
const TREE_OID = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

export interface CitedEntry {
  /** A path relative to the top of the code's working tree (a file or a folder). */
  file: string;
  topic: string;
}

export interface StaleTopic {
  topic: string;
  /** The cited paths the staged changes touch, as the topic names them. */
  files: string[];
}

export interface CitedCache {
  file: string;
  tree: string;
  entries: CitedEntry[];
  /** How this call got the entries. */
  source: 'cache' | 'incremental' | 'full';
}

export function citedCacheFile(commonDir: string, tree: string): string {
  return path.join(localStateDir(commonDir, 'cache', 'cited'), tree);
}

/**
 * A path as a topic cites it, made comparable with `git diff --name-only` output: quotes, `./`,
 * line anchors (`:12`, `#L3-L9`) and a trailing `/` or `/**` dropped. Undefined for what cannot be a
 * path in the repository (URLs, absolute or `..` paths, globs, control characters).
 */
export function normalizeCitedPath(raw: string): string | undefined {
  let p = raw.trim().replace(/^[`'"]+|[`'"]+$/g, '');
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(p)) return undefined; // a URL
  p = p.replace(/[,;]+$/, '').replace(/\\/g, '/');
  p = p.replace(/#L\d+(-L?\d+)?$/, '').replace(/:\d+(?:[-:]\d+)*$/, '');
  p = p
    .replace(/\/+/g, '/')
    .replace(/(\/\*\*?)+$/, '')
    .replace(/\/$/, '');
  while (p.startsWith('./')) p = p.slice(2);
  if (p === '' || p === '.' || p.length > 4096) return undefined;
  if (p.startsWith('/') || p.startsWith('~') || /^[A-Za-z]:\//.test(p)) return undefined;
  if (/[\u0000-\u001f\u007f*?[\]]/.test(p)) return undefined;
  if (p.split('/').some((s) => s === '..' || s === '.')) return undefined;
  return p;
}

/** Text content without the spaces `flatText` puts at element boundaries (a path split by markup stays one path). */
function rawText(node: Nodes): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element' || node.type === 'root') return node.children.map((child) => rawText(child as Nodes)).join('');
  return '';
}

/**
 * Paths cited in a topic's `<bv-files>`: each `<code>` (the documented form is one `<li><code>path</code></li>`
 * per file), the first word of an `<li>` without `<code>`, or path-like words of a `<bv-files>` with neither.
 */
export function citedPathsIn(root: Root | Element): string[] {
  const found = new Set<string>();
  const add = (raw: string) => {
    const p = normalizeCitedPath(raw);
    if (p) found.add(p);
  };
  for (const files of elementsIn(root)) {
    if (files.tagName !== 'bv-files') continue;
    let structured = false;
    const walk = (node: Nodes, item: { hasCode: boolean } | undefined): void => {
      if (node.type !== 'element' && node.type !== 'root') return;
      if (node.type === 'element' && node.tagName === 'code') {
        structured = true;
        if (item) item.hasCode = true;
        add(rawText(node));
        return;
      }
      if (node.type === 'element' && node.tagName === 'li') {
        structured = true;
        const own = { hasCode: false };
        for (const child of node.children) walk(child as Nodes, own);
        if (own.hasCode) {
          if (item) item.hasCode = true;
        } else {
          add(flatText(node).split(' ')[0] ?? '');
        }
        return;
      }
      for (const child of node.children) walk(child as Nodes, item);
    };
    for (const child of files.children) walk(child as Nodes, undefined);
    if (!structured) for (const word of flatText(files).split(/[\s,;]+/)) if (/[./]/.test(word)) add(word);
  }
  return [...found];
}

/** The `<bv-files>` elements of a stored topic, cut out so only they are parsed (canonical HTML, plain tags). */
export function bvFilesFragments(html: string): string {
  const parts: string[] = [];
  for (let from = html.indexOf('<bv-files'); from >= 0; from = html.indexOf('<bv-files', from + 1)) {
    const close = html.indexOf('</bv-files>', from);
    parts.push(close < 0 ? html.slice(from) : html.slice(from, close + '</bv-files>'.length));
    if (close < 0) break;
  }
  return parts.join('\n');
}

export function serializeCitedCache(entries: readonly CitedEntry[]): string {
  return `${CITED_CACHE_HEADER}\n${entries.map((e) => `${e.file}\t${e.topic}\n`).join('')}${CITED_CACHE_END} ${entries.length}\n`;
}

/** Entries of a cache file, or undefined when it is not a whole file this version wrote. */
export function parseCitedCache(text: string): CitedEntry[] | undefined {
  if (!text.endsWith('\n')) return undefined;
  const lines = text.slice(0, -1).split('\n');
  if (lines[0] !== CITED_CACHE_HEADER || lines.at(-1) !== `${CITED_CACHE_END} ${lines.length - 2}`) return undefined;
  const entries: CitedEntry[] = [];
  for (const line of lines.slice(1, -1)) {
    const tab = line.indexOf('\t');
    if (tab <= 0) return undefined;
    entries.push({ file: line.slice(0, tab), topic: line.slice(tab + 1) });
  }
  return entries;
}

function sortEntries(entries: CitedEntry[]): CitedEntry[] {
  const unique = new Map(entries.map((e) => [`${e.file}\t${e.topic}`, e]));
  return [...unique.values()].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0,
  );
}

type ParseHtml = (html: string) => Root;

/**
 * Cited paths of topic blobs, read through the repository's batch reader. Blobs come from the object
 * store, so none is trusted: one larger than a topic can be is never read, one nested too deep is
 * skipped, and one that fails to parse costs only its own citations.
 */
async function citedEntriesOf(
  repo: GitRepository,
  listed: ReadonlyArray<{ path: string; oid: string; size?: number }>,
): Promise<CitedEntry[]> {
  const unsized = listed.filter((b) => b.size === undefined).map((b) => b.oid);
  const sizes = unsized.length > 0 ? await repo.blobSizes(unsized) : new Map<string, number>();
  const blobs = listed.filter((b) => (b.size ?? sizes.get(b.oid) ?? Infinity) <= MAX_STORED_TOPIC_BYTES);
  const entries: CitedEntry[] = [];
  let parse: ParseHtml | undefined;
  for (let from = 0; from < blobs.length; from += READ_CHUNK) {
    const chunk = blobs.slice(from, from + READ_CHUNK);
    const datas = await Promise.all(chunk.map((blob) => repo.readBlob(blob.oid)));
    for (let i = 0; i < chunk.length; i++) {
      const data = datas[i];
      const topic = topicPathFromBlobPath(chunk[i]!.path);
      if (!data || !topic || !data.includes('<bv-files')) continue;
      // Loaded on first use: most trees, and every tree already cached, never need the HTML parser.
      parse ??= (await import('../../topic/parse.js')).parseTopicHtml;
      try {
        const root = parse(bvFilesFragments(data.toString('utf8')));
        if (nestingDepth(root) > MAX_NESTING_DEPTH) continue;
        for (const file of citedPathsIn(root)) entries.push({ file, topic });
      } catch {
        // A blob the parser cannot take (absurd nesting) cites nothing.
      }
    }
  }
  return entries;
}

/**
 * The cited-files cache for the snapshot's tree: read when present, else built (incrementally from
 * the newest cache of another tree when git can still diff the two trees) and written atomically.
 */
export async function ensureCitedCache(store: ContextStore, snapshot: Snapshot): Promise<CitedCache | undefined> {
  if (!snapshot.commit) return undefined;
  const repo = store.repo;
  const tree = snapshot.commit.tree;
  const file = citedCacheFile(repo.location.commonDir, tree);
  const existing = await readCacheFile(file);
  if (existing) return { file, tree, entries: existing, source: 'cache' };

  let entries: CitedEntry[] | undefined;
  let source: CitedCache['source'] = 'incremental';
  const previous = await newestOtherCache(path.dirname(file), tree);
  if (previous) {
    try {
      const changes = (await repo.diffTrees(previous.tree, tree)).filter((c) => topicPathFromBlobPath(c.path) !== undefined);
      const changed = new Set<string>(changes.map((c) => topicPathFromBlobPath(c.path)!));
      const added = await citedEntriesOf(
        repo,
        changes.filter((c) => c.status !== 'D').map((c) => ({ path: c.path, oid: c.newOid })),
      );
      entries = [...previous.entries.filter((e) => !changed.has(e.topic)), ...added];
    } catch {
      entries = undefined; // the previous tree is gone (garbage-collected): build from scratch
    }
  }
  if (!entries) {
    source = 'full';
    entries = await citedEntriesOf(repo, await store.listBlobs(snapshot));
  }
  entries = sortEntries(entries);
  // A cache: when it cannot be written, the entries still answer this call.
  await writeLocalFile(file, serializeCitedCache(entries), { repair: localStateDir(repo.location.commonDir) }).catch(() => {});
  await prune(path.dirname(file)).catch(() => {});
  return { file, tree, entries, source };
}

/** A cache file's entries; undefined when it is missing or damaged in any way (it is then rebuilt). */
async function readCacheFile(file: string): Promise<CitedEntry[] | undefined> {
  try {
    const bytes = await readLocalFile(file, MAX_CACHE_BYTES);
    return bytes && parseCitedCache(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

async function cacheFiles(dir: string): Promise<Array<{ name: string; mtime: number }>> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => TREE_OID.test(n));
  } catch {
    return [];
  }
  const dated = await Promise.all(
    names.map(async (name) => ({
      name,
      mtime: await lstat(path.join(dir, name)).then(
        (s) => s.mtimeMs,
        () => -1,
      ),
    })),
  );
  return dated.filter((d) => d.mtime >= 0).sort((a, b) => b.mtime - a.mtime);
}

async function newestOtherCache(dir: string, tree: string): Promise<{ tree: string; entries: CitedEntry[] } | undefined> {
  const newest = (await cacheFiles(dir)).find((f) => f.name !== tree);
  if (!newest) return undefined;
  const entries = await readCacheFile(path.join(dir, newest.name));
  return entries && { tree: newest.name, entries };
}

/** Keeps the newest cache files; leaves young temp files alone (another process may be writing). */
async function prune(dir: string): Promise<void> {
  for (const { name } of (await cacheFiles(dir)).slice(KEEP_CACHE_FILES)) await rm(path.join(dir, name), { force: true, recursive: true });
  const now = Date.now();
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.tmp')) continue;
    const mtime = await lstat(path.join(dir, name)).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (now - mtime > 600_000) await rm(path.join(dir, name), { force: true, recursive: true });
  }
}

/**
 * Topics whose cited paths the staged paths touch: the path itself, or a folder above it. In cache
 * order (by cited path), each topic once with the cited paths that matched. The pre-commit shell
 * block computes the same with awk.
 */
export function staleTopics(entries: readonly CitedEntry[], staged: readonly string[]): StaleTopic[] {
  const touched = new Set<string>();
  for (const file of staged) {
    touched.add(file);
    for (let slash = file.lastIndexOf('/'); slash > 0; slash = file.lastIndexOf('/', slash - 1)) touched.add(file.slice(0, slash));
  }
  const byTopic = new Map<string, string[]>();
  for (const entry of entries) {
    if (!touched.has(entry.file)) continue;
    const files = byTopic.get(entry.topic);
    if (files) files.push(entry.file);
    else byTopic.set(entry.topic, [entry.file]);
  }
  return [...byTopic].map(([topic, files]) => ({ topic, files }));
}
