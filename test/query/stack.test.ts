import { createHash } from 'node:crypto';
import { checksum } from '../../src/index/checksum.js';
import test from 'ava';
import { syntheticTopic } from '../../bench/lib/synthetic.js';
import { BrvError } from '../../src/base/errors.js';
import { documentFromTopic, type SegmentInput } from '../../src/index/document.js';
import { search, type SearchOptions } from '../../src/search/search.js';
import { buildSegment, Segment } from '../../src/index/segment.js';
import {
  applyIndexUpdate,
  compact,
  EMPTY_MANIFEST,
  liveView,
  openStack,
  parseStackManifest,
  planIndexUpdate,
  segmentFileName,
  serializeStack,
  shouldCompact,
  type IndexChanges,
  type SegmentStack,
  type StackManifest,
} from '../../src/index/stack.js';
import { validateTopicHtml } from '../../src/topic/validate.js';

const basePath = (i: number) => syntheticTopic(i, 1).path;

/** Topic `i` at its seed-1 path, with the content of `version` (a later curate rewrites the text). */
function topic(i: number, version = 1): SegmentInput {
  const source = syntheticTopic(i, version);
  const result = validateTopicHtml(source.html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const blob = `${version.toString(16).padStart(8, '0')}${i.toString(16).padStart(32, '0')}`;
  return { ...documentFromTopic(basePath(i), result.topic.root), blob };
}

const QUERIES = [
  'jwt token rotation',
  'postgres replica timeout',
  'idempotent webhook retries',
  'kafka consumer lag',
  'expired session redis',
  'feature flag rollout through stripe',
  'kube',
  'observability alert grafana',
  'schema migration 42 seconds',
  'billing invoice',
];

function sameResults(t: import('ava').ExecutionContext, stack: SegmentStack, rebuilt: SegmentStack, options: SearchOptions = {}) {
  for (const query of QUERIES) {
    const a = search(stack, query, { limit: 1000, ...options });
    const b = search(rebuilt, query, { limit: 1000, ...options });
    t.is(a.totalFound, b.totalFound, query);
    t.deepEqual(
      a.hits.map((h) => h.path),
      b.hits.map((h) => h.path),
      query,
    );
    a.hits.forEach((hit, n) => {
      const other = b.hits[n]!;
      t.true(Math.abs(hit.score - other.score) <= 1e-9, `${query}: ${hit.path} ${hit.score} vs ${other.score}`);
      t.deepEqual({ ...hit, score: 0 }, { ...other, score: 0 });
    });
  }
}

/** Applies changes to an in-memory "directory" of segment files, the way the caller will on disk. */
function update(files: Map<string, Uint8Array>, manifest: StackManifest, changes: IndexChanges): StackManifest {
  const plan = planIndexUpdate(manifest, changes);
  let entry;
  if (plan.documents.length > 0) {
    const bytes = buildSegment(plan.documents);
    entry = { file: segmentFileName(bytes), docs: plan.documents.length };
    files.set(entry.file, bytes);
  }
  return applyIndexUpdate(manifest, plan, entry);
}

const open = (files: Map<string, Uint8Array>, manifest: StackManifest) =>
  openStack(parseStackManifest(serializeStack(manifest)), (file) => files.get(file)!);

test('a stack with shadowing segments and deletions scores exactly like one segment over the live topics', (t) => {
  const files = new Map<string, Uint8Array>();
  const live = new Map<string, SegmentInput>();
  const base = Array.from({ length: 80 }, (_, i) => topic(i));
  for (const d of base) live.set(d.path, d);
  let manifest = update(files, EMPTY_MANIFEST, { upserted: base, removed: [] });

  // Curate 1: three topics rewritten, four added, two removed.
  const c1: IndexChanges = {
    upserted: [topic(3, 2), topic(7, 2), topic(11, 2), ...[100, 101, 102, 103].map((i) => topic(i))],
    removed: [basePath(20), basePath(21)],
  };
  manifest = update(files, manifest, c1);
  for (const d of c1.upserted) live.set(d.path, d);
  for (const p of c1.removed) live.delete(p);

  // Curate 2: rewrite one of curate 1's additions and one rewritten topic again, remove a topic that
  // lives in two segments, re-add a removed one.
  const c2: IndexChanges = { upserted: [topic(100, 3), topic(3, 3), topic(20, 4)], removed: [basePath(7), basePath(40)] };
  manifest = update(files, manifest, c2);
  for (const d of c2.upserted) live.set(d.path, d);
  for (const p of c2.removed) live.delete(p);

  // Curate 3: only removals (no new segment).
  const c3: IndexChanges = { upserted: [], removed: [basePath(102), basePath(50)] };
  manifest = update(files, manifest, c3);
  for (const p of c3.removed) live.delete(p);

  t.is(manifest.segments.length, 3);
  t.deepEqual([...manifest.deleted].sort(), [basePath(21), basePath(40), basePath(50), basePath(7), basePath(102)].sort());
  const stack = open(files, manifest);
  const view = liveView(stack);
  t.is(view.liveCount, live.size);
  const rebuilt: SegmentStack = { segments: [Segment.open(buildSegment([...live.values()]))], deleted: new Set() };
  t.deepEqual([...view.fieldTotals], [...rebuilt.segments[0]!.fieldTotals]);

  sameResults(t, stack, rebuilt);
  sameResults(t, stack, rebuilt, { scope: 'security' });
  sameResults(t, stack, rebuilt, { coordination: 2, fields: { title: 5, body: 0.5 } });
  // pseudo-relevance feedback over ten hits expands alike (segment dfs count dead topics; live dfs decide)
  sameResults(t, stack, rebuilt, { feedback: { docsRatio: 1, maxDfRatio: 0.3 } });

  // compaction gives the very bytes of a rebuild
  const compacted = compact(stack);
  t.deepEqual(Buffer.from(compacted), Buffer.from(buildSegment([...live.values()])));
  sameResults(t, { segments: [Segment.open(compacted)], deleted: new Set() }, rebuilt);
});

test('deleted paths and shadowing hide the older versions', (t) => {
  const v1 = topic(1);
  const v2 = { ...topic(1, 2), title: 'rewritten' };
  const stack: SegmentStack = {
    segments: [Segment.open(buildSegment([v1, topic(2)])), Segment.open(buildSegment([v2]))],
    deleted: new Set([basePath(2)]),
  };
  t.is(liveView(stack).liveCount, 1);
  const hits = search(stack, `${v1.title} ${v2.title} ${topic(2).title}`, { limit: 10 }).hits;
  t.deepEqual(
    hits.map((h) => [h.path, h.blob]),
    [[basePath(1), v2.blob]],
  );
  const merged = Segment.open(compact(stack));
  t.is(merged.docCount, 1);
  t.is(merged.doc(0).blob, v2.blob);
});

test('compact of a single segment without deletions is the identity', (t) => {
  const bytes = buildSegment(Array.from({ length: 12 }, (_, i) => topic(i)));
  t.deepEqual(Buffer.from(compact({ segments: [Segment.open(bytes)], deleted: new Set() })), Buffer.from(bytes));
  t.deepEqual(Buffer.from(compact({ segments: [], deleted: new Set(['x']) })), Buffer.from(buildSegment([])));
});

test('planIndexUpdate keeps the deleted set minimal and the last version of a path', (t) => {
  const previous: StackManifest = { format: 2, segments: [{ file: 'a.seg', docs: 100 }], deleted: ['old/gone', 'x/y'], skipped: [] };
  const v1 = topic(1);
  const v2 = topic(1, 2);
  const plan = planIndexUpdate(previous, { upserted: [v1, v2, topic(2)], removed: ['p/q', basePath(2), 'old/gone2'] });
  t.deepEqual(
    plan.documents.map((d) => d.blob),
    [v2.blob, topic(2).blob],
  );
  t.deepEqual(plan.deleted, ['old/gone', 'old/gone2', 'p/q', 'x/y']);
  t.false(plan.compact);
  const readd = planIndexUpdate(previous, { upserted: [{ ...v1, path: 'x/y' }], removed: [] });
  t.deepEqual(readd.deleted, ['old/gone']);
  const next = applyIndexUpdate(previous, plan, { file: 'b.seg', docs: 2 });
  t.deepEqual(next, {
    format: 2,
    segments: [
      { file: 'a.seg', docs: 100 },
      { file: 'b.seg', docs: 2 },
    ],
    deleted: plan.deleted,
    skipped: [],
  });
  t.throws(() => applyIndexUpdate(previous, plan, undefined));
});

test('compaction rule of thumb: more than 8 segments or deltas over 10% of the base', (t) => {
  const m = (docs: number[], deleted = 0): StackManifest => ({
    format: 2,
    skipped: [],
    segments: docs.map((n, i) => ({ file: `${i}.seg`, docs: n })),
    deleted: Array.from({ length: deleted }, (_, i) => `d/${i}`),
  });
  t.false(shouldCompact(m([10_000])));
  t.false(shouldCompact(m([10_000, 1])));
  t.false(shouldCompact(m([10_000, 500, 400], 100)));
  t.true(shouldCompact(m([10_000, 500, 400], 101)));
  t.true(shouldCompact(m([10_000, 1, 1, 1, 1, 1, 1, 1, 1])));
  t.false(shouldCompact(m([10_000, 1, 1, 1, 1, 1, 1, 1])));
  t.true(shouldCompact(m([100], 11)));
  t.true(planIndexUpdate(m([10, 1]), { upserted: [topic(1)], removed: [] }).compact);
  t.false(planIndexUpdate(m([10_000, 1]), { upserted: [topic(1)], removed: [] }).compact);
});

test('manifest round trip and refusal of bad manifests: a checksum over the body catches any bit flip', (t) => {
  const manifest: StackManifest = {
    format: 2,
    segments: [{ file: 'abc.seg', docs: 3 }],
    deleted: ['b', 'a'],
    skipped: [{ path: 'x/deep.html', problem: 'too-deep', message: 'Nested too deep.' }],
  };
  const text = serializeStack(manifest);
  t.deepEqual(parseStackManifest(text), { ...manifest, deleted: ['a', 'b'] });
  t.regex(text, /^brv-index-manifest crc32:[0-9a-f]{8}\n/);
  const sign = (body: string) => `brv-index-manifest ${checksum(body)}\n${body}`;
  const body = text.slice(text.indexOf('\n') + 1);
  t.is(sign(body), text);
  const flipped = (at: number) => text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ 1) + text.slice(at + 1);
  for (const bad of [
    '',
    '[]',
    text.slice(0, -3),
    flipped(text.indexOf('"a"') + 1),
    flipped(text.indexOf('"docs":3') + 7),
    sign('[]'),
    `brv-index-manifest crc32:00000000\n${body}`,
    // A SHA-256 sum (index versions before 5): that index lives in another folder.
    `brv-index-manifest ${createHash('sha256').update(body).digest('hex')}\n${body}`,
    sign('{"format":1,"segments":[],"deleted":[],"skipped":[]}'),
    sign('{"format":2,"segments":[{"file":"../x","docs":1}],"deleted":[],"skipped":[]}'),
    sign('{"format":2,"segments":[{"file":"a","docs":-1}],"deleted":[],"skipped":[]}'),
    sign('{"format":2,"segments":[],"deleted":[1],"skipped":[]}'),
    sign('{"format":2,"segments":[],"deleted":[]}'),
    sign('{"format":2,"segments":[],"deleted":[],"skipped":[{"path":"a.html","problem":"evil","message":""}]}'),
  ]) {
    const error = t.throws(() => parseStackManifest(bad), undefined, bad);
    t.is((error as BrvError).kind, 'index-corrupt', bad);
  }
  const bytes = buildSegment([topic(1)]);
  const error = t.throws(() => openStack({ format: 2, segments: [{ file: 's', docs: 2 }], deleted: [], skipped: [] }, () => bytes));
  t.is((error as BrvError).kind, 'index-corrupt');
  t.regex(segmentFileName(bytes), /^[0-9a-f]{32}\.seg$/);
});
