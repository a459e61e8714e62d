/**
 * bench/query: `brv query` end to end (process start to exit) on synthetic trees, the first query
 * after one curate, index build from scratch, index size and peak memory; in-process query time.
 * Usage: npm run bench:query [-- --sizes 100,1000,10000,100000 --runs 40]
 * Prints a table and writes bench/results/query.json.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Brv } from '../src/service/brv.js';
import { prng, syntheticTopic, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const cli = CLI;
const sizes = argValue('sizes', '100,1000,10000').split(',').map(Number);
const runs = Number(argValue('runs', '40'));
const env = BENCH_ENV;

/** Questions an agent might ask: a few words of a topic's title and summary, in a new order. */
function questions(size: number, count: number): string[] {
  const rand = prng(size);
  return Array.from({ length: count }, () => {
    const topic = syntheticTopic(Math.floor(rand() * size));
    const words = topic.title
      .replace(/[()0-9]/g, ' ')
      .split(/\s+/)
      .filter((w) => w.length > 2);
    return `how do we handle ${words.slice(0, 3).join(' ')}`;
  });
}

/** Runs a command, returning wall time and the peak RSS that /usr/bin/time reports (KiB). */
async function timed(args: string[], cwd: string): Promise<{ ms: number; stdout: string; maxRssMiB: number }> {
  const start = process.hrtime.bigint();
  const result = await execa('/usr/bin/time', ['-f', '%M', 'node', cli, ...args], { cwd, env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const rss = Number(result.stderr.trim().split('\n').pop());
  return { ms, stdout: result.stdout, maxRssMiB: Math.round(rss / 1024) };
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
  const asked = questions(size, runs);

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
  const brv = await Brv.open(repo);
  const inProcess: number[] = [];
  for (const [i, question] of asked.entries()) {
    const start = performance.now();
    await brv.query(question, { limit: 10 });
    if (i > 1) inProcess.push(performance.now() - start);
  }
  brv.close();

  // One curate, then the first query pays only an incremental index update.
  const kickoff = JSON.parse((await execa('node', [cli, 'curate', 'bench', '--format', 'json'], { cwd: repo, env })).stdout).data.sessionId;
  await execa(
    'node',
    [cli, 'curate', '--session', kickoff, '--response', JSON.stringify({ html: syntheticTopic(size + 1).html }), '--format', 'json'],
    { cwd: repo, env },
  );
  const afterCurate = await timed(['query', asked[1]!, '--format', 'json'], repo);
  const afterData = JSON.parse(afterCurate.stdout).data;

  const row = {
    topics: size,
    importMs: Math.round(imported.ms),
    fullBuild: { ms: Math.round(first.ms), indexBuildMs: firstData.metadata.index.buildMs, maxRssMiB: first.maxRssMiB },
    indexSizeBytes: indexBytes,
    queryEndToEnd: percentiles(e2e),
    queryMaxRssMiB: maxRss,
    inProcessMs: percentiles(inProcess),
    firstAfterCurate: {
      ms: Math.round(afterCurate.ms),
      build: afterData.metadata.index.build,
      indexBuildMs: afterData.metadata.index.buildMs,
    },
    nodeFloor: percentiles(floor),
  };
  results.push(row);
  console.log(
    `${String(size).padStart(7)} topics | import ${row.importMs} ms | full build ${row.fullBuild.indexBuildMs} ms (rss ${row.fullBuild.maxRssMiB} MiB) | index ${(indexBytes / 2 ** 20).toFixed(1)} MiB | query p50 ${row.queryEndToEnd.p50} p95 ${row.queryEndToEnd.p95} ms (floor ${row.nodeFloor.p50}) | in-process p50 ${row.inProcessMs.p50} ms | after curate ${row.firstAfterCurate.ms} ms (${row.firstAfterCurate.build})`,
  );
  await rm(work, { recursive: true, force: true });
}
await writeReport('query', { results });
