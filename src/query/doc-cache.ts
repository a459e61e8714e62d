import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { localStateDir } from '../store/layout.js';
import { readLocalFileSync, writeLocalFileSync } from '../store/local-file.js';
import type { StoredTopicProblem } from '../topic/stored.js';
import { pathFieldText, type FieldName, type SegmentInput } from './fields.js';

/**
 * Bump whenever what is extracted from a topic blob changes: `blobDocument` and `documentFromTopic`
 * (document.ts), `topicText` (src/topic/text.ts) or the markdown rendering (src/topic/render.ts);
 * test/query/doc-cache.test.ts fails until you do. Entries of other versions are then never read
 * (and are deleted by the next sweep), and since this version also names the index folder, every
 * index is rebuilt. Analysis (tokenizing, stemming) and the segment format are not part of an entry:
 * a change there bumps `INDEX_VERSION` only, and the rebuild that follows parses no HTML.
 */
export const DOC_CACHE_VERSION = 3;

/**
 * Everything the index builder needs from one topic blob, independent of where the blob sits in
 * the tree (the same bytes at two paths are one entry): the field texts and facts of its index
 * document, and its rendered markdown for the docstore.
 */
export interface BlobDocument {
  readonly title: string;
  readonly fields: Readonly<Record<Exclude<FieldName, 'path'>, string>>;
  readonly dates: readonly string[];
  readonly kinds: readonly string[];
  readonly markdown: string;
}

/** A blob that is not indexed, and why (`readStoredTopic`'s verdict): remembered, so it is parsed once. */
export interface BlobProblem {
  readonly problem: StoredTopicProblem;
  readonly message: string;
}

/** What a blob holds for the index: a document, or the problem that keeps it out of the index. */
export type CachedBlob = BlobDocument | BlobProblem;

export function isBlobProblem(entry: CachedBlob): entry is BlobProblem {
  return 'problem' in entry;
}

const PROBLEMS: ReadonlySet<string> = new Set<StoredTopicProblem>(['too-large', 'too-deep', 'not-a-topic']);
/** Entries hold a topic's (at most 256 KiB) text a few times over; anything far larger is not an entry. */
const MAX_ENTRY_BYTES = 16 * 1024 * 1024;

/** The index document of a blob at `topicPath`: the cached, path-independent part plus the path. */
export function documentAt(topicPath: string, blob: string, doc: BlobDocument): SegmentInput {
  const { title, fields, dates, kinds } = doc;
  return {
    path: topicPath,
    title,
    fields: { title: fields.title, path: pathFieldText(topicPath), meta: fields.meta, key: fields.key, body: fields.body },
    dates: [...dates],
    kinds: [...kinds],
    blob,
  };
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const HEADER = `brv-doc ${DOC_CACHE_VERSION} `;
/** Entries are removed by a sweep only when unreferenced and older than this (a curate's entry waits for its query). */
const SWEEP_GRACE_MS = 24 * 60 * 60 * 1000;

function digest(body: string): string {
  return createHash('sha1').update(body).digest('hex');
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isBlobDocument(value: unknown): value is BlobDocument {
  if (typeof value !== 'object' || value === null) return false;
  const doc = value as Record<string, unknown>;
  const fields = doc.fields as Record<string, unknown> | null | undefined;
  return (
    typeof doc.title === 'string' &&
    typeof doc.markdown === 'string' &&
    isStringArray(doc.dates) &&
    isStringArray(doc.kinds) &&
    typeof fields === 'object' &&
    fields !== null &&
    ['title', 'meta', 'key', 'body'].every((f) => typeof fields[f] === 'string')
  );
}

/** The file's text, or undefined when it is not a well-formed entry for `blob` (missing, torn, damaged, another blob's). */
export function parseEntry(text: string, blob: string): CachedBlob | undefined {
  if (!text.startsWith(HEADER)) return undefined;
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  const body = text.slice(newline + 1);
  if (text.slice(HEADER.length, newline) !== digest(body)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { blob: owner, doc, problem, message } = value as { blob?: unknown; doc?: unknown; problem?: unknown; message?: unknown };
  if (owner !== blob) return undefined;
  if (doc === null) {
    if (typeof problem === 'string' && PROBLEMS.has(problem) && typeof message === 'string')
      return { problem: problem as StoredTopicProblem, message };
    return undefined;
  }
  return isBlobDocument(doc) ? doc : undefined;
}

export function serializeEntry(blob: string, doc: CachedBlob): string {
  const body = JSON.stringify(
    isBlobProblem(doc)
      ? { blob, doc: null, problem: doc.problem, message: doc.message }
      : { blob, doc: { title: doc.title, fields: doc.fields, dates: doc.dates, kinds: doc.kinds, markdown: doc.markdown } },
  );
  return `${HEADER}${digest(body)}\n${body}`;
}

/**
 * Per-blob extracted text under `<git-common-dir>/brv/cache/docs/v<N>/<2 hex>/<rest of oid>`:
 * what the index builder needs from each topic blob, so a rebuild (after a branch switch, a clone,
 * an `INDEX_VERSION` bump) and the index update after a curate load no HTML code. Content-addressed
 * by blob oid, so an entry is never stale; entries are written whole (temp file + rename) and any
 * file that does not check out (digest, shape, owner) is a miss: the blob is parsed again.
 */
export class DocCache {
  readonly dir: string;

  constructor(readonly root: string) {
    this.dir = path.join(root, `v${DOC_CACHE_VERSION}`);
  }

  /** The repository's cache: `<git-common-dir>/brv/cache/docs` (shared by worktrees, like the indexes). */
  static forRepository(commonDir: string): DocCache {
    return new DocCache(localStateDir(commonDir, 'cache', 'docs'));
  }

  file(blob: string): string {
    if (!OID.test(blob)) throw new Error(`"${blob}" is not a blob id.`);
    return path.join(this.dir, blob.slice(0, 2), blob.slice(2));
  }

  /**
   * Entries for `blobs`, in order; `undefined` where there is none (or it is damaged). Synchronous
   * reads on purpose: entries are a few KiB, and a promise round trip each cost more than the read.
   */
  read(blobs: readonly string[]): Array<CachedBlob | undefined> {
    return blobs.map((blob) => {
      let bytes;
      try {
        // Not followed if a symlink, never blocking on a FIFO, bounded: a damaged cache is a miss, never a hang.
        bytes = readLocalFileSync(this.file(blob), MAX_ENTRY_BYTES);
      } catch {
        return undefined;
      }
      return bytes === undefined ? undefined : parseEntry(bytes.toString('utf8'), blob);
    });
  }

  /** Whether an entry file exists (damaged or not: reading it tells). */
  has(blob: string): boolean {
    return existsSync(this.file(blob));
  }

  /**
   * Writes entries, each whole (store/local-file.ts: a temp file renamed over the entry), so a reader
   * never sees half of one, and concurrent writers of a blob (same bytes) simply race to the same
   * result. Synchronous: thousands of small files write faster so (measured) than through promises,
   * and a build is CPU-bound anyway. Throws on the first failure (the caller decides whether it matters).
   */
  write(entries: ReadonlyMap<string, CachedBlob>): void {
    for (const [blob, doc] of entries) writeLocalFileSync(this.file(blob), serializeEntry(blob, doc));
  }

  /**
   * Deletes entries of blobs not in `referenced` that are older than `graceMs` (a fresh entry may be
   * a curate's whose query has not run yet), stale temp files, and every other cache version.
   */
  async sweep(referenced: ReadonlySet<string>, graceMs = SWEEP_GRACE_MS, now = Date.now()): Promise<{ kept: number; removed: number }> {
    let kept = 0;
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return { kept, removed };
    }
    for (const name of names) {
      if (name !== path.basename(this.dir)) await rm(path.join(this.root, name), { recursive: true, force: true });
    }
    const old = async (file: string) => now - (await stat(file).catch(() => ({ mtimeMs: now }))).mtimeMs >= graceMs;
    for (const prefix of await readdir(this.dir).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      const dir = path.join(this.dir, prefix);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        const file = path.join(dir, name);
        if (referenced.has(prefix + name)) kept++;
        else if (await old(file)) {
          await rm(file, { force: true });
          removed++;
        } else kept++;
      }
    }
    return { kept, removed };
  }
}
