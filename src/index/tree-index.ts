import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, lutimes, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import type { GitRepository } from '../git/repository.js';
import { openLocalFileSync, readLocalFile, readLocalFileStat, writeLocalFile, type LocalFileData } from '../store/local-file.js';
import { topicPathFromBlobPath } from '../topic/path.js';
import { DOC_CACHE_VERSION, DocCache, documentAt, isBlobProblem, type CachedBlob, type DocCacheWriter } from './doc-cache.js';
import type { SegmentInput } from './fields.js';
import {
  docstoreBytes,
  DocstoreBytes,
  docstoreChunks,
  docstoreEntry,
  DocstoreFile,
  docstoreLooksValid,
  parseDocstoreEntry,
  readDocstoreEntries,
  type RenderedTopic,
} from './docstore.js';
import { buildSegment, comparePathKeys, mergeSegments, pathOrderKey, Segment, SegmentBuilder } from './segment.js';
import { SegmentFile } from './segment-file.js';
import {
  FINE_RACY_WINDOW_NS,
  MAX_STAMP_FILE_BYTES,
  MAX_STAMPS,
  parseStamps,
  serializeStamps,
  settled,
  STAMP_DELAY_LIMIT_MS,
  sameStamp,
  stampOf,
  trusted,
  type FileStamp,
} from './segment-stamps.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import {
  applyIndexUpdate,
  compact,
  liveView,
  mustCompactInline,
  openStack,
  parseStackManifest,
  planIndexUpdate,
  segmentFileName,
  serializeStack,
  shouldCompact,
  singleSegmentManifest,
  sortSkipped,
  type SegmentEntry,
  type SegmentStack,
  type SkippedTopic,
  type StackManifest,
} from './stack.js';
import { mark, monotonicNow } from '../base/trace.js';

export type { SkippedTopic, SkipProblem } from './stack.js';

/**
 * How an open got its index: read from disk ('cached'), updated from the last indexed tree
 * ('incremental'), built from every topic and written ('full'), or — for a tree with no index
 * whose first query asked for it (`open`'s `scan`) — built in memory from a scan of its blobs and
 * not written ('scan': the same segment a full build writes, so the same answers; `compactTree`
 * writes it, off the query path).
 */
export type IndexBuild = 'cached' | 'incremental' | 'full' | 'scan' | 'empty';

/**
 * Whether an opened index leaves maintenance to do: 'none'; 'due' (its stack is past the compaction
 * threshold, or a full build left what it extracted out of the per-blob cache: the query answered
 * as it is, and `compactTree` does the rest, off the query path); 'inline' (so far past due that
 * this open compacted it: see `mustCompactInline`).
 */
export type IndexCompaction = 'none' | 'due' | 'inline';

export interface TreeIndex {
  tree: string | undefined;
  stack: SegmentStack;
  /** Segment file names, parallel to `stack.segments` (their docstores sit next to them). */
  files: string[];
  /** Blobs at topic paths left out of the index, and why (too large, too deep, not a topic, a path named twice). */
  skipped: readonly SkippedTopic[];
  build: IndexBuild;
  buildMs: number;
  /** For incremental builds: how many topics were re-read. */
  changedTopics: number;
  /** Topic blobs this open had to parse and render (loading the HTML code): cache misses. */
  parsedTopics: number;
  /** Topic blobs this open took from the per-blob cache instead (see doc-cache.ts). */
  cachedTopics: number;
  /** Segment files this open read from disk and checked against their SHA-256 names (the others matched a settled stamp, see segment-stamps.ts). */
  hashedSegments: number;
  compaction: IndexCompaction;
}

/** What `compactTree` did. */
export interface TreeCompaction {
  tree: string;
  /** Topics indexed: the tree had no index (its first query answered from a scan), and now has one. */
  indexed?: number;
  /** False when the index was not due (or not indexed yet, or held only in memory). */
  compacted: boolean;
  segmentsBefore: number;
  segmentsAfter: number;
  /** Topic blobs a full build of this tree left out of the per-blob cache, extracted and cached now. */
  cachedTopics: number;
  ms: number;
}

/** Per open: topic blobs parsed (cache misses) and taken from the per-blob cache. */
interface Counts {
  parsed: number;
  /** Bytes of the blobs parsed. */
  parsedBytes?: number;
  cached: number;
  hashed: number;
  /** Progress of a build: topics done (parsed or taken from the cache) of `total` (a full build's). */
  onProgress?: (done: number, total?: number) => void;
  done?: number;
  total?: number;
}

function progressed(counts: Counts, topics: number): void {
  if (!counts.onProgress || topics === 0) return;
  counts.done = (counts.done ?? 0) + topics;
  counts.onProgress(counts.done, counts.total);
}

/** The stamps of segment files already checked, as read at the start of an open. */
interface Stamps {
  /** The stamp file's mtime (the file system's clock): stamps of files changed since shortly before it are not trusted. */
  readonly writtenNs: bigint;
  readonly stamps: ReadonlyMap<string, FileStamp>;
}

/** Stamps of segments this open hashed, with when (monotonicNow()) each was confirmed: after its hash. */
type FreshStamps = Map<string, { stamp: FileStamp; at: number }>;

/** Topic blobs larger than this are never read (src/topic/limits.ts imports nothing: no HTML code is loaded). */
export const MAX_INDEXED_BLOB_BYTES = MAX_STORED_TOPIC_BYTES;
/** Bounds for reading index files (local state is not trusted: a symlink to /dev/zero must not be read forever). */
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;
const MAX_SEGMENT_BYTES = 2 ** 31 - 1;

function isCorrupt(error: unknown): boolean {
  return error instanceof BrvError && (error.kind === 'index-corrupt' || error.kind === 'corrupt-local-state');
}

/**
 * Bumped whenever analysis or the index format changes what an index holds: older indexes are then
 * simply not found (and pruned), never misread. A change to what is extracted from a topic or to its
 * rendering bumps `DOC_CACHE_VERSION` (doc-cache.ts) instead, which also names the index folder
 * (`v<INDEX_VERSION>.<DOC_CACHE_VERSION>`): indexes built from the old entries are dropped with them.
 */
export const INDEX_VERSION = 5; // 5: manifests and stamps checksummed with CRC-32 (checksum.ts)
/** Above this many changed topics an incremental update is not worth it: rebuild from the tree. */
const MAX_INCREMENTAL_CHANGES = 2000;
/** Manifests kept; older ones (and segments only they use) are pruned. */
const KEEP_MANIFESTS = 12;
/** Topics analysed per chunk in a full build: bounds memory at 100,000 topics. */
const FULL_BUILD_CHUNK = 2000;
/**
 * A scan (`IndexBuild` 'scan') analyses up to this many bytes of topic blobs as one segment, without
 * the chunks and merge of a full build (which bound memory at 100,000 topics): ~25,000 synthetic topics.
 */
const SCAN_ONE_PASS_BYTES = 32 * 1024 * 1024;
/**
 * A full build that parsed fewer bytes of topics than this does not start maintenance to cache
 * them: the background process (a Node start, then every blob read and extracted again) costs more
 * than the rebuild it would spare, which re-extracts ~4 MiB in ~180 ms on the slowest machine
 * measured (docs/archive/bench-notebook-2026.md, "Cold path, round 6"). The blobs stay marked, so maintenance started
 * for another reason (or `brv maintenance`) still caches them.
 */
const FILL_CACHE_FROM_BYTES = 4 * 1024 * 1024;
/** Unused segment files younger than this (by modification time) are not pruned: see `pruneManifests`. */
const UNUSED_FILE_GRACE_MS = 10 * 60 * 1000;
/** How often the per-blob cache is swept of entries no kept index uses (a sweep lists every entry). */
const DOC_CACHE_SWEEP_INTERVAL_MS = 24 * 60 * 60 * 1000;

interface Built {
  bytes: Uint8Array;
  docstore: (i: number) => Buffer;
}

/**
 * Extraction of topic blobs in canonical form (fast-extract.ts: no HTML library): loaded only when
 * a blob missing from the per-blob cache is indexed, never to answer a query from an index.
 */
async function fastExtractor() {
  const { fastBlobDocument } = await import('./fast-extract.js');
  return fastBlobDocument;
}

/** fastExtractor's fields-only form, for a scan: what the segment needs, no markdown (see `IndexBuild`). */
async function fastFieldsExtractor() {
  const { fastBlobFields } = await import('./fast-extract.js');
  return (html: string): CachedBlob | undefined => {
    const fields = fastBlobFields(html);
    return fields === undefined || 'problem' in fields ? fields : { ...fields, markdown: '', text: '' };
  };
}

/**
 * Parsing and rendering of topic HTML (parse5, the sanitizer, hast-util-to-mdast): loaded only for
 * a blob the fast extractor bails on (not in canonical form), never to answer a query.
 */
async function analyzer() {
  const { fullBlobDocument } = await import('./document.js');
  mark('index: HTML code loaded');
  return { fullBlobDocument };
}

/**
 * Search indexes keyed by tree oid under `<git-common-dir>/brv/index/v<N>.<M>/`: a tree's index can
 * never be stale, and a tree changed by anything (curate, `git fetch` + `update-ref`, a merge) is
 * indexed on its first query — incrementally from the last indexed tree through `git diff-tree` when
 * the change is small, so one curate never costs a full rebuild. Each segment has a docstore of
 * rendered markdown beside it, so answering a query loads no HTML code at all; and what each topic
 * blob contributes is kept in the per-blob cache (doc-cache.ts, written by curate and import too), so
 * building an index parses only blobs that cache has never seen.
 */
const WARM_INDEXES = 4;

/** What an index opened from memory or disk reports: nothing built, parsed or hashed. */
const NOTHING_BUILT = {
  build: 'cached',
  buildMs: 0,
  changedTopics: 0,
  parsedTopics: 0,
  cachedTopics: 0,
  hashedSegments: 0,
} as const satisfies Partial<TreeIndex>;

export class TreeIndexStore {
  private readonly dir: string;
  private readonly manifests: string;
  private readonly segments: string;
  private readonly docs: DocCache;
  /** Indexes opened by this store, by tree (a tree's index never changes): a long-lived process (MCP) reuses them. */
  private readonly warm = new Map<string, Promise<TreeIndex>>();
  /**
   * Segments (and their docstores) and manifests this process could not write: the index folder is
   * read-only, full or in the way. They are served from memory, so queries still answer.
   */
  private readonly memory = new Map<string, { segment: Uint8Array; docstore: Buffer }>();
  private readonly memoryManifests = new Map<string, StackManifest>();
  private lastInMemory: string | undefined;
  /**
   * Names of the segments scans built (`IndexBuild` 'scan'): held by their TreeIndex only, with no
   * docstore; their rendered markdown is extracted again from the blob when asked for.
   */
  private readonly scanned = new Set<string>();
  /** Why the last write of a segment or manifest failed (kept in memory instead): what maintenance reports. */
  private writeFailure: BrvError | undefined;

  private readonly fillCacheFromBytes: number;

  constructor(
    private readonly repo: GitRepository,
    indexRoot: string,
    docs: DocCache = DocCache.forRepository(repo.location.commonDir),
    options: { fillCacheFromBytes?: number } = {},
  ) {
    this.docs = docs;
    this.fillCacheFromBytes = options.fillCacheFromBytes ?? FILL_CACHE_FROM_BYTES;
    this.dir = path.join(indexRoot, `v${INDEX_VERSION}.${DOC_CACHE_VERSION}`);
    this.manifests = path.join(this.dir, 'trees');
    this.segments = path.join(this.dir, 'segments');
  }

  /**
   * The index of `tree`: cached, built incrementally or from scratch. `rebuild` ignores what is on
   * disk and builds from the tree (after a damaged file was found while answering).
   */
  /**
   * `scan`: when the tree has no index and no small update of the last indexed tree gives it one,
   * build it in memory and write nothing (build 'scan', compaction 'due'): for a front end that then
   * has `compactTree` write it, off the query path (the CLI's background `brv maintenance`).
   */
  async open(
    tree: string | undefined,
    options: { rebuild?: boolean; scan?: boolean; onProgress?: (done: number, total?: number) => void } = {},
  ): Promise<TreeIndex> {
    if (!tree) return this.load(tree, false);
    let opened = options.rebuild ? undefined : this.warm.get(tree);
    // Another process may have pruned (or someone deleted) the files a warm index reads its texts from.
    if (opened && !this.memoryManifests.has(tree) && !existsSync(this.manifestFile(tree))) {
      this.warm.delete(tree);
      opened = undefined;
    }
    if (opened) {
      const index = await opened;
      return { ...index, ...NOTHING_BUILT, compaction: index.compaction === 'inline' ? 'none' : index.compaction };
    }
    opened = this.load(tree, options.rebuild ?? false, { onProgress: options.onProgress, scan: options.scan ?? false });
    this.warm.delete(tree);
    this.warm.set(tree, opened);
    opened.catch(() => this.warm.delete(tree));
    if (this.warm.size > WARM_INDEXES) this.warm.delete(this.warm.keys().next().value!);
    return opened;
  }

  /** The lock file of index maintenance (maintenance-lock.ts), inside this index version's folder. */
  get maintenanceLock(): string {
    return path.join(this.dir, 'maintenance.lock');
  }

  /** The blobs at topic paths of `tree` that its index leaves out, with their problem (building the index if needed). */
  async skippedTopics(tree: string | undefined): Promise<SkippedTopic[]> {
    return [...(await this.open(tree)).skipped];
  }

  /**
   * `scan`: see `open`. `cache`: a full build writes what it extracts there (maintenance's build of
   * a scanned tree) instead of leaving it to maintenance (`markUncached`).
   */
  private async load(
    tree: string | undefined,
    rebuild: boolean,
    options: { onProgress?: ((done: number, total?: number) => void) | undefined; scan?: boolean; cache?: DocCacheWriter } = {},
  ): Promise<TreeIndex> {
    const { onProgress, scan = false, cache } = options;
    const start = monotonicNow();
    const none = { changedTopics: 0, parsedTopics: 0, cachedTopics: 0, hashedSegments: 0 };
    if (!tree)
      return {
        tree,
        stack: { segments: [], deleted: new Set() },
        files: [],
        skipped: [],
        build: 'empty',
        buildMs: 0,
        ...none,
        compaction: 'none',
      };
    if (!rebuild) {
      const cached = await this.readManifest(tree);
      if (cached) {
        try {
          const checked = { parsed: 0, cached: 0, hashed: 0 };
          const opened = await this.openManifest(cached, checked);
          return {
            tree,
            ...opened,
            skipped: cached.skipped,
            build: 'cached',
            buildMs: monotonicNow() - start,
            ...none,
            hashedSegments: checked.hashed,
            compaction: shouldCompact(cached) ? 'due' : 'none',
          };
        } catch (error) {
          if (!isCorrupt(error)) throw error;
        }
      }
    }
    // A partial clone's blobs come in one fetch here, not one lazy fetch per topic as git reads them.
    await (await import('../git/partial-clone.js')).fetchMissingBlobs(this.repo, [tree]);
    mark('index: blobs present');
    const counts: Counts = { parsed: 0, cached: 0, hashed: 0, onProgress };
    let incremental: { manifest: StackManifest; changed: number; inline: boolean; uncached: boolean } | undefined;
    let opened: { stack: SegmentStack; files: string[] } | undefined;
    if (!rebuild) {
      try {
        const verified = new Map<string, Uint8Array | SegmentFile>();
        incremental = await this.tryIncremental(tree, counts, verified);
        if (incremental) opened = await this.openManifest(incremental.manifest, counts, verified);
      } catch (error) {
        if (!isCorrupt(error)) throw error;
        incremental = undefined;
      }
    }
    if (!incremental && scan) {
      const scanned = await this.scanFull(tree, counts);
      mark('index: scanned');
      return {
        tree,
        ...scanned,
        build: 'scan',
        buildMs: monotonicNow() - start,
        ...none,
        parsedTopics: counts.parsed,
        cachedTopics: counts.cached,
        compaction: 'due',
      };
    }
    const manifest = incremental?.manifest ?? (await this.buildFull(tree, counts, cache ?? 'defer'));
    mark('index: segments written');
    // A full build leaves the per-blob cache of what it extracted to maintenance (`compactTree`).
    const uncached = incremental
      ? incremental.uncached
      : !cache && counts.parsed > 0 && (await this.markUncached(tree, counts.parsedBytes ?? 0));
    opened ??= await this.openManifest(manifest, counts);
    await this.publish(tree, manifest);
    mark('index: published');
    return {
      tree,
      ...opened,
      skipped: manifest.skipped,
      build: incremental ? 'incremental' : 'full',
      buildMs: monotonicNow() - start,
      changedTopics: incremental?.changed ?? 0,
      parsedTopics: counts.parsed,
      cachedTopics: counts.cached,
      hashedSegments: counts.hashed,
      compaction: incremental?.inline ? 'inline' : uncached || shouldCompact(manifest) ? 'due' : 'none',
    };
  }

  /**
   * Rendered markdown for documents of an opened index: `(segment position, doc number)` pairs. Each
   * entry is checked against its checksum: a damaged docstore throws `index-corrupt` (open the index
   * again with `rebuild`), it never returns damaged text.
   */
  async rendered(index: TreeIndex, wanted: ReadonlyArray<{ segment: number; doc: number }>): Promise<RenderedTopic[]> {
    const bySegment = new Map<number, number[]>();
    for (const { segment, doc } of wanted) bySegment.set(segment, [...(bySegment.get(segment) ?? []), doc]);
    const texts = new Map<string, string>();
    for (const [segment, docs] of bySegment) {
      const file = index.files[segment]!;
      if (this.scanned.has(file)) {
        const entries = await this.renderBlobs(docs.map((doc) => index.stack.segments[segment]!.blob(doc)));
        docs.forEach((doc, i) => texts.set(`${segment}:${doc}`, entries[i]!));
        continue;
      }
      const inMemory = this.memory.get(file);
      if (inMemory) {
        const store = new DocstoreBytes(inMemory.docstore, file);
        for (const doc of docs) texts.set(`${segment}:${doc}`, store.entry(doc).toString('utf8'));
        continue;
      }
      for (const [doc, text] of readDocstoreEntries(this.docstoreFile(file), docs)) texts.set(`${segment}:${doc}`, text);
    }
    return wanted.map(({ segment, doc }) => parseDocstoreEntry(texts.get(`${segment}:${doc}`) ?? ''));
  }

  /**
   * The rendered markdown of topic blobs, as a build stores it in the docstore (a blob that is no
   * topic, or missing, renders as ''): for the hits of a scanned index.
   */
  private async renderBlobs(oids: readonly string[]): Promise<string[]> {
    const cached = this.docs.read(oids);
    const [fastBlobDocument, contents] = await Promise.all([
      fastExtractor(),
      Promise.all(oids.map((oid, i) => (cached[i] ? undefined : this.repo.readBlob(oid)))),
    ]);
    const entries: string[] = [];
    for (let i = 0; i < oids.length; i++) {
      let doc = cached[i];
      const bytes = contents[i];
      if (!doc && bytes) doc = fastBlobDocument(bytes.toString('utf8')) ?? (await analyzer()).fullBlobDocument(bytes.toString('utf8'));
      entries.push(doc && !isBlobProblem(doc) ? docstoreEntry(doc) : '');
    }
    return entries;
  }

  private async tryIncremental(
    tree: string,
    counts: Counts,
    verified: Map<string, Uint8Array | SegmentFile>,
  ): Promise<{ manifest: StackManifest; changed: number; inline: boolean; uncached: boolean } | undefined> {
    const previousTree = await this.lastIndexedTree();
    if (!previousTree || previousTree === tree) return undefined;
    const previous = await this.readManifest(previousTree);
    // Which of two entries with one path comes first is only certain in a full listing: such trees are built from scratch.
    if (!previous || previous.skipped.some((s) => s.problem === 'duplicate-path')) return undefined;
    let changes;
    try {
      changes = (await this.repo.diffTrees(previousTree, tree)).filter((c) => topicPathFromBlobPath(c.path) !== undefined);
    } catch {
      return undefined; // the previous tree is gone (garbage-collected): rebuild
    }
    mark('index: changes listed');
    if (changes.length > MAX_INCREMENTAL_CHANGES) return undefined;
    // Blobs the previous tree's full build left uncached are this tree's too: its maintenance caches them.
    const previousUncached = await this.uncachedBytes(previousTree);
    const uncached = previousUncached !== undefined && (await this.markUncached(tree, previousUncached));
    const changed = new Set(changes.map((c) => c.path));
    if (changed.size !== changes.length) return undefined; // a path named twice
    // The previous tree's segments, checked (and kept for the open that follows). A path "added"
    // that was already live is a second entry of a path the tree names twice: build from scratch.
    const before = await this.openManifest(previous, counts, verified);
    const live = liveView(before.stack);
    const hasLive = (topicPath: string) =>
      before.stack.segments.some((segment, s) => {
        const doc = segment.findPath(topicPath);
        return doc >= 0 && live.dead[s]?.[doc] !== 1;
      });
    if (changes.some((c) => c.status === 'A' && hasLive(topicPathFromBlobPath(c.path)!))) return undefined;
    const {
      documents: upserted,
      rendered,
      skipped,
    } = await this.readDocuments(
      changes.filter((c) => c.status !== 'D').map((c) => ({ path: c.path, oid: c.newOid })),
      counts,
    );
    const indexed = new Set(upserted.map((d) => d.path));
    // Deleted topics, and changed ones that are no longer readable topics: their old versions must go.
    const removed = changes.map((c) => topicPathFromBlobPath(c.path)!).filter((p) => !indexed.has(p));
    const plan = planIndexUpdate(previous, { upserted, removed });
    let entry: SegmentEntry | undefined;
    if (plan.documents.length > 0) {
      const bytes = buildSegment(plan.documents);
      entry = await this.writeSegment({ bytes, docstore: byPath(bytes, rendered) });
    }
    let manifest: StackManifest = {
      ...applyIndexUpdate(previous, plan, entry),
      skipped: sortSkipped([...previous.skipped.filter((s) => !changed.has(s.path)), ...skipped]),
    };
    // Compaction is left to `compactTree`, off the query path, unless the stack is far past due.
    const inline = plan.compact && mustCompactInline(manifest);
    if (inline) manifest = await this.compact(manifest, counts, verified);
    return { manifest, changed: changes.length, inline, uncached };
  }

  /**
   * Compacts the index of `tree` when its stack is due (`shouldCompact`): off the query path, for
   * `brv maintenance` (which a query's CLI process starts in the background) and servers between
   * calls. The merged segment is written under its content-addressed name and the tree's manifest
   * is replaced atomically (rename), so a query running meanwhile keeps reading the old stack,
   * whose files stay on disk for `UNUSED_FILE_GRACE_MS` (see `retire`). Idempotent: two compactions
   * of one tree write the same bytes. The last indexed tree is left as it is (a newer tree may have
   * been indexed meanwhile). A damaged index is left to the next query, which rebuilds it.
   */
  async compactTree(tree: string): Promise<TreeCompaction> {
    const start = monotonicNow();
    // A tree whose first query answered from a scan (no index yet): its index is built and written now.
    const built = (await this.readManifest(tree)) ? undefined : await this.buildAfterScan(tree);
    const cachedTopics = built?.parsed ?? (await this.fillCache(tree).catch(() => 0)); // an optimisation: never fails maintenance
    const manifest = await this.readManifest(tree);
    // The segments just built are checked and stamped here, once older than the racy window, so
    // the first warm query after a scan does not hash megabytes (segment-stamps.ts), as after a compaction.
    if (built && manifest && !shouldCompact(manifest)) await this.stampWhenSettled(manifest).catch(() => undefined); // an optimisation: never fails maintenance
    const before = manifest?.segments.length ?? 0;
    const outcome = (compacted: boolean, after = before) => ({
      tree,
      ...(built ? { indexed: built.topics } : {}),
      compacted,
      segmentsBefore: before,
      segmentsAfter: after,
      cachedTopics,
      ms: Math.round((monotonicNow() - start) * 10) / 10,
    });
    if (!manifest || !shouldCompact(manifest)) {
      // Compacted by another process: a warm index of the old stack is dropped, the next open reads the new one.
      if (manifest && this.warm.has(tree)) {
        const warm = await this.warm.get(tree)!.catch(() => undefined);
        if (warm && warm.files.join('\n') !== manifest.segments.map((s) => s.file).join('\n')) this.warm.delete(tree);
      }
      return outcome(false);
    }
    const counts: Counts = { parsed: 0, cached: 0, hashed: 0 };
    const verified = new Map<string, Uint8Array | SegmentFile>();
    this.writeFailure = undefined;
    let compacted: StackManifest;
    try {
      compacted = await this.compact(manifest, counts, verified);
    } catch (error) {
      if (isCorrupt(error)) return outcome(false);
      throw error;
    }
    let opened;
    if (compacted.segments.some((s) => this.memory.has(s.file))) {
      // The index folder cannot be written: this process serves the compacted stack from memory.
      this.memoryManifests.set(tree, compacted);
      opened = await this.openManifest(compacted, counts, verified);
    } else {
      await this.retire(manifest, compacted);
      await this.publish(tree, compacted, { last: false });
      opened = await this.stampWhenSettled(compacted, counts).catch(() => this.openManifest(compacted, counts, verified));
    }
    const index: TreeIndex = { tree, ...opened, skipped: compacted.skipped, ...NOTHING_BUILT, compaction: 'none' };
    this.warm.delete(tree);
    this.warm.set(tree, Promise.resolve(index));
    if (this.warm.size > WARM_INDEXES) this.warm.delete(this.warm.keys().next().value!);
    if (this.memoryManifests.get(tree) === compacted) {
      // Not written (a read-only or full disk): this process keeps serving it from memory (a server's
      // next queries), and the caller learns why it did not last (`brv maintenance` exits with it).
      const failure = this.writeFailure as BrvError | undefined; // set by the writes above
      throw new BrvError(
        failure?.kind ?? 'local-state-unwritable',
        `The compacted search index could not be written, so it lasts only as long as this process: ${failure?.message ?? `${this.dir} cannot be written.`} ` +
          'The index on disk is unchanged, and queries still answer from it.',
        failure?.details,
      );
    }
    return outcome(true, compacted.segments.length);
  }

  /**
   * Opens `manifest` once its newest segment is older than the racy window, so that the segments are
   * checked and stamped here, off the query path, and the next query does not hash them
   * (segment-stamps.ts). Maintenance only: it waits ~150 ms.
   */
  private async stampWhenSettled(manifest: StackManifest, counts: Counts = { parsed: 0, cached: 0, hashed: 0 }) {
    await new Promise((resolve) => setTimeout(resolve, Number(FINE_RACY_WINDOW_NS / 1_000_000n) + 50));
    return this.openManifest(manifest, counts);
  }

  /**
   * Builds and writes the index of `tree`, which has none (a query answered from a scan: see
   * `open`), caching what it extracts; the open index replaces the scanned one this process may
   * hold. Undefined when it could not (the next query scans again, or builds).
   */
  private async buildAfterScan(tree: string): Promise<{ topics: number; parsed: number } | undefined> {
    const writer = this.docs.writer();
    let index: TreeIndex;
    try {
      index = await this.load(tree, false, { cache: writer });
      writer.finish();
    } catch {
      return undefined; // maintenance never fails for an optimisation
    } finally {
      writer.abort(); // nothing left to drop once finished
    }
    this.warm.delete(tree);
    this.warm.set(tree, Promise.resolve({ ...index, ...NOTHING_BUILT, compaction: 'none' }));
    if (this.warm.size > WARM_INDEXES) this.warm.delete(this.warm.keys().next().value!);
    return { topics: index.stack.segments.reduce((sum, segment) => sum + segment.docCount, 0), parsed: index.parsedTopics };
  }

  /**
   * Caches what a full build of `tree` extracted and left uncached (see `markUncached`): its topic
   * blobs missing from the per-blob cache are read, extracted and written as one pack, so a later
   * build of any tree holding them parses nothing. Returns how many it extracted.
   */
  private async fillCache(tree: string): Promise<number> {
    const marker = this.uncachedMarker(tree);
    const token = await readLocalFile(marker, 1024).catch(() => undefined);
    if (token === undefined) return 0;
    await (await import('../git/partial-clone.js')).fetchMissingBlobs(this.repo, [tree]);
    const listed = (await this.repo.listTreeBlobs(tree)).filter((b) => topicPathFromBlobPath(b.path) !== undefined);
    const { blobs } = screenBlobs(listed);
    const counts: Counts = { parsed: 0, cached: 0, hashed: 0 };
    const writer = this.docs.writer();
    try {
      for (let from = 0; from < blobs.length; from += FULL_BUILD_CHUNK)
        await this.readDocuments(blobs.slice(from, from + FULL_BUILD_CHUNK), counts, writer);
      writer.finish();
    } finally {
      writer.abort(); // nothing left to drop once finished
    }
    // Marked again meanwhile (another build of this tree): left for that build's maintenance.
    const now = await readLocalFile(marker, 1024).catch(() => undefined);
    if (now !== undefined && now.equals(token)) await rm(marker, { force: true });
    return counts.parsed;
  }

  /**
   * Records that a build of `tree` left `bytes` of topic blobs out of the per-blob cache. True when
   * that makes maintenance due: recorded, and enough bytes to be worth a process (`fillCacheFromBytes`).
   */
  private async markUncached(tree: string, bytes: number): Promise<boolean> {
    try {
      await this.writeAtomic(this.uncachedMarker(tree), `${randomBytes(8).toString('hex')} ${bytes}\n`);
    } catch {
      return false; // a read-only index folder: nothing for maintenance to do either
    }
    return bytes >= this.fillCacheFromBytes;
  }

  /** The bytes a build of `tree` left uncached, from its marker; undefined when none; a marker without a count counts as due. */
  private async uncachedBytes(tree: string): Promise<number | undefined> {
    const marker = await readLocalFile(this.uncachedMarker(tree), 1024).catch(() => undefined);
    if (marker === undefined) return undefined;
    const bytes = Number(marker.toString('latin1').trim().split(' ')[1]);
    return Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : Number.POSITIVE_INFINITY;
  }

  private uncachedMarker(tree: string): string {
    return path.join(this.manifests, `${tree}.uncached`);
  }

  /**
   * Marks the files of a stack that a compaction replaces as just retired (their modification time
   * set to now), before the new manifest is published: pruning keeps unused files for
   * `UNUSED_FILE_GRACE_MS` after that, so a query that read the old manifest a moment before still
   * finds every segment and docstore it names.
   */
  private async retire(old: StackManifest, replacement: StackManifest): Promise<void> {
    const kept = new Set(replacement.segments.map((s) => s.file));
    const now = new Date();
    for (const { file } of old.segments) {
      if (kept.has(file) || this.memory.has(file)) continue;
      for (const name of [path.join(this.segments, file), this.docstoreFile(file)]) await lutimes(name, now, now).catch(() => {});
    }
  }

  private async compact(manifest: StackManifest, counts: Counts, verified: Map<string, Uint8Array | SegmentFile>): Promise<StackManifest> {
    const { stack, files } = await this.openManifest(manifest, counts, verified);
    const view = liveView(stack);
    const bytes = compact(stack);
    const sources = await Promise.all(files.map((file) => this.docstoreBytes(file)));
    const merged = Segment.open(bytes);
    const docstore = (i: number) => {
      const target = merged.pathBytes(i);
      for (let s = stack.segments.length - 1; s >= 0; s--) {
        const doc = stack.segments[s]!.findPath(target);
        if (doc >= 0 && view.dead[s]?.[doc] !== 1) return sources[s]!.entry(doc);
      }
      return Buffer.alloc(0);
    };
    const entry = await this.writeSegment({ bytes, docstore });
    verified.set(entry.file, bytes);
    return singleSegmentManifest(entry, manifest.skipped);
  }

  /** A segment's whole docstore (for compaction): from memory, or read from disk (bounded, no special files). */
  private async docstoreBytes(file: string): Promise<DocstoreBytes> {
    const inMemory = this.memory.get(file);
    if (inMemory) return new DocstoreBytes(inMemory.docstore, file);
    let bytes;
    try {
      bytes = await readLocalFile(this.docstoreFile(file), MAX_SEGMENT_BYTES);
    } catch {
      bytes = undefined;
    }
    if (!bytes) throw new BrvError('index-corrupt', `The docstore of search index segment ${file} is missing or unreadable.`);
    return new DocstoreBytes(bytes, this.docstoreFile(file));
  }

  private async buildFull(tree: string, counts: Counts, cache: DocCacheWriter | 'defer'): Promise<StackManifest> {
    const listing = this.repo.listTreeBlobs(tree);
    // The object reader's process starts while git lists the tree: the build reads every blob next.
    this.repo.prepareObjectReader();
    const listed = (await listing).filter((b) => topicPathFromBlobPath(b.path) !== undefined);
    const { blobs, skipped } = screenBlobs(listed);
    counts.total = blobs.length;
    // Chunks bound memory at 100,000 topics: each chunk's text is analysed into a small segment and
    // a docstore, written to a temporary file when there are several chunks (100,000 topics' markdown
    // is ~130 MB); the segments are then merged without re-analysing anything.
    const parts: Array<{ segment: Segment; docstore: PartDocstore }> = [];
    const spilled: string[] = [];
    // What this build extracts is not cached here: writing the cache entries was a tenth of the first
    // query of a fetched tree; maintenance writes them (`fillCache`), off the query path.
    try {
      for (let from = 0; from === 0 || from < blobs.length; from += FULL_BUILD_CHUNK) {
        const read = await this.readDocuments(blobs.slice(from, from + FULL_BUILD_CHUNK), counts, cache);
        skipped.push(...read.skipped);
        const bytes = buildSegment(read.documents);
        const lookup = byPath(bytes, read.rendered);
        const segment = Segment.open(bytes);
        parts.push({ segment, docstore: await this.partDocstore(segment.docCount, lookup, blobs.length > FULL_BUILD_CHUNK, spilled) });
      }
      return await this.mergeParts(parts, skipped);
    } finally {
      for (const { docstore } of parts) if (docstore instanceof DocstoreFile) docstore.close();
      for (const file of spilled) await rm(file, { force: true });
    }
  }

  /**
   * The index `buildFull` would write for `tree`, built in memory from its blobs and written nowhere
   * (see `IndexBuild` 'scan'): the same chunks and merge, so the same segment bytes, but fields only
   * (no markdown rendered, no docstore). `rendered` extracts the markdown of the hits it is asked for.
   */
  private async scanFull(tree: string, counts: Counts): Promise<{ stack: SegmentStack; files: string[]; skipped: SkippedTopic[] }> {
    const listing = this.repo.listTreeBlobs(tree);
    this.repo.prepareObjectReader();
    const listed = (await listing).filter((b) => topicPathFromBlobPath(b.path) !== undefined);
    const { blobs, skipped } = screenBlobs(listed);
    counts.total = blobs.length;
    const bytes = blobs.reduce((sum, blob) => sum + blob.size, 0);
    let segment: Segment;
    if (bytes <= SCAN_ONE_PASS_BYTES) {
      segment = await this.scanOnePass(blobs, counts, skipped);
    } else {
      // Chunks merged, as a full build does (bounded memory): the same bytes (mergeSegments).
      const parts: Segment[] = [];
      for (let from = 0; from === 0 || from < blobs.length; from += FULL_BUILD_CHUNK) {
        const read = await this.readDocuments(blobs.slice(from, from + FULL_BUILD_CHUNK), counts, 'scan');
        skipped.push(...read.skipped);
        parts.push(Segment.open(buildSegment(read.documents)));
      }
      segment = Segment.open(mergeSegments(parts.map((part) => ({ segment: part }))));
    }
    const file = `scan-${randomBytes(8).toString('hex')}`;
    this.scanned.add(file);
    return { stack: { segments: [segment], deleted: new Set() }, files: [file], skipped: sortSkipped(skipped) };
  }

  /**
   * One segment over `blobs` (screened), each topic extracted (fields only) and analysed in turn, in
   * the segment's path order, so no topic's texts outlive its analysis: the bytes `buildSegment`
   * writes for the documents `readDocuments` reads. Blobs that are no topic, or missing, go to `skipped`.
   */
  private async scanOnePass(
    blobs: ReadonlyArray<{ path: string; oid: string; size: number }>,
    counts: Counts,
    skipped: SkippedTopic[],
  ): Promise<Segment> {
    const ordered = blobs
      .map((blob) => {
        const topicPath = topicPathFromBlobPath(blob.path)!;
        return { blob, topicPath, key: pathOrderKey(topicPath) };
      })
      .sort((a, b) => comparePathKeys(a.key, b.key));
    const cached = this.docs.read(ordered.map((o) => o.blob.oid));
    mark('index: cache read');
    const extractor = fastFieldsExtractor();
    // Every blob asked for at once, each taken as git sends it: extraction runs while git reads the next ones.
    const contents: Array<Promise<Buffer | undefined> | undefined> = ordered.map((o, i) =>
      cached[i] === undefined ? this.repo.readBlob(o.blob.oid) : undefined,
    );
    for (const content of contents) content?.catch(() => {}); // awaited below; not unhandled if an earlier one throws
    const extract = await extractor;
    const builder = new SegmentBuilder(ordered.length);
    for (let i = 0; i < ordered.length; i++) {
      const { blob, topicPath, key } = ordered[i]!;
      let doc = cached[i];
      if (doc !== undefined) {
        counts.cached++;
      } else {
        const content = await contents[i];
        contents[i] = undefined;
        if (content === undefined) {
          skipped.push({ path: blob.path, problem: 'missing', message: `Blob ${blob.oid} is missing from the repository.` });
          continue;
        }
        counts.parsed++;
        counts.parsedBytes = (counts.parsedBytes ?? 0) + blob.size;
        const html = content.toString('utf8');
        doc = extract(html);
        if (doc === undefined) {
          const full = (await analyzer()).fullBlobDocument(html);
          doc = isBlobProblem(full) ? full : { ...full, markdown: '', text: '' };
        }
      }
      progressed(counts, 1);
      if (isBlobProblem(doc)) {
        skipped.push({ path: blob.path, problem: doc.problem, message: doc.message });
        continue;
      }
      builder.add(documentAt(topicPath, blob.oid, doc), key);
    }
    mark('index: topics extracted');
    return Segment.open(builder.finish());
  }

  /**
   * A build part's docstore: for a single part, its entries as they are (written once, by
   * writeSegment); for one of several, written to a temporary file in the segments folder and read
   * back entry by entry (`spill`), or packed in memory when the folder cannot be written.
   */
  private async partDocstore(count: number, entry: (i: number) => Buffer, spill: boolean, spilled: string[]): Promise<PartDocstore> {
    if (!spill) return { entry };
    const file = path.join(this.segments, `part-${process.pid}-${randomBytes(6).toString('hex')}.md.tmp`);
    try {
      await this.writeAtomic(file, () => docstoreChunks(count, entry));
      spilled.push(file);
      return new DocstoreFile(file);
    } catch {
      return new DocstoreBytes(docstoreBytes(count, entry));
    }
  }

  private async mergeParts(
    parts: ReadonlyArray<{ segment: Segment; docstore: PartDocstore }>,
    skipped: SkippedTopic[],
  ): Promise<StackManifest> {
    if (parts.length === 1) {
      const [{ segment, docstore }] = parts as [(typeof parts)[0]];
      return singleSegmentManifest(await this.writeSegment({ bytes: segment.bytes, docstore: (i) => docstore.entry(i) }), skipped);
    }
    const bytes = mergeSegments(parts.map(({ segment }) => ({ segment })));
    const merged = Segment.open(bytes);
    const docstore = (i: number) => {
      const target = merged.pathBytes(i);
      for (const part of parts) {
        const doc = part.segment.findPath(target);
        if (doc >= 0) return part.docstore.entry(doc);
      }
      return Buffer.alloc(0);
    };
    return singleSegmentManifest(await this.writeSegment({ bytes, docstore }), skipped);
  }

  /**
   * The index documents and rendered markdown of topic blobs: from the per-blob cache where it has
   * them, else read, parsed and rendered (and then cached, so the next build of any tree holding
   * them parses nothing). Nothing in a blob is trusted: one larger than `MAX_INDEXED_BLOB_BYTES` is
   * never read (its size comes from the tree listing or the object header), and one that is not a
   * readable topic is skipped; both are returned in `skipped` with their problem. New entries are
   * written before this returns, go to `cache` when it is a writer (maintenance's), or are left
   * (`'defer'`: a full build's, cached later by maintenance).
   */
  private async readDocuments(
    blobs: ReadonlyArray<{ path: string; oid: string; size?: number }>,
    counts: Counts,
    cache: DocCacheWriter | 'write' | 'defer' | 'scan' = 'write',
  ): Promise<{ documents: SegmentInput[]; rendered: Map<string, string>; skipped: SkippedTopic[] }> {
    const documents: SegmentInput[] = [];
    const rendered = new Map<string, string>();
    const skipped: SkippedTopic[] = [];
    if (blobs.length === 0) return { documents, rendered, skipped };
    const entries: Array<CachedBlob | undefined> = this.docs.read(blobs.map((b) => b.oid));
    mark('index: cache read');
    counts.cached += entries.filter((e) => e !== undefined).length;
    progressed(counts, entries.filter((e) => e !== undefined).length);
    const missing = blobs.filter((_, i) => entries[i] === undefined);
    if (missing.length > 0) {
      // Sizes first: a huge blob is refused from its header, never loaded.
      const sizes = new Map<string, number | undefined>(missing.map((b) => [b.oid, b.size]));
      const unknown = [...sizes].filter(([, size]) => size === undefined).map(([oid]) => oid);
      if (unknown.length > 0) for (const [oid, size] of await this.repo.blobSizes(unknown)) sizes.set(oid, size);
      const verdicts = new Map<string, CachedBlob | 'missing'>();
      const toRead: string[] = [];
      for (const [oid, size] of sizes) {
        if (size === undefined) verdicts.set(oid, 'missing');
        else if (size > MAX_INDEXED_BLOB_BYTES)
          verdicts.set(oid, {
            problem: 'too-large',
            message: `The blob is ${size} bytes; topics are at most ${MAX_INDEXED_BLOB_BYTES} bytes, so it was not read.`,
          });
        else toRead.push(oid);
      }
      const fresh = new Map<string, CachedBlob>();
      if (toRead.length > 0) {
        counts.parsed += toRead.length;
        counts.parsedBytes = toRead.reduce((sum, oid) => sum + sizes.get(oid)!, counts.parsedBytes ?? 0);
        // The extractor's code loads while git sends the blobs.
        const extractor = cache === 'scan' ? fastFieldsExtractor() : fastExtractor();
        const contents = await Promise.all(toRead.map((oid) => this.repo.readBlob(oid)));
        const fastBlobDocument = await extractor;
        mark('index: blobs read');
        // Canonical blobs (all brv writes) take the fast path; the HTML toolchain loads only for the rest.
        const bailed: number[] = [];
        toRead.forEach((oid, i) => {
          const bytes = contents[i];
          const fast = bytes === undefined ? undefined : fastBlobDocument(bytes.toString('utf8'));
          if (bytes !== undefined && fast === undefined) {
            bailed.push(i);
            return;
          }
          if (fast === undefined) verdicts.set(oid, 'missing');
          else fresh.set(oid, fast);
          progressed(counts, 1);
        });
        if (bailed.length > 0) {
          const { fullBlobDocument } = await analyzer();
          for (const i of bailed) {
            const doc = fullBlobDocument(contents[i]!.toString('utf8'));
            fresh.set(toRead[i]!, cache === 'scan' && !isBlobProblem(doc) ? { ...doc, markdown: '', text: '' } : doc);
            progressed(counts, 1);
          }
        }
        for (const [oid, doc] of fresh) verdicts.set(oid, doc);
      }
      blobs.forEach((blob, i) => {
        if (entries[i] !== undefined) return;
        const verdict = verdicts.get(blob.oid);
        if (verdict === 'missing' || verdict === undefined)
          skipped.push({ path: blob.path, problem: 'missing', message: `Blob ${blob.oid} is missing from the repository.` });
        else entries[i] = verdict;
      });
      mark('index: topics extracted');
      try {
        if (cache === 'write') this.docs.write(fresh);
        else if (cache !== 'defer' && cache !== 'scan') for (const [oid, doc] of fresh) cache.add(oid, doc);
      } catch {
        // The cache is an optimisation: a read-only or full disk must not fail the query.
      }
      mark('index: cache written');
    }
    blobs.forEach((blob, i) => {
      const doc = entries[i];
      if (!doc) return;
      if (isBlobProblem(doc)) {
        skipped.push({ path: blob.path, problem: doc.problem, message: doc.message });
        return;
      }
      const topicPath = topicPathFromBlobPath(blob.path)!;
      documents.push(documentAt(topicPath, blob.oid, doc));
      if (cache !== 'scan') rendered.set(topicPath, docstoreEntry(doc));
    });
    return { documents, rendered, skipped };
  }

  /**
   * Writes a segment and its docstore under their content-addressed name. When the index folder
   * cannot be written (read-only, full, a file in the way that is not brv's to remove), the segment
   * is kept in memory instead: this process still answers, the next one tries to write again.
   */
  private async writeSegment(built: Built): Promise<SegmentEntry> {
    const file = segmentFileName(built.bytes);
    const docCount = Segment.open(built.bytes).docCount;
    try {
      await this.writeAtomic(this.docstoreFile(file), () => docstoreChunks(docCount, built.docstore));
      await this.writeAtomic(path.join(this.segments, file), built.bytes);
      this.memory.delete(file);
    } catch (error) {
      // A damaged docstore being compacted: not a write problem.
      if (error instanceof BrvError && error.kind === 'index-corrupt') throw error;
      if (error instanceof BrvError) this.writeFailure = error;
      this.memory.set(file, { segment: built.bytes, docstore: docstoreBytes(docCount, built.docstore) });
    }
    return { file, docs: docCount };
  }

  /**
   * Opens the segments a manifest names, checking what their content-addressed names promise (the
   * SHA-256 of their bytes) and that each docstore beside them is whole: a bit flip, truncation or
   * anything that is not a regular file is `index-corrupt`, and the caller rebuilds. A segment whose
   * file status equals a settled stamp (segment-stamps.ts) was checked before and has not been
   * written since: its hash is skipped. Segments hashed here are stamped.
   */
  private async openManifest(
    manifest: StackManifest,
    counts: Counts,
    verified: Map<string, Uint8Array | SegmentFile> = new Map(),
  ): Promise<{ stack: SegmentStack; files: string[] }> {
    const files = new Map<string, Uint8Array | SegmentFile>();
    const onDisk = manifest.segments.filter(({ file }) => !this.memory.has(file) && !verified.has(file));
    const stamps = onDisk.length > 0 ? await this.readStamps() : undefined;
    const fresh: FreshStamps = new Map();
    await Promise.all(
      manifest.segments.map(async ({ file, docs }) => {
        const known = this.memory.get(file)?.segment ?? verified.get(file);
        if (known) {
          files.set(file, known);
          return;
        }
        let opened;
        try {
          opened = openLocalFileSync(path.join(this.segments, file), MAX_SEGMENT_BYTES);
        } catch {
          opened = undefined;
        }
        if (!opened) throw new BrvError('index-corrupt', `Search index segment ${file} is missing or unreadable.`);
        // A segment whose stamp says it is the file hashed before is read as a query needs its parts.
        const source = new SegmentFile(opened.fd, Number(opened.stat.size), file);
        const stamp = stampOf(opened.stat);
        if (!stamps || !trusted(stamps.stamps.get(file), stamp, stamps.writtenNs)) {
          counts.hashed++;
          const read = source.readAllWithStatus();
          if (segmentFileName(source.bytes) !== file)
            throw new BrvError('index-corrupt', `Search index segment ${file} is damaged (its bytes do not match its name).`);
          // The stamp of what was hashed: the status before reading, if the file's after is the same.
          // Timed from the end of the hash, so a slow read or hash of a large segment does not make
          // the stamp too late to record (STAMP_DELAY_LIMIT_MS).
          if (read && sameStamp(stampOf(read), stamp)) fresh.set(file, { stamp, at: monotonicNow() });
        }
        if (!docstoreLooksValid(this.docstoreFile(file), docs))
          throw new BrvError('index-corrupt', `The docstore of search index segment ${file} is damaged.`);
        files.set(file, source);
        verified.set(file, source);
      }),
    );
    const opened = { stack: openStack(manifest, (file) => files.get(file)!), files: manifest.segments.map((s) => s.file) };
    if (fresh.size > 0) await this.writeStamps(stamps, fresh).catch(() => {}); // an optimisation: never fails an open
    return opened;
  }

  /** The stamps of checked segments; none when the stamp file is missing, unreadable or damaged. */
  private async readStamps(): Promise<Stamps | undefined> {
    try {
      const read = await readLocalFileStat(this.stampFile(), MAX_STAMP_FILE_BYTES);
      if (!read) return undefined;
      return { writtenNs: read.stat.mtimeNs, stamps: parseStamps(read.bytes.toString('utf8')) };
    } catch {
      return undefined;
    }
  }

  /**
   * Records the stamps of segments just hashed, keeping the settled stamps read before (a stamp not
   * yet settled is dropped: its segment is hashed again when next opened). Stamps are judged
   * against the time the file is written, so they must reach the disk soon after their status was
   * taken: past `STAMP_DELAY_LIMIT_MS` (a stalled process) nothing is written, and a file that only
   * got there late is written again without them.
   */
  private async writeStamps(previous: Stamps | undefined, fresh: FreshStamps): Promise<void> {
    const earliest = Math.min(...[...fresh.values()].map((f) => f.at));
    const late = () => monotonicNow() - earliest > STAMP_DELAY_LIMIT_MS;
    if (late()) return;
    const kept: Array<[string, FileStamp]> = [];
    for (const [file, stamp] of previous?.stamps ?? []) {
      if (!fresh.has(file) && settled(stamp, previous!.writtenNs)) kept.push([file, stamp]);
    }
    const added = [...fresh].map(([file, { stamp }]): [string, FileStamp] => [file, stamp]);
    await this.writeAtomic(this.stampFile(), serializeStamps([...added, ...kept].slice(0, MAX_STAMPS)));
    if (late()) await this.writeAtomic(this.stampFile(), serializeStamps(kept.slice(0, MAX_STAMPS)));
  }

  private async readManifest(tree: string): Promise<StackManifest | undefined> {
    const inMemory = this.memoryManifests.get(tree);
    if (inMemory) return inMemory;
    let bytes;
    try {
      bytes = await readLocalFile(this.manifestFile(tree), MAX_MANIFEST_BYTES);
    } catch {
      return undefined;
    }
    if (bytes === undefined) return undefined;
    try {
      return parseStackManifest(bytes.toString('utf8'));
    } catch {
      return undefined;
    }
  }

  private async lastIndexedTree(): Promise<string | undefined> {
    if (this.lastInMemory) return this.lastInMemory;
    try {
      const tree = (await readLocalFile(path.join(this.dir, 'last'), 1024))?.toString('utf8').trim();
      return tree !== undefined && /^[0-9a-f]{40,64}$/.test(tree) ? tree : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Records the manifest and (unless `last` is false: a compaction) the last indexed tree; when they
   * cannot be written, this process keeps them in memory.
   */
  private async publish(tree: string, manifest: StackManifest, options: { last?: boolean } = {}): Promise<void> {
    const last = options.last ?? true;
    const written = manifest.segments.every((s) => !this.memory.has(s.file));
    try {
      if (!written) throw new Error('segments are in memory');
      await this.writeAtomic(this.manifestFile(tree), serializeStack(manifest));
      if (last) await this.writeAtomic(path.join(this.dir, 'last'), `${tree}\n`);
      this.memoryManifests.delete(tree);
      if (last) this.lastInMemory = undefined;
    } catch (error) {
      if (error instanceof BrvError) this.writeFailure ??= error;
      this.memoryManifests.set(tree, manifest);
      if (last) this.lastInMemory = tree;
      return;
    }
    await this.prune().catch(() => {});
  }

  /**
   * Keeps the newest manifests and the segments they use; drops indexes of older brv versions; at
   * most once a day, sweeps the per-blob cache.
   */
  private async prune(): Promise<void> {
    const root = path.dirname(this.dir);
    for (const name of await readdir(root)) {
      if (name !== path.basename(this.dir)) await rm(path.join(root, name), { recursive: true, force: true });
    }
    await this.pruneManifests();
    await this.sweepDocCache();
  }

  /**
   * Deletes per-blob cache entries that no index segment still on disk uses (and that are older than
   * a day: a curate's entry waits for its first query). It lists every entry, so it runs at most once
   * per `DOC_CACHE_SWEEP_INTERVAL_MS` unless forced; returns undefined when it did not run.
   */
  async sweepDocCache(options: { force?: boolean; graceMs?: number } = {}): Promise<{ kept: number; removed: number } | undefined> {
    const stamp = path.join(this.docs.dir, 'swept');
    if (!options.force) {
      const last = await stat(stamp).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      if (last !== undefined && Date.now() - last < DOC_CACHE_SWEEP_INTERVAL_MS) return undefined;
    }
    await writeLocalFile(stamp, `${new Date().toISOString()}\n`);
    const referenced = new Set<string>();
    for (const file of await readdir(this.segments).catch(() => [] as string[])) {
      if (!file.endsWith('.seg')) continue;
      let segment;
      try {
        const bytes = await readLocalFile(path.join(this.segments, file), MAX_SEGMENT_BYTES);
        if (!bytes) continue;
        segment = Segment.open(bytes);
      } catch {
        continue; // damaged or being replaced: its blobs are re-parsed if ever needed
      }
      for (let doc = 0; doc < segment.docCount; doc++) referenced.add(segment.blob(doc));
    }
    return this.docs.sweep(referenced, options.graceMs);
  }

  private async pruneManifests(): Promise<void> {
    const names = (await readdir(this.manifests)).filter((n) => n.endsWith('.json'));
    if (names.length <= KEEP_MANIFESTS) return;
    const dated = await Promise.all(names.map(async (n) => ({ n, mtime: (await stat(path.join(this.manifests, n))).mtimeMs })));
    dated.sort((a, b) => b.mtime - a.mtime);
    for (const { n } of dated.slice(KEEP_MANIFESTS)) {
      await rm(path.join(this.manifests, n), { recursive: true, force: true });
      await rm(this.uncachedMarker(n.replace(/\.json$/, '')), { recursive: true, force: true });
    }
    const used = new Set<string>();
    for (const { n } of dated.slice(0, KEEP_MANIFESTS)) {
      const manifest = await this.readManifest(n.replace(/\.json$/, ''));
      for (const segment of manifest?.segments ?? []) used.add(segment.file);
    }
    const now = Date.now();
    for (const file of await readdir(this.segments)) {
      if (used.has(file.replace(/\.md$/, '')) || this.memory.has(file.replace(/\.md$/, ''))) continue;
      // Young files are left alone: a temp file or a segment another process is writing before it
      // publishes its manifest, or files a compaction has just retired, which a query that read the
      // old manifest may still open (see `retire`).
      if (now - (await lstat(path.join(this.segments, file)).catch(() => ({ mtimeMs: 0 }))).mtimeMs < UNUSED_FILE_GRACE_MS) continue;
      await rm(path.join(this.segments, file), { recursive: true, force: true });
    }
  }

  /**
   * Writes a file of this index whole (store/local-file.ts). Whatever stands in the way inside the
   * index folder (a directory or FIFO where a file belongs, a file where a folder belongs) is brv's
   * own damaged state, and is removed; outside it, nothing is touched.
   */
  private writeAtomic(file: string, data: LocalFileData): Promise<void> {
    return writeLocalFile(file, data, { repair: this.dir });
  }

  private stampFile(): string {
    return path.join(this.dir, 'segment-stamps');
  }

  private docstoreFile(segmentFile: string): string {
    return path.join(this.segments, `${segmentFile}.md`);
  }

  private manifestFile(tree: string): string {
    if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new BrvError('invalid-object-name', `"${tree}" is not a tree id.`);
    return path.join(this.manifests, `${tree}.json`);
  }
}

/**
 * The blobs of a tree listing to index: the first entry of a path the tree names twice (a tree
 * written with plumbing) and blobs small enough to be topics. The rest is skipped, unread.
 */
function screenBlobs(listed: ReadonlyArray<{ path: string; oid: string; size: number }>): {
  blobs: Array<{ path: string; oid: string; size: number }>;
  skipped: SkippedTopic[];
} {
  const seen = new Set<string>();
  const blobs: Array<{ path: string; oid: string; size: number }> = [];
  const skipped: SkippedTopic[] = [];
  for (const blob of listed) {
    const topicPath = topicPathFromBlobPath(blob.path)!;
    if (seen.has(topicPath)) {
      skipped.push({
        path: blob.path,
        problem: 'duplicate-path',
        message: `The tree names ${blob.path} more than once (written with plumbing); the first entry is indexed, blob ${blob.oid} is not.`,
      });
      continue;
    }
    seen.add(topicPath);
    if (blob.size > MAX_INDEXED_BLOB_BYTES) {
      skipped.push({
        path: blob.path,
        problem: 'too-large',
        message: `The blob is ${blob.size} bytes; topics are at most ${MAX_INDEXED_BLOB_BYTES} bytes, so it was not read.`,
      });
      continue;
    }
    blobs.push(blob);
  }
  return { blobs, skipped };
}

/** The docstore entries of one part of a full build (a temporary file, or in memory). */
type PartDocstore = Pick<DocstoreFile, 'entry'>;

/**
 * Docstore entries in a new segment's document order, from texts keyed by topic path, each encoded
 * once (writing a docstore asks for every entry twice: its checksum, then its bytes).
 */
function byPath(bytes: Uint8Array, rendered: ReadonlyMap<string, string>): (i: number) => Buffer {
  const segment = Segment.open(bytes);
  const encoded: Buffer[] = [];
  return (i) => (encoded[i] ??= Buffer.from(rendered.get(segment.path(i)) ?? '', 'utf8'));
}
