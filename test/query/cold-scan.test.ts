import test from 'ava';
import { execa } from 'execa';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { syntheticTopic } from '../../bench/lib/synthetic.js';
import { buildSegment, mergeSegments, Segment } from '../../src/index/segment.js';
import type { SegmentInput } from '../../src/index/fields.js';
import type { QueryRequest } from '../../src/service/retrieval.js';
import { internals, openBrv } from '../helpers/service.js';
import { brvJson, ENV, tempDir } from '../helpers/repo.js';
import { waitForMaintenance } from '../../bench/lib/report.js';

// Issue 34, point 1: the first query of a tree with no index (a fresh clone, a `--depth 1` clone, a
// fresh `git fast-import`, a deleted .git/brv) answers from a scan of the blobs (tree-index.ts,
// `scan`) and leaves the index to maintenance. Its answer must be the one the index gives afterwards:
// the same paths in the same order, the same scores, texts and counts.

const WORDS = ['zebra', 'crossing', 'noon', 'harbour', 'lantern'];

/** Topics as a fetch brings them: synthetic ones, topics tied in score, kinds, dates, folders, and blobs the scan does not model. */
function files(): Array<[string, string]> {
  const out: Array<[string, string]> = [['.brv/format', '1\n']];
  for (let i = 0; i < 150; i++) {
    const topic = syntheticTopic(i);
    out.push([`${topic.path}.html`, topic.html]);
  }
  // Five topics with the same title and text at different paths: tied in score for these words.
  for (const name of ['e', 'b', 'd', 'a', 'c'])
    out.push([
      `ties/${name}.html`,
      `<bv-topic path="ties/${name}" title="Zebra crossing"><bv-rule id="r1">Zebras cross the harbour at noon.</bv-rule></bv-topic>\n`,
    ]);
  out.push([
    'ties/decided.html',
    `<bv-topic path="ties/decided" title="Zebra crossing"><bv-decision id="d1"><p>Zebras cross the harbour at noon.</p></bv-decision></bv-topic>\n`,
  ]);
  for (let i = 0; i < 6; i++)
    out.push([
      `diary/day_${i}.html`,
      `<bv-topic path="diary/day_${i}" title="Day ${i}"><bv-reason>A lantern by the harbour, zebra ${i}.</bv-reason><bv-timestamp>2024-05-0${i + 1}</bv-timestamp></bv-topic>\n`,
    ]);
  // Not in canonical form: a link, a table (the full HTML path), and a blob that is no topic (skipped).
  out.push([
    'odd/link.html',
    `<bv-topic path="odd/link" title="Linked zebra"><bv-rule id="r1">See <a href="https://example.com/z">the zebra notes</a> at noon.</bv-rule></bv-topic>\n`,
  ]);
  out.push([
    'odd/table.html',
    `<bv-topic path="odd/table" title="Harbour table"><bv-structure><table><tr><td>zebra</td><td>lantern</td></tr></table></bv-structure></bv-topic>\n`,
  ]);
  out.push(['odd/not-a-topic.html', '<p>zebra crossing, but no topic</p>\n']);
  return out;
}

async function fastImported(): Promise<string> {
  const dir = await tempDir('brv-cold-scan-');
  const parts = ['commit refs/brv/heads/main', 'committer test <test@example.com> 1700000000 +0000', 'data 6', 'topics'];
  for (const [file, content] of files()) parts.push(`M 100644 inline ${file}`, `data ${Buffer.byteLength(content)}`, content);
  await execa('git', ['init', '-q', dir], { env: ENV, extendEnv: false });
  await execa('git', ['fast-import', '--quiet'], { cwd: dir, env: ENV, extendEnv: false, input: `${parts.join('\n')}\n` });
  return dir;
}

const REQUESTS: QueryRequest[] = [
  { question: 'zebra crossing at noon' },
  { question: 'zebra crossing', limit: 3 }, // the limit falls inside the tie
  { question: 'zebra harbour', kinds: ['decision'] },
  { question: 'zebra harbour', kinds: ['rule', 'bv-reason'], limit: 4 },
  { question: 'zebra lantern', scope: 'diary' },
  { question: 'lantern', since: '2024-05-02', until: '2024-05-04' },
  { question: 'cache token handler through redis', limit: 50 },
  { question: 'security session migration', scope: 'security/' },
  { question: `${WORDS.join(' ')} migration worker` },
  { question: 'nothing matches xylophone' },
];

/** An answer without what says how it was computed (timing and how the index was opened). */
function answer(result: object): unknown {
  const { metadata, index, ...rest } = result as { metadata?: Record<string, unknown>; index?: unknown };
  if (!metadata) return rest;
  const { durationMs: _d, index: _i, ...kept } = metadata;
  return { ...rest, metadata: kept };
}

test('the first query of a fast-imported tree answers from a scan, exactly as the index maintenance then writes (query and search)', async (t) => {
  const dir = await fastImported();
  const cold = await openBrv(dir);
  const first = await cold.retrieval.query({ ...REQUESTS[0]!, scan: true });
  t.is(first.metadata.index.build, 'scan');
  t.is(first.metadata.index.compaction, 'due', 'the CLI starts maintenance after answering');
  t.is(first.metadata.skippedTopics, 1, 'the blob that is no topic');
  // Every request, query and search, while this process holds only the scanned index (nothing written).
  const scanned = [];
  for (const request of REQUESTS) {
    const query = await cold.retrieval.query({ ...request, scan: true });
    const search = await cold.retrieval.search({ ...request, scan: true });
    scanned.push({ query: answer(query), search: answer(search) });
  }
  const indexRoot = path.join(internals(cold).repo.location.commonDir, 'brv', 'index');
  t.deepEqual(await (await import('node:fs/promises')).readdir(indexRoot).catch(() => []), [], 'the scan wrote no index');

  const maintenance = await cold.retrieval.compactIndex();
  t.is(maintenance.indexes[0]?.indexed, 150 + 6 + 6 + 2, 'maintenance built the index of the scanned tree');
  cold.close();

  const warm = await openBrv(dir);
  t.teardown(() => warm.close());
  for (const [i, request] of REQUESTS.entries()) {
    const query = await warm.retrieval.query({ ...request, scan: true });
    t.is(query.metadata.index.build, 'cached');
    const search = await warm.retrieval.search({ ...request, scan: true });
    t.deepEqual(scanned[i]!.query, answer(query), `query ${JSON.stringify(request)}`);
    t.deepEqual(scanned[i]!.search, answer(search), `search ${JSON.stringify(request)}`);
  }
  // The limit falls inside a tie (b, c | d, e, decided: one score), and the order of tied topics is kept.
  type Docs = { matchedDocs: Array<{ path: string; score: number }> };
  const all = (scanned[0]!.query as Docs).matchedDocs;
  const cut = (scanned[1]!.query as Docs).matchedDocs;
  t.deepEqual(
    cut.map((d) => d.path),
    all.slice(0, 3).map((d) => d.path),
  );
  t.true(all[0]!.path.startsWith('ties/'));
  t.is(all[2]!.score, all[3]!.score);
  t.is(all[1]!.score, all[5]!.score);
});

test('a scan answers as a full build does, with no index and with the index deleted (and only when asked)', async (t) => {
  const dir = await fastImported();
  const built = await openBrv(dir);
  const full = [];
  for (const request of REQUESTS) {
    const query = await built.retrieval.query(request);
    full.push(answer(query));
  }
  built.close();
  await rm(path.join(dir, '.git', 'brv'), { recursive: true, force: true });
  const scanning = await openBrv(dir);
  t.teardown(() => scanning.close());
  t.is((await scanning.retrieval.query({ ...REQUESTS[0]!, scan: true })).metadata.index.build, 'scan');
  for (const [i, request] of REQUESTS.entries()) t.deepEqual(answer(await scanning.retrieval.query({ ...request, scan: true })), full[i]);
  // An older tree (`at`) is not one maintenance indexes: its query builds.
  const at = await scanning.retrieval.query({ question: 'zebra', at: 'main', scan: true });
  t.not(at.metadata.index.build, 'scan');
});

test('one segment over all documents has the bytes of chunks merged (a scan builds the one, a full build the other)', (t) => {
  const docs: SegmentInput[] = Array.from({ length: 700 }, (_, i) => {
    const topic = syntheticTopic(i);
    return {
      path: topic.path,
      title: topic.title,
      fields: { title: topic.title, path: topic.path.replace(/[/_]/g, ' '), meta: 'meta words', key: `key ${i % 7}`, body: topic.html },
      dates: i % 5 === 0 ? ['2024-05-03'] : [],
      kinds: i % 3 === 0 ? ['bv-rule'] : ['bv-decision', 'bv-rule'],
      blob: (i + 1).toString(16).padStart(40, '0'),
    };
  });
  const whole = buildSegment(docs);
  const chunks = [0, 250, 500].map((from) => Segment.open(buildSegment(docs.slice(from, from + 250))));
  t.deepEqual(mergeSegments(chunks.map((segment) => ({ segment }))), whole);
});

test('brv query and search as agents run them: the first answers from a scan and starts maintenance, which writes the index; the next answers the same from it', async (t) => {
  const dir = await fastImported();
  const run = async (args: string[]) => {
    const result = await brvJson(dir, args, { unset: ['BRV_NO_AUTO_MAINTENANCE'] });
    if (!result.json?.success) throw new Error(`${args.join(' ')} failed: ${result.stdout} ${result.stderr}`);
    return result.json.data as Record<string, unknown> & { metadata?: { index: { build: string } }; index?: { build: string } };
  };
  for (const args of [
    ['query', 'zebra crossing', '--limit', '4'],
    ['search', 'zebra harbour', '--kind', 'rule'],
    ['query', 'cache token', '--scope', 'caching'],
  ]) {
    await rm(path.join(dir, '.git', 'brv'), { recursive: true, force: true });
    const cold = await run(args);
    t.is((cold.metadata ?? cold).index!.build, 'scan', args.join(' '));
    await waitForMaintenance(dir);
    const warm = await run(args);
    t.is((warm.metadata ?? warm).index!.build, 'cached', args.join(' '));
    t.deepEqual(answer(cold), answer(warm), args.join(' '));
  }
});
