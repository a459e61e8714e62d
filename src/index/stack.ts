import { createHash } from 'node:crypto';
import { checksum } from './checksum.js';
import { BrvError } from '../base/errors.js';
import type { SegmentInput } from './fields.js';
import { FIELD_COUNT as FIELD_COUNT_EXPORT } from './fields.js';
import { mergeSegments, Segment } from './segment.js';
import type { SegmentFile } from './segment-file.js';

// A local copy: hot loops read it per posting, and a module binding can cost a getter call under loaders.
const FIELD_COUNT: number = FIELD_COUNT_EXPORT;

/**
 * The index of one tree is a stack of segments plus a set of deleted paths. A curate adds a small
 * segment with the changed topics instead of rebuilding; a path in a newer segment shadows the same
 * path in older ones, and a path in `deleted` is live nowhere. Compaction merges the stack back into
 * one segment when the deltas grow (see `shouldCompact`).
 *
 * Invariant kept by `planIndexUpdate`: a path in `deleted` is not in the tree; a path written again
 * later leaves `deleted` (its new version sits in the new segment and shadows the old ones).
 */
export interface SegmentStack {
  /** Oldest first. */
  readonly segments: readonly Segment[];
  readonly deleted: ReadonlySet<string>;
}

/** Which documents of a stack are live, and statistics over exactly those. Computed once per stack. */
export interface LiveView {
  readonly segments: readonly Segment[];
  /** Per segment: undefined when every document is live, else 1 at each dead document. */
  readonly dead: ReadonlyArray<Uint8Array | undefined>;
  readonly liveCount: number;
  /** Sum of each field's length over the live documents. */
  readonly fieldTotals: Float64Array;
}

const views = new WeakMap<SegmentStack, LiveView>();

/** The live view of `stack`, cached on the stack object (treat stacks as immutable). */
export function liveView(stack: SegmentStack): LiveView {
  const cached = views.get(stack);
  if (cached) return cached;
  const { segments } = stack;
  const dead: Array<Uint8Array | undefined> = segments.map(() => undefined);
  const kill = (s: number, doc: number) => {
    const mask = (dead[s] ??= new Uint8Array(segments[s]!.docCount));
    mask[doc] = 1;
  };
  for (const path of stack.deleted) {
    segments.forEach((segment, s) => {
      const doc = segment.findPath(path);
      if (doc >= 0) kill(s, doc);
    });
  }
  // Newer segments shadow older ones. Deltas are small, so look their paths up in the older segments.
  for (let newer = segments.length - 1; newer > 0; newer--) {
    const segment = segments[newer]!;
    for (let doc = 0; doc < segment.docCount; doc++) {
      const path = segment.pathBytes(doc);
      for (let older = 0; older < newer; older++) {
        const found = segments[older]!.findPath(path);
        if (found >= 0) kill(older, found);
      }
    }
  }
  let liveCount = 0;
  const fieldTotals = new Float64Array(FIELD_COUNT);
  segments.forEach((segment, s) => {
    liveCount += segment.docCount;
    for (let f = 0; f < FIELD_COUNT; f++) fieldTotals[f]! += segment.fieldTotals[f]!;
    const mask = dead[s];
    if (!mask) return;
    for (let doc = 0; doc < segment.docCount; doc++) {
      if (mask[doc] !== 1) continue;
      liveCount--;
      for (let f = 0; f < FIELD_COUNT; f++) fieldTotals[f]! -= segment.fieldLength(doc, f);
    }
  });
  const view = { segments, dead, liveCount, fieldTotals };
  views.set(stack, view);
  return view;
}

/** Path → title of every live document of a stack (the dashboard's tree: no topic blob is read). */
export function liveTitles(stack: SegmentStack): Map<string, string> {
  const view = liveView(stack);
  const titles = new Map<string, string>();
  view.segments.forEach((segment, s) => {
    const mask = view.dead[s];
    for (let doc = 0; doc < segment.docCount; doc++) {
      if (mask?.[doc] === 1) continue;
      const { path, title } = segment.doc(doc);
      titles.set(path, title);
    }
  });
  return titles;
}

/** Merges the live documents of a stack into one segment: the same bytes a rebuild would produce. */
export function compact(stack: SegmentStack): Uint8Array {
  const view = liveView(stack);
  return mergeSegments(view.segments.map((segment, s) => ({ segment, dead: view.dead[s] })));
}

// ---------------------------------------------------------------------------------------------
// The on-disk manifest: `<git-common-dir>/brv/index/<tree-oid>.json` names segment files.

export const STACK_MANIFEST_FORMAT = 2;

export interface SegmentEntry {
  /** A file name next to the manifest, e.g. from `segmentFileName`. */
  readonly file: string;
  readonly docs: number;
}

/** Why a blob at a topic path is not in the index: `readStoredTopic`'s problems, a path the tree names twice, or a blob missing from the repository. */
export type SkipProblem = 'too-large' | 'too-deep' | 'not-a-topic' | 'duplicate-path' | 'missing';

/** A blob at a topic path that the index left out, and why (`brv doctor` lists them). */
export interface SkippedTopic {
  /** The blob's path in the tree, e.g. `security/auth.html`. */
  readonly path: string;
  readonly problem: SkipProblem;
  readonly message: string;
}

const SKIP_PROBLEMS: ReadonlySet<string> = new Set(['too-large', 'too-deep', 'not-a-topic', 'duplicate-path', 'missing']);

export interface StackManifest {
  readonly format: typeof STACK_MANIFEST_FORMAT;
  /** Oldest first. */
  readonly segments: readonly SegmentEntry[];
  readonly deleted: readonly string[];
  /** Blobs at topic paths of this tree that are not indexed, sorted by path. */
  readonly skipped: readonly SkippedTopic[];
}

export const EMPTY_MANIFEST: StackManifest = { format: STACK_MANIFEST_FORMAT, segments: [], deleted: [], skipped: [] };

const MANIFEST_HEADER = 'brv-index-manifest ';

/**
 * The manifest as a file: a header line with the checksum of the JSON body (checksum.ts), then the
 * body. A bit flip anywhere (a segment name, a deleted path) is caught when it is read, not served as
 * a wrong answer.
 */
export function serializeStack(manifest: StackManifest): string {
  const body = `${JSON.stringify({
    format: manifest.format,
    segments: manifest.segments.map(({ file, docs }) => ({ file, docs })),
    deleted: [...manifest.deleted].sort(),
    skipped: sortSkipped(manifest.skipped).map(({ path, problem, message }) => ({ path, problem, message })),
  })}\n`;
  return `${MANIFEST_HEADER}${checksum(body)}\n${body}`;
}

/** Skipped topics in path order (entries of one path keep their order), as manifests hold them. */
export function sortSkipped(skipped: readonly SkippedTopic[]): SkippedTopic[] {
  return [...skipped].sort(byPath);
}

function byPath(a: SkippedTopic, b: SkippedTopic): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

const SAFE_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

export function parseStackManifest(text: string): StackManifest {
  const bad = (why: string) =>
    new BrvError(
      'index-corrupt',
      `The search index manifest is unreadable (${why}); delete it and brv rebuilds the index on the next query.`,
    );
  const newline = text.indexOf('\n');
  if (!text.startsWith(MANIFEST_HEADER) || newline < 0) throw bad('no manifest header');
  const body = text.slice(newline + 1);
  if (text.slice(MANIFEST_HEADER.length, newline) !== checksum(body)) throw bad('its checksum does not match');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw bad('not JSON');
  }
  if (typeof value !== 'object' || value === null) throw bad('not an object');
  const { format, segments, deleted, skipped } = value as Record<string, unknown>;
  if (format !== STACK_MANIFEST_FORMAT) throw bad(`format ${String(format)}, this brv reads ${STACK_MANIFEST_FORMAT}`);
  if (!Array.isArray(segments) || !Array.isArray(deleted) || !Array.isArray(skipped)) throw bad('segments, deleted or skipped missing');
  for (const entry of segments) {
    const { file, docs } = (entry ?? {}) as Record<string, unknown>;
    if (typeof file !== 'string' || !SAFE_FILE.test(file) || file.includes('..')) throw bad('a segment file name is unsafe');
    if (typeof docs !== 'number' || !Number.isInteger(docs) || docs < 0) throw bad('a segment document count is invalid');
  }
  if (!deleted.every((p) => typeof p === 'string')) throw bad('deleted paths must be strings');
  for (const entry of skipped) {
    const { path, problem, message } = (entry ?? {}) as Record<string, unknown>;
    if (typeof path !== 'string' || typeof problem !== 'string' || !SKIP_PROBLEMS.has(problem) || typeof message !== 'string')
      throw bad('a skipped topic is malformed');
  }
  return {
    format,
    segments: segments.map(({ file, docs }: SegmentEntry) => ({ file, docs })),
    deleted: [...(deleted as string[])],
    skipped: (skipped as SkippedTopic[]).map(({ path, problem, message }) => ({ path, problem, message })),
  };
}

/** Opens the segments a manifest names; `load(file)` returns a segment file's bytes, or the file to read them from as needed. */
export function openStack(manifest: StackManifest, load: (file: string) => Uint8Array | SegmentFile): SegmentStack {
  const segments = manifest.segments.map(({ file, docs }) => {
    const segment = Segment.open(load(file));
    if (segment.docCount !== docs)
      throw new BrvError(
        'index-corrupt',
        `Search index segment ${file} has ${segment.docCount} documents, the manifest says ${docs}; delete the index and brv rebuilds it.`,
      );
    return segment;
  });
  return { segments, deleted: new Set(manifest.deleted) };
}

/** A content-addressed file name for segment bytes: equal segments share a file across trees. */
export function segmentFileName(bytes: Uint8Array): string {
  return `${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}.seg`;
}

// ---------------------------------------------------------------------------------------------
// Incremental updates

export interface IndexChanges {
  /** Topics added or modified since the previous tree: their new documents. */
  readonly upserted: readonly SegmentInput[];
  /** Paths of topics removed since the previous tree. */
  readonly removed: readonly string[];
}

export interface IndexUpdatePlan {
  /** Build these into the new segment (`buildSegment`); empty when the change only removes topics. */
  readonly documents: SegmentInput[];
  /** The new manifest's deleted set. */
  readonly deleted: string[];
  /** Whether the stack, once updated, is due for `compact` (off the query path: see `mustCompactInline`). */
  readonly compact: boolean;
}

/** Rule of thumb: compact past this many segments… */
const MAX_SEGMENTS = 8;
/** …or when delta documents plus deleted paths exceed this share of the base segment. */
const MAX_DELTA_RATIO = 0.1;

/**
 * Compaction pays off when a stack has many segments (every query walks each) or when deltas and
 * deletions are a large share of the base (they skew nothing — statistics are exact — but cost
 * lookups and space). A compaction of a 10,000-topic stack merges postings without re-analysing text.
 */
export function shouldCompact(manifest: StackManifest): boolean {
  if (manifest.segments.length > MAX_SEGMENTS) return true;
  if (manifest.segments.length <= 1)
    return manifest.deleted.length > 0 && manifest.deleted.length > MAX_DELTA_RATIO * (manifest.segments[0]?.docs ?? 0);
  const deltas = manifest.segments.slice(1).reduce((sum, s) => sum + s.docs, 0) + manifest.deleted.length;
  return deltas > MAX_DELTA_RATIO * manifest.segments[0]!.docs;
}

/** Past this many times the thresholds above, a stack is compacted inline, on the query path (see `mustCompactInline`). */
const HARD_CAP_FACTOR = 4;

/**
 * Whether a stack is so far past due that the query building it compacts it inline: more than
 * 4 × 8 segments, or deltas and deletions over 4 × 10% of the base. Compaction normally runs off
 * the query path (`TreeIndexStore.compactTree`, started in the background by the CLI after it has
 * answered, or by a server between calls), and a query answers from the uncompacted stack, which is
 * exact. The cap bounds what a query pays when that background work never happens (switched off,
 * failing, a read-only index folder): search walks every segment and the live view looks each delta
 * document up in every older segment, so cost grows with segments × delta documents. Past the cap
 * the first query pays one compaction (what every 8th query paid before), at most once per
 * 4× the usual number of curates.
 */
export function mustCompactInline(manifest: StackManifest): boolean {
  if (manifest.segments.length > HARD_CAP_FACTOR * MAX_SEGMENTS) return true;
  const base = manifest.segments[0]?.docs ?? 0;
  const deltas = manifest.segments.slice(1).reduce((sum, s) => sum + s.docs, 0) + manifest.deleted.length;
  return deltas > 0 && deltas > HARD_CAP_FACTOR * MAX_DELTA_RATIO * base;
}

/** Plans the index of a new tree from the previous tree's stack and the diff between the trees. */
export function planIndexUpdate(previous: StackManifest, changes: IndexChanges): IndexUpdatePlan {
  const documents = new Map<string, SegmentInput>();
  for (const doc of changes.upserted) documents.set(doc.path, doc); // the last version of a path wins
  const deleted = new Set(previous.deleted);
  for (const path of changes.removed) if (!documents.has(path)) deleted.add(path);
  for (const path of documents.keys()) deleted.delete(path);
  const plan = { documents: [...documents.values()], deleted: [...deleted].sort() };
  const after = applyIndexUpdate(
    previous,
    { ...plan, compact: false },
    plan.documents.length > 0 ? { file: 'pending.seg', docs: plan.documents.length } : undefined,
  );
  return { ...plan, compact: shouldCompact(after) };
}

/** The manifest after `plan`, given the file the new segment was written to (undefined if no documents). */
export function applyIndexUpdate(previous: StackManifest, plan: IndexUpdatePlan, segment: SegmentEntry | undefined): StackManifest {
  if (plan.documents.length > 0 && segment === undefined)
    throw new Error('applyIndexUpdate: the plan has documents, so it needs the new segment file.');
  return {
    format: STACK_MANIFEST_FORMAT,
    segments: segment && plan.documents.length > 0 ? [...previous.segments, segment] : [...previous.segments],
    deleted: plan.deleted,
    skipped: previous.skipped,
  };
}

/** The manifest of a freshly built or compacted single segment. */
export function singleSegmentManifest(segment: SegmentEntry, skipped: readonly SkippedTopic[] = []): StackManifest {
  return { format: STACK_MANIFEST_FORMAT, segments: [segment], deleted: [], skipped: sortSkipped(skipped) };
}
