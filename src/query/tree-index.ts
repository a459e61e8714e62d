import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../errors.js';
import type { GitRepository } from '../git/repository.js';
import { topicPathFromBlobPath } from '../topic/path.js';
import { DOC_CACHE_VERSION, DocCache, documentAt, type CachedBlob } from './doc-cache.js';
import type { SegmentInput } from './document.js';
import { buildDocstore, DocstoreBytes, docstoreLooksValid, readDocstoreEntries, writeDocstoreFile } from './docstore.js';
import { buildSegment, mergeSegments, Segment } from './segment.js';
import {
  applyIndexUpdate,
  compact,
  liveView,
  openStack,
  parseStackManifest,
  planIndexUpdate,
  segmentFileName,
  serializeStack,
  singleSegmentManifest,
  type SegmentEntry,
  type SegmentStack,
  type StackManifest,
} from './stack.js';

export type IndexBuild = 'cached' | 'incremental' | 'full' | 'empty';

export interface TreeIndex {
  tree: string | undefined;
  stack: SegmentStack;
  /** Segment file names, parallel to `stack.segments` (their docstores sit next to them). */
  files: string[];
  build: IndexBuild;
  buildMs: number;
  /** For incremental builds: how many topics were re-read. */
  changedTopics: number;
  /** Topic blobs this open had to parse and render (loading the HTML code): cache misses. */
  parsedTopics: number;
  /** Topic blobs this open took from the per-blob cache instead (see doc-cache.ts). */
  cachedTopics: number;
}

/** Per open: topic blobs parsed (cache misses) and taken from the per-blob cache. */
interface Counts {
  parsed: number;
  cached: number;
}

/**
 * Bumped whenever analysis or the index format changes what an index holds: older indexes are then
 * simply not found (and pruned), never misread. A change to what is extracted from a topic or to its
 * rendering bumps `DOC_CACHE_VERSION` (doc-cache.ts) instead, which also names the index folder
 * (`v<INDEX_VERSION>.<DOC_CACHE_VERSION>`): indexes built from the old entries are dropped with them.
 */
export const INDEX_VERSION = 3;
/** Above this many changed topics an incremental update is not worth it: rebuild from the tree. */
const MAX_INCREMENTAL_CHANGES = 2000;
/** Manifests kept; older ones (and segments only they use) are pruned. */
const KEEP_MANIFESTS = 12;
/** Topics analysed per chunk in a full build: bounds memory at 100,000 topics. */
const FULL_BUILD_CHUNK = 2000;
/** How often the per-blob cache is swept of entries no kept index uses (a sweep lists every entry). */
const DOC_CACHE_SWEEP_INTERVAL_MS = 24 * 60 * 60 * 1000;

interface Built {
  bytes: Uint8Array;
  docstore: (i: number) => Buffer;
}

/**
 * Parsing and rendering of topic HTML: loaded only when a blob missing from the per-blob cache is
 * indexed, never to answer a query.
 */
async function analyzer() {
  const { blobDocument } = await import('./document.js');
  performance.mark('index: HTML code loaded');
  return { blobDocument };
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

export class TreeIndexStore {
  private readonly dir: string;
  private readonly manifests: string;
  private readonly segments: string;
  private readonly docs: DocCache;
  /** Indexes opened by this store, by tree (a tree's index never changes): a long-lived process (MCP) reuses them. */
  private readonly warm = new Map<string, Promise<TreeIndex>>();

  constructor(
    private readonly repo: GitRepository,
    indexRoot: string,
    docs: DocCache = DocCache.forRepository(repo.location.commonDir),
  ) {
    this.docs = docs;
    this.dir = path.join(indexRoot, `v${INDEX_VERSION}.${DOC_CACHE_VERSION}`);
    this.manifests = path.join(this.dir, 'trees');
    this.segments = path.join(this.dir, 'segments');
  }

  async open(tree: string | undefined): Promise<TreeIndex> {
    if (!tree) return this.load(tree);
    let opened = this.warm.get(tree);
    // Another process may have pruned (or someone deleted) the files a warm index reads its texts from.
    if (opened && !existsSync(this.manifestFile(tree))) {
      this.warm.delete(tree);
      opened = undefined;
    }
    if (opened) {
      const index = await opened;
      return { ...index, build: 'cached', buildMs: 0, changedTopics: 0, parsedTopics: 0, cachedTopics: 0 };
    }
    opened = this.load(tree);
    this.warm.set(tree, opened);
    opened.catch(() => this.warm.delete(tree));
    if (this.warm.size > WARM_INDEXES) this.warm.delete(this.warm.keys().next().value!);
    return opened;
  }

  private async load(tree: string | undefined): Promise<TreeIndex> {
    const start = performance.now();
    const none = { changedTopics: 0, parsedTopics: 0, cachedTopics: 0 };
    if (!tree) return { tree, stack: { segments: [], deleted: new Set() }, files: [], build: 'empty', buildMs: 0, ...none };
    const cached = await this.readManifest(tree);
    if (cached) {
      try {
        return { tree, ...(await this.openManifest(cached)), build: 'cached', buildMs: performance.now() - start, ...none };
      } catch (error) {
        if (!(error instanceof BrvError && error.kind === 'index-corrupt')) throw error;
      }
    }
    const counts = { parsed: 0, cached: 0 };
    const incremental = await this.tryIncremental(tree, counts);
    const manifest = incremental?.manifest ?? (await this.buildFull(tree, counts));
    performance.mark('index: segments written');
    await this.publish(tree, manifest);
    performance.mark('index: published');
    return {
      tree,
      ...(await this.openManifest(manifest)),
      build: incremental ? 'incremental' : 'full',
      buildMs: performance.now() - start,
      changedTopics: incremental?.changed ?? 0,
      parsedTopics: counts.parsed,
      cachedTopics: counts.cached,
    };
  }

  /** Rendered markdown for documents of an opened index: `(segment position, doc number)` pairs. */
  async rendered(index: TreeIndex, wanted: ReadonlyArray<{ segment: number; doc: number }>): Promise<string[]> {
    const bySegment = new Map<number, number[]>();
    for (const { segment, doc } of wanted) bySegment.set(segment, [...(bySegment.get(segment) ?? []), doc]);
    const texts = new Map<string, string>();
    for (const [segment, docs] of bySegment) {
      for (const [doc, text] of readDocstoreEntries(this.docstoreFile(index.files[segment]!), docs)) texts.set(`${segment}:${doc}`, text);
    }
    return wanted.map(({ segment, doc }) => texts.get(`${segment}:${doc}`) ?? '');
  }

  private async tryIncremental(tree: string, counts: Counts): Promise<{ manifest: StackManifest; changed: number } | undefined> {
    const previousTree = await this.lastIndexedTree();
    if (!previousTree || previousTree === tree) return undefined;
    const previous = await this.readManifest(previousTree);
    if (!previous) return undefined;
    let changes;
    try {
      changes = (await this.repo.diffTrees(previousTree, tree)).filter((c) => topicPathFromBlobPath(c.path) !== undefined);
    } catch {
      return undefined; // the previous tree is gone (garbage-collected): rebuild
    }
    performance.mark('index: changes listed');
    if (changes.length > MAX_INCREMENTAL_CHANGES) return undefined;
    const { documents: upserted, rendered } = await this.readDocuments(
      changes.filter((c) => c.status !== 'D').map((c) => ({ path: c.path, oid: c.newOid })),
      counts,
    );
    const removed = changes.filter((c) => c.status === 'D').map((c) => topicPathFromBlobPath(c.path)!);
    const plan = planIndexUpdate(previous, { upserted, removed });
    let entry: SegmentEntry | undefined;
    if (plan.documents.length > 0) {
      const bytes = buildSegment(plan.documents);
      entry = await this.writeSegment({ bytes, docstore: byPath(bytes, rendered) });
    }
    let manifest = applyIndexUpdate(previous, plan, entry);
    if (plan.compact) manifest = await this.compact(manifest);
    return { manifest, changed: changes.length };
  }

  private async compact(manifest: StackManifest): Promise<StackManifest> {
    const { stack, files } = await this.openManifest(manifest);
    const view = liveView(stack);
    const bytes = compact(stack);
    const sources = await Promise.all(files.map(async (file) => new DocstoreBytes(await readFile(this.docstoreFile(file)))));
    const merged = Segment.open(bytes);
    const docstore = (i: number) => {
      const target = merged.pathBytes(i);
      for (let s = stack.segments.length - 1; s >= 0; s--) {
        const doc = stack.segments[s]!.findPath(target);
        if (doc >= 0 && view.dead[s]?.[doc] !== 1) return sources[s]!.entry(doc);
      }
      return Buffer.alloc(0);
    };
    return singleSegmentManifest(await this.writeSegment({ bytes, docstore }));
  }

  private async buildFull(tree: string, counts: Counts): Promise<StackManifest> {
    const blobs = (await this.repo.listTreeBlobs(tree)).filter((b) => topicPathFromBlobPath(b.path) !== undefined);
    // Chunks bound memory at 100,000 topics: each chunk's text is analysed into a small segment and
    // a docstore of bytes; the segments are then merged without re-analysing anything.
    const parts: Array<{ segment: Segment; docstore: DocstoreBytes }> = [];
    for (let from = 0; from === 0 || from < blobs.length; from += FULL_BUILD_CHUNK) {
      const { documents, rendered } = await this.readDocuments(blobs.slice(from, from + FULL_BUILD_CHUNK), counts);
      const bytes = buildSegment(documents);
      const lookup = byPath(bytes, rendered);
      const segment = Segment.open(bytes);
      parts.push({
        segment,
        docstore: new DocstoreBytes(buildDocstore(Array.from({ length: segment.docCount }, (_, i) => lookup(i).toString('utf8')))),
      });
    }
    if (parts.length === 1) {
      const [{ segment, docstore }] = parts as [(typeof parts)[0]];
      return singleSegmentManifest(await this.writeSegment({ bytes: segment.bytes, docstore: (i) => docstore.entry(i) }));
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
    return singleSegmentManifest(await this.writeSegment({ bytes, docstore }));
  }

  /**
   * The index documents and rendered markdown of topic blobs: from the per-blob cache where it has
   * them, else read, parsed and rendered (and then cached, so the next build of any tree holding
   * them parses nothing). Blobs that are not topics (written by plain git) are skipped.
   */
  private async readDocuments(
    blobs: ReadonlyArray<{ path: string; oid: string }>,
    counts: Counts,
  ): Promise<{ documents: SegmentInput[]; rendered: Map<string, string> }> {
    const documents: SegmentInput[] = [];
    const rendered = new Map<string, string>();
    if (blobs.length === 0) return { documents, rendered };
    const entries = this.docs.read(blobs.map((b) => b.oid));
    performance.mark('index: cache read');
    counts.cached += entries.filter((e) => e !== undefined).length;
    const missing = [...new Set(blobs.filter((_, i) => entries[i] === undefined).map((b) => b.oid))];
    if (missing.length > 0) {
      counts.parsed += missing.length;
      const { blobDocument } = await analyzer();
      const contents = await Promise.all(missing.map((oid) => this.repo.readBlob(oid)));
      const fresh = new Map<string, CachedBlob>();
      missing.forEach((oid, i) => {
        const html = contents[i]?.toString('utf8');
        if (html !== undefined) fresh.set(oid, blobDocument(html));
      });
      blobs.forEach((blob, i) => {
        if (entries[i] === undefined) entries[i] = fresh.get(blob.oid);
      });
      try {
        this.docs.write(fresh);
      } catch {
        // The cache is an optimisation: a read-only or full disk must not fail the query.
      }
    }
    blobs.forEach((blob, i) => {
      const doc = entries[i];
      if (!doc) return;
      const topicPath = topicPathFromBlobPath(blob.path)!;
      documents.push(documentAt(topicPath, blob.oid, doc));
      rendered.set(topicPath, doc.markdown);
    });
    return { documents, rendered };
  }

  private async writeSegment(built: Built): Promise<SegmentEntry> {
    const file = segmentFileName(built.bytes);
    const docCount = Segment.open(built.bytes).docCount;
    await mkdir(this.segments, { recursive: true });
    const docstore = this.docstoreFile(file);
    const temp = `${docstore}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeDocstoreFile(temp, docCount, built.docstore);
    await rename(temp, docstore);
    await writeAtomic(path.join(this.segments, file), built.bytes);
    return { file, docs: docCount };
  }

  private async openManifest(manifest: StackManifest): Promise<{ stack: SegmentStack; files: string[] }> {
    const files = new Map<string, Uint8Array>();
    await Promise.all(
      manifest.segments.map(async ({ file }) => {
        try {
          files.set(file, await readFile(path.join(this.segments, file)));
        } catch {
          throw new BrvError('index-corrupt', `Search index segment ${file} is missing.`);
        }
        if (!docstoreLooksValid(this.docstoreFile(file)))
          throw new BrvError('index-corrupt', `The docstore of search index segment ${file} is damaged.`);
      }),
    );
    return { stack: openStack(manifest, (file) => files.get(file)!), files: manifest.segments.map((s) => s.file) };
  }

  private async readManifest(tree: string): Promise<StackManifest | undefined> {
    let text;
    try {
      text = await readFile(this.manifestFile(tree), 'utf8');
    } catch {
      return undefined;
    }
    try {
      return parseStackManifest(text);
    } catch {
      return undefined;
    }
  }

  private async lastIndexedTree(): Promise<string | undefined> {
    try {
      const tree = (await readFile(path.join(this.dir, 'last'), 'utf8')).trim();
      return /^[0-9a-f]{40,64}$/.test(tree) ? tree : undefined;
    } catch {
      return undefined;
    }
  }

  private async publish(tree: string, manifest: StackManifest): Promise<void> {
    await writeAtomic(this.manifestFile(tree), serializeStack(manifest));
    await writeAtomic(path.join(this.dir, 'last'), `${tree}\n`);
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
    await writeAtomic(stamp, `${new Date().toISOString()}\n`);
    const referenced = new Set<string>();
    for (const file of await readdir(this.segments).catch(() => [] as string[])) {
      if (!file.endsWith('.seg')) continue;
      let segment;
      try {
        segment = Segment.open(await readFile(path.join(this.segments, file)));
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
    for (const { n } of dated.slice(KEEP_MANIFESTS)) await rm(path.join(this.manifests, n), { force: true });
    const used = new Set<string>();
    for (const { n } of dated.slice(0, KEEP_MANIFESTS)) {
      const manifest = await this.readManifest(n.replace(/\.json$/, ''));
      for (const segment of manifest?.segments ?? []) used.add(segment.file);
    }
    const now = Date.now();
    for (const file of await readdir(this.segments)) {
      // A temp file may belong to another process building right now: leave young ones alone.
      if (file.endsWith('.tmp') && now - (await stat(path.join(this.segments, file)).catch(() => ({ mtimeMs: 0 }))).mtimeMs < 600_000)
        continue;
      if (!used.has(file.replace(/\.md$/, ''))) await rm(path.join(this.segments, file), { force: true });
    }
  }

  private docstoreFile(segmentFile: string): string {
    return path.join(this.segments, `${segmentFile}.md`);
  }

  private manifestFile(tree: string): string {
    if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new BrvError('invalid-object-name', `"${tree}" is not a tree id.`);
    return path.join(this.manifests, `${tree}.json`);
  }
}

/** Docstore entries in a new segment's document order, from texts keyed by topic path. */
function byPath(bytes: Uint8Array, rendered: ReadonlyMap<string, string>): (i: number) => Buffer {
  const segment = Segment.open(bytes);
  return (i) => Buffer.from(rendered.get(segment.path(i)) ?? '', 'utf8');
}

async function writeAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temp, data);
  await rename(temp, file);
}
