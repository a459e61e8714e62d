/**
 * bench/query: `brv query` end to end (process start to exit) on synthetic trees, the first query
 * after one curate (several rounds), index build from scratch (right after the import, then again
 * with the per-blob cache warm and cold), index size and peak memory; in-process query time.
 * Usage: npm run bench:query [-- --sizes 100,1000,10000,100000 --runs 40 --curates 7]
 * Prints a table and writes bench/results/query.json.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openBrv } from '../test/helpers/service.js';
import { syntheticQuestions, syntheticTopic, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, waitForMaintenance, writeReport } from './lib/report.js';

const cli = CLI;
const sizes = argValue('sizes', '100,1000,10000').split(',').map(Number);
const runs = Number(argValue('runs', '40'));
/** Rounds of one curate then one query: the first query after a curate is a single noisy sample otherwise. */
const curates = Number(argValue('curates', '7'));
// The report's "first query after a curate" figures need at least one round.
if (!Number.isInteger(curates) || curates < 1)
  throw new Error(`--curates must be a whole number of at least 1 (got ${argValue('curates', '7')})`);
const env = BENCH_ENV;

/** Questions an agent might ask: a few words of a topic's title and summary, in a new order. */

/**
 * Runs a command, returning wall time, and the peak RSS (KiB) and CPU time (user + system, the git
 * processes it waited for included) that /usr/bin/time reports: CPU time says what a change costs
 * even when other work on the machine makes wall times noisy.
 */
async function timed(
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<{ ms: number; cpuMs: number; stdout: string; maxRssMiB: number }> {
  const start = process.hrtime.bigint();
  const result = await execa('/usr/bin/time', ['-f', '%M %U %S', 'node', cli, ...args], { cwd, env: { ...env, ...extraEnv } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const [rss, user, system] = result.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
  return { ms, cpuMs: (user + system) * 1000, stdout: result.stdout, maxRssMiB: Math.round(rss / 1024) };
}

async function dirSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

const results = [];
for (const size of sizes) {
  const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-query-'));
  const repo = path.join(work, 'repo');
  const topics = path.join(work, 'topics');
  await mkdir(repo);
  await execa('git', ['init', '-q', repo]);
  await writeSyntheticTopics(topics, size);
  const imported = await timed(['import', topics, '--format', 'json'], repo);
  console.error(`${size}: imported in ${Math.round(imported.ms)} ms`);
  const asked = syntheticQuestions(size, runs);

  const first = await timed(['query', asked[0]!, '--format', 'json'], repo);
  const firstData = JSON.parse(first.stdout).data;
  const indexBytes = await dirSize(path.join(repo, '.git', 'brv', 'index'));

  const e2e: number[] = [];
  const floor: number[] = [];
  let maxRss = 0;
  for (const [i, question] of asked.entries()) {
    const run = await timed(['query', question, '--format', 'json'], repo);
    if (i > 1) e2e.push(run.ms);
    maxRss = Math.max(maxRss, run.maxRssMiB);
    const start = process.hrtime.bigint();
    await execa('node', ['-e', '0']);
    floor.push(Number(process.hrtime.bigint() - start) / 1e6);
  }

  // In process: the index is opened once, then queries are pure search + rendering.
  const brv = await openBrv(repo);
  const inProcess: number[] = [];
  for (const [i, question] of asked.entries()) {
    const start = performance.now();
    await brv.retrieval.query({ question: question, limit: 10 });
    if (i > 1) inProcess.push(performance.now() - start);
  }
  brv.close();

  // The index rebuilt from scratch (as after a branch switch, a clone or an INDEX_VERSION bump): with
  // the per-blob cache of extracted text warm, then with no cache (every topic parsed and rendered).
  const brvDir = path.join(repo, '.git', 'brv');
  const rebuild = async (dropCache: boolean) => {
    await rm(path.join(brvDir, 'index'), { recursive: true, force: true });
    if (dropCache) await rm(path.join(brvDir, 'cache'), { recursive: true, force: true });
    const run = await timed(['query', asked[0]!, '--format', 'json'], repo);
    const index = JSON.parse(run.stdout).data.metadata.index;
    return { ms: Math.round(run.ms), indexBuildMs: index.buildMs, parsedTopics: index.parsedTopics, cachedTopics: index.cachedTopics };
  };
  const rebuildWarm = await rebuild(false);
  const rebuildCold = await rebuild(true);
  await waitForMaintenance(repo); // it caches what the cold rebuild extracted

  // Curate one topic, then the first query pays only an incremental index update; several rounds.
  // Each round also times a plain query just before the curate: on a noisy machine the difference
  // within a round says more than two percentiles taken minutes apart.
  const afterCurate: number[] = [];
  const afterCurateCpu: number[] = [];
  const overPlain: number[] = [];
  const overPlainCpu: number[] = [];
  const continuation: number[] = [];
  const continuationCpu: number[] = [];
  let afterData;
  for (let round = 0; round < curates; round++) {
    const plain = await timed(['query', asked[(round + 2) % asked.length]!, '--format', 'json'], repo);
    const kickoff = JSON.parse((await execa('node', [cli, 'curate', 'bench', '--format', 'json'], { cwd: repo, env })).stdout).data
      .sessionId;
    const html = syntheticTopic(size + 1 + round).html;
    const continued = await timed(['curate', '--session', kickoff, '--response', JSON.stringify({ html }), '--format', 'json'], repo);
    continuation.push(continued.ms);
    continuationCpu.push(continued.cpuMs);
    const run = await timed(['query', asked[(round + 1) % asked.length]!, '--format', 'json'], repo);
    afterCurate.push(run.ms);
    afterCurateCpu.push(run.cpuMs);
    overPlain.push(run.ms - plain.ms);
    overPlainCpu.push(run.cpuMs - plain.cpuMs);
    afterData = JSON.parse(run.stdout).data;
  }

  // A query that leaves the index due starts `brv maintenance` in the background: let it finish
  // before the repository is removed.
  await waitForMaintenance(repo);

  // What the background maintenance costs, off the query path: stack deltas until compaction is due
  // (background runs off), then time `brv maintenance` itself (when this brv has it).
  let maintenance;
  const noAuto = { BRV_NO_AUTO_MAINTENANCE: '1' };
  for (let round = 0; round < 12 && !maintenance; round++) {
    const html = syntheticTopic(size + 1000 + round).html;
    const file = path.join(work, `extra-${round}.html`);
    await writeFile(file, html);
    await execa('node', [cli, 'curate', '--html-file', file, '--format', 'json'], { cwd: repo, env: { ...env, ...noAuto } });
    const run = await timed(['query', asked[round % asked.length]!, '--format', 'json'], repo, noAuto);
    if (JSON.parse(run.stdout).data.metadata.index.compaction !== 'due') continue;
    const compacted = await timed(['maintenance', '--format', 'json'], repo, noAuto);
    maintenance = { ms: Math.round(compacted.ms), cpuMs: compacted.cpuMs, maxRssMiB: compacted.maxRssMiB };
  }

  const row = {
    topics: size,
    importMs: Math.round(imported.ms),
    fullBuild: { ms: Math.round(first.ms), indexBuildMs: firstData.metadata.index.buildMs, maxRssMiB: first.maxRssMiB },
    indexSizeBytes: indexBytes,
    queryEndToEnd: percentiles(e2e),
    queryMaxRssMiB: maxRss,
    inProcessMs: percentiles(inProcess),
    rebuildWarmCache: rebuildWarm,
    rebuildColdCache: rebuildCold,
    firstAfterCurate: {
      ...percentiles(afterCurate),
      overQueryP50: Math.round(percentiles(afterCurate).p50 - percentiles(e2e).p50),
      /** CPU time (user + system, git children included) of the first query after each curate. */
      cpu: percentiles(afterCurateCpu),
      rounds: afterCurate.map((ms) => Math.round(ms)),
      cpuRounds: afterCurateCpu,
      /** Per round: the first query after the curate minus a plain query just before it. */
      overPlainQuery: percentiles(overPlain),
      overPlainQueryCpu: percentiles(overPlainCpu),
      build: afterData.metadata.index.build,
      indexBuildMs: afterData.metadata.index.buildMs,
      parsedTopics: afterData.metadata.index.parsedTopics,
      cachedTopics: afterData.metadata.index.cachedTopics,
    },
    /** `brv maintenance` compacting a due stack (what the background process does), timed alone. */
    maintenance,
    curateContinuation: percentiles(continuation),
    curateContinuationCpu: percentiles(continuationCpu),
    nodeFloor: percentiles(floor),
  };
  results.push(row);
  console.log(
    `${String(size).padStart(7)} topics | import ${row.importMs} ms | full build after import ${row.fullBuild.indexBuildMs} ms (rss ${row.fullBuild.maxRssMiB} MiB) | rebuild: cache warm ${rebuildWarm.indexBuildMs} ms (parsed ${rebuildWarm.parsedTopics}), cold ${rebuildCold.indexBuildMs} ms (parsed ${rebuildCold.parsedTopics}) | index ${(indexBytes / 2 ** 20).toFixed(1)} MiB | query p50 ${row.queryEndToEnd.p50} p95 ${row.queryEndToEnd.p95} ms (floor ${row.nodeFloor.p50}) | in-process p50 ${row.inProcessMs.p50} ms | first query after a curate p50 ${row.firstAfterCurate.p50} p95 ${row.firstAfterCurate.p95} max ${row.firstAfterCurate.max} ms, CPU p50 ${row.firstAfterCurate.cpu.p50} p95 ${row.firstAfterCurate.cpu.p95} max ${row.firstAfterCurate.cpu.max} ms (${row.firstAfterCurate.overQueryP50} over p50, ${row.firstAfterCurate.overPlainQuery.p50} over the plain query of its round, CPU +${row.firstAfterCurate.overPlainQueryCpu.p50}; ${row.firstAfterCurate.build}, parsed ${row.firstAfterCurate.parsedTopics}) | continuation p50 ${row.curateContinuation.p50} ms, CPU ${row.curateContinuationCpu.p50} ms${maintenance ? ` | brv maintenance (background) ${maintenance.ms} ms, CPU ${maintenance.cpuMs} ms, rss ${maintenance.maxRssMiB} MiB` : ''}`,
  );
  await rm(work, { recursive: true, force: true });
}
await writeReport('query', { results });
