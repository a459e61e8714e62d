import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../errors.js';
import type { GitRepository } from '../git/repository.js';
import { topicPathFromBlobPath } from '../topic/path.js';
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
}

/**
 * Bumped whenever analysis or rendering changes what an index holds: older indexes are then simply
 * not found (and pruned), never misread.
 */
export const INDEX_VERSION = 3;
/** Above this many changed topics an incremental update is not worth it: rebuild from the tree. */
const MAX_INCREMENTAL_CHANGES = 2000;
/** Manifests kept; older ones (and segments only they use) are pruned. */
const KEEP_MANIFESTS = 12;
/** Topics analysed per chunk in a full build: bounds memory at 100,000 topics. */
const FULL_BUILD_CHUNK = 2000;

interface Built {
  bytes: Uint8Array;
  docstore: (i: number) => Buffer;
}

/** Parsing and rendering of topic HTML: loaded only when an index is built, never to answer a query. */
async function analyzer() {
  const [{ readStoredTopic }, { renderTopicMarkdown }, { documentFromTopic }] = await Promise.all([
    import('../topic/stored.js'),
    import('../topic/render.js'),
    import('./document.js'),
  ]);
  return { readStoredTopic, renderTopicMarkdown, documentFromTopic };
}

/**
 * Search indexes keyed by tree oid under `<git-common-dir>/brv/index/v<N>/`: a tree's index can never
 * be stale, and a tree changed by anything (curate, `git fetch` + `update-ref`, a merge) is indexed on
 * its first query — incrementally from the last indexed tree through `git diff-tree` when the change
 * is small, so one curate never costs a full rebuild. Each segment has a docstore of rendered
 * markdown beside it, so answering a query loads no HTML code at all.
 */
export class TreeIndexStore {
  private readonly dir: string;
  private readonly manifests: string;
  private readonly segments: string;

  constructor(
    private readonly repo: GitRepository,
    indexRoot: string,
  ) {
    this.dir = path.join(indexRoot, `v${INDEX_VERSION}`);
    this.manifests = path.join(this.dir, 'trees');
    this.segments = path.join(this.dir, 'segments');
  }

  async open(tree: string | undefined): Promise<TreeIndex> {
    const start = performance.now();
    if (!tree) return { tree, stack: { segments: [], deleted: new Set() }, files: [], build: 'empty', buildMs: 0, changedTopics: 0 };
    const cached = await this.readManifest(tree);
    if (cached) {
      try {
        return { tree, ...(await this.openManifest(cached)), build: 'cached', buildMs: performance.now() - start, changedTopics: 0 };
      } catch (error) {
        if (!(error instanceof BrvError && error.kind === 'index-corrupt')) throw error;
      }
    }
    const incremental = await this.tryIncremental(tree);
    const manifest = incremental?.manifest ?? (await this.buildFull(tree));
    await this.publish(tree, manifest);
    return {
      tree,
      ...(await this.openManifest(manifest)),
      build: incremental ? 'incremental' : 'full',
      buildMs: performance.now() - start,
      changedTopics: incremental?.changed ?? 0,
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

  private async tryIncremental(tree: string): Promise<{ manifest: StackManifest; changed: number } | undefined> {
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
    if (changes.length > MAX_INCREMENTAL_CHANGES) return undefined;
    const { documents: upserted, rendered } = await this.readDocuments(
      changes.filter((c) => c.status !== 'D').map((c) => ({ path: c.path, oid: c.newOid })),
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

  private async buildFull(tree: string): Promise<StackManifest> {
    const blobs = (await this.repo.listTreeBlobs(tree)).filter((b) => topicPathFromBlobPath(b.path) !== undefined);
    // Chunks bound memory at 100,000 topics: each chunk's text is analysed into a small segment and
    // a docstore of bytes; the segments are then merged without re-analysing anything.
    const parts: Array<{ segment: Segment; docstore: DocstoreBytes }> = [];
    for (let from = 0; from === 0 || from < blobs.length; from += FULL_BUILD_CHUNK) {
      const { documents, rendered } = await this.readDocuments(blobs.slice(from, from + FULL_BUILD_CHUNK));
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

  /** Reads, analyses and renders topic blobs; blobs that are not topics (written by plain git) are skipped. */
  private async readDocuments(
    blobs: ReadonlyArray<{ path: string; oid: string }>,
  ): Promise<{ documents: SegmentInput[]; rendered: Map<string, string> }> {
    const documents: SegmentInput[] = [];
    const rendered = new Map<string, string>();
    if (blobs.length === 0) return { documents, rendered };
    const { readStoredTopic, renderTopicMarkdown, documentFromTopic } = await analyzer();
    const contents = await Promise.all(blobs.map((b) => this.repo.readBlob(b.oid)));
    blobs.forEach((blob, i) => {
      const html = contents[i]?.toString('utf8');
      const topic = html === undefined ? undefined : readStoredTopic(html);
      if (!topic) return;
      const topicPath = topicPathFromBlobPath(blob.path)!;
      documents.push({ ...documentFromTopic(topicPath, topic.root), blob: blob.oid });
      rendered.set(topicPath, renderTopicMarkdown(topic.root));
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

  /** Keeps the newest manifests and the segments they use; drops indexes of older brv versions. */
  private async prune(): Promise<void> {
    const root = path.dirname(this.dir);
    for (const name of await readdir(root)) {
      if (name !== path.basename(this.dir)) await rm(path.join(root, name), { recursive: true, force: true });
    }
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
