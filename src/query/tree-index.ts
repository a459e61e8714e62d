import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../errors.js';
import type { GitRepository } from '../git/repository.js';
import { readStoredTopic } from '../topic/stored.js';
import { topicPathFromBlobPath } from '../topic/path.js';
import { documentFromTopic, type SegmentInput } from './document.js';
import { buildSegment, Segment } from './segment.js';
import {
  applyIndexUpdate,
  compact,
  openStack,
  parseStackManifest,
  planIndexUpdate,
  segmentFileName,
  serializeStack,
  singleSegmentManifest,
  type SegmentStack,
  type StackManifest,
} from './stack.js';

export type IndexBuild = 'cached' | 'incremental' | 'full' | 'empty';

export interface TreeIndex {
  tree: string | undefined;
  stack: SegmentStack;
  build: IndexBuild;
  buildMs: number;
  /** For incremental builds: how many topics were re-read. */
  changedTopics: number;
}

/** Above this many changed topics an incremental update is not worth it: rebuild from the tree. */
const MAX_INCREMENTAL_CHANGES = 2000;
/** Manifests kept; older ones (and segments only they use) are pruned. */
const KEEP_MANIFESTS = 12;

/**
 * Search indexes keyed by tree oid under `<git-common-dir>/brv/index/`: a tree's index can never be
 * stale, and a tree changed by anything (curate, `git fetch` + `update-ref`, a merge) is indexed on
 * its first query — incrementally from the last indexed tree through `git diff-tree` when the change
 * is small, so one curate never costs a full rebuild.
 */
export class TreeIndexStore {
  private readonly manifests: string;
  private readonly segments: string;

  constructor(private readonly repo: GitRepository, private readonly dir: string) {
    this.manifests = path.join(dir, 'trees');
    this.segments = path.join(dir, 'segments');
  }

  async open(tree: string | undefined): Promise<TreeIndex> {
    const start = performance.now();
    if (!tree) return { tree, stack: { segments: [], deleted: new Set() }, build: 'empty', buildMs: 0, changedTopics: 0 };
    const cached = await this.readManifest(tree);
    if (cached) {
      try {
        return { tree, stack: await this.openManifest(cached), build: 'cached', buildMs: performance.now() - start, changedTopics: 0 };
      } catch (error) {
        if (!(error instanceof BrvError && error.kind === 'index-corrupt')) throw error;
        // fall through and rebuild
      }
    }
    const incremental = await this.tryIncremental(tree);
    if (incremental) {
      await this.publish(tree, incremental.manifest);
      return { tree, stack: incremental.stack, build: 'incremental', buildMs: performance.now() - start, changedTopics: incremental.changed };
    }
    const { manifest, stack } = await this.buildFull(tree);
    await this.publish(tree, manifest);
    return { tree, stack, build: 'full', buildMs: performance.now() - start, changedTopics: 0 };
  }

  private async tryIncremental(tree: string): Promise<{ manifest: StackManifest; stack: SegmentStack; changed: number } | undefined> {
    const previousTree = await this.lastIndexedTree();
    if (!previousTree || previousTree === tree) return undefined;
    const previous = await this.readManifest(previousTree);
    if (!previous) return undefined;
    let changes;
    try {
      changes = (await this.repo.diffTrees(previousTree, tree)).filter((c) => topicPathFromBlobPath(c.path) !== undefined);
    } catch {
      return undefined; // the previous tree was garbage-collected
    }
    if (changes.length > MAX_INCREMENTAL_CHANGES) return undefined;
    const upserted = await this.readDocuments(changes.filter((c) => c.status !== 'D').map((c) => ({ path: c.path, oid: c.newOid })));
    const removed = changes.filter((c) => c.status === 'D').map((c) => topicPathFromBlobPath(c.path)!);
    const plan = planIndexUpdate(previous, { upserted, removed });
    let entry;
    if (plan.documents.length > 0) entry = await this.writeSegment(buildSegment(plan.documents), plan.documents.length);
    let manifest = applyIndexUpdate(previous, plan, entry);
    let stack = await this.openManifest(manifest);
    if (plan.compact) {
      const merged = compact(stack);
      const compacted = await this.writeSegment(merged, Segment.open(merged).docCount);
      manifest = singleSegmentManifest(compacted);
      stack = await this.openManifest(manifest);
    }
    return { manifest, stack, changed: changes.length };
  }

  private async buildFull(tree: string): Promise<{ manifest: StackManifest; stack: SegmentStack }> {
    const blobs = (await this.repo.listTreeBlobs(tree)).filter((b) => topicPathFromBlobPath(b.path) !== undefined);
    const documents = await this.readDocuments(blobs);
    const entry = await this.writeSegment(buildSegment(documents), documents.length);
    const manifest = singleSegmentManifest(entry);
    return { manifest, stack: await this.openManifest(manifest) };
  }

  /** Reads and analyses topic blobs; blobs that are not topics (written by plain git) are skipped. */
  private async readDocuments(blobs: ReadonlyArray<{ path: string; oid: string }>): Promise<SegmentInput[]> {
    const contents = await Promise.all(blobs.map((b) => this.repo.readBlob(b.oid)));
    const documents: SegmentInput[] = [];
    blobs.forEach((blob, i) => {
      const html = contents[i]?.toString('utf8');
      const topic = html === undefined ? undefined : readStoredTopic(html);
      if (!topic) return;
      documents.push({ ...documentFromTopic(topicPathFromBlobPath(blob.path)!, topic.root), blob: blob.oid });
    });
    return documents;
  }

  private async writeSegment(bytes: Uint8Array, docs: number) {
    const file = segmentFileName(bytes);
    await writeAtomic(path.join(this.segments, file), bytes);
    return { file, docs };
  }

  private async openManifest(manifest: StackManifest): Promise<SegmentStack> {
    const files = new Map<string, Uint8Array>();
    await Promise.all(
      manifest.segments.map(async ({ file }) => {
        try {
          files.set(file, await readFile(path.join(this.segments, file)));
        } catch {
          throw new BrvError('index-corrupt', `Search index segment ${file} is missing.`);
        }
      }),
    );
    return openStack(manifest, (file) => files.get(file)!);
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

  /** Keeps the newest manifests and the segments they use. */
  private async prune(): Promise<void> {
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
    for (const file of await readdir(this.segments)) {
      if (!used.has(file)) await rm(path.join(this.segments, file), { force: true });
    }
  }

  /** Marks a cached manifest as recently used, so pruning keeps the indexes people query. */
  async touch(tree: string): Promise<void> {
    const now = new Date();
    await utimes(this.manifestFile(tree), now, now).catch(() => {});
  }

  private manifestFile(tree: string): string {
    if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new BrvError('invalid-object-name', `"${tree}" is not a tree id.`);
    return path.join(this.manifests, `${tree}.json`);
  }
}

async function writeAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temp, data);
  await rename(temp, file);
}
