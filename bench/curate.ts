/**
 * bench/curate: a curate continuation end to end (process start to exit) into context trees of
 * 100, 1,000 and 10,000 topics. Usage: npm run bench:curate [-- --sizes 100,1000,10000 --runs 30]
 * Sizes are measured round-robin (so machine drift hits them alike), next to a bare `node -e 0`
 * as the machine's floor. Prints a table and writes bench/results/curate.json.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticTopic, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const cli = CLI;
const sizes = argValue('sizes', '100,1000,10000').split(',').map(Number);
const runs = Number(argValue('runs', '30'));
const env = BENCH_ENV;

async function timed(command: string, args: string[], cwd: string): Promise<{ ms: number; stdout: string }> {
  const start = process.hrtime.bigint();
  const result = await execa(command, args, { cwd, env });
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, stdout: result.stdout };
}

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-curate-'));
const repos = new Map<number, string>();
const importMs = new Map<number, number>();
for (const size of sizes) {
  const repo = path.join(work, `repo-${size}`);
  const topics = path.join(work, `topics-${size}`);
  await mkdir(repo);
  await execa('git', ['init', '-q', repo]);
  await writeSyntheticTopics(topics, size);
  importMs.set(size, (await timed('node', [cli, 'import', topics, '--format', 'json'], repo)).ms);
  repos.set(size, repo);
  console.error(`prepared ${size} topics`);
}

const samples = new Map(sizes.map((s) => [s, { kickoff: [] as number[], continuation: [] as number[] }]));
const floor: number[] = [];
for (let i = 0; i < runs + 2; i++) {
  const warmup = i < 2;
  for (const size of sizes) {
    const repo = repos.get(size)!;
    const kickoff = await timed('node', [cli, 'curate', `benchmark fact ${i}`, '--format', 'json'], repo);
    const sessionId = JSON.parse(kickoff.stdout).data.sessionId;
    const topic = syntheticTopic(size + i);
    const response = JSON.stringify({ html: topic.html, meta: { impact: 'low' } });
    const done = await timed('node', [cli, 'curate', '--session', sessionId, '--response', response, '--format', 'json'], repo);
    if (JSON.parse(done.stdout).data.status !== 'done') throw new Error(`curate did not finish: ${done.stdout}`);
    if (!warmup) {
      samples.get(size)!.kickoff.push(kickoff.ms);
      samples.get(size)!.continuation.push(done.ms);
    }
  }
  if (!warmup) floor.push((await timed('node', ['-e', '0'], work)).ms);
}

const nodeFloor = percentiles(floor);
console.log(`machine floor: node -e 0  p50 ${nodeFloor.p50} ms  p95 ${nodeFloor.p95} ms`);
const results = sizes.map((size) => {
  const row = {
    topics: size,
    importMs: Math.round(importMs.get(size)!),
    kickoff: percentiles(samples.get(size)!.kickoff),
    continuation: percentiles(samples.get(size)!.continuation),
    runs,
  };
  console.log(
    `${String(size).padStart(6)} topics  import ${String(row.importMs).padStart(6)} ms  kickoff p50 ${row.kickoff.p50} p95 ${row.kickoff.p95} ms  continuation p50 ${row.continuation.p50} p95 ${row.continuation.p95} ms`,
  );
  return row;
});
await writeReport('curate', { nodeFloor, results });
await rm(work, { recursive: true, force: true });
