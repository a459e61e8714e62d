/**
 * bench/curate: a curate continuation end to end (process start to exit) into context trees of
 * 100, 1,000 and 10,000 topics. Usage: npm run bench:curate [-- --sizes 100,1000,10000 --runs 30]
 * Prints a table and writes bench/results/curate.json.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticTopic } from './lib/synthetic.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const argValue = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const sizes = argValue('sizes', '100,1000,10000').split(',').map(Number);
const runs = Number(argValue('runs', '30'));
const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };

async function time(args: string[], cwd: string): Promise<{ ms: number; stdout: string }> {
  const start = process.hrtime.bigint();
  const result = await execa('node', [cli, ...args], { cwd, env });
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, stdout: result.stdout };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const results = [];
for (const size of sizes) {
  const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-curate-'));
  const repo = path.join(work, 'repo');
  const topics = path.join(work, 'topics');
  await mkdir(repo);
  await execa('git', ['init', '-q', repo]);
  for (let i = 0; i < size; i++) {
    const topic = syntheticTopic(i);
    const file = path.join(topics, `${topic.path}.html`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, topic.html);
  }
  const imported = await time(['import', topics, '--format', 'json'], repo);

  const kickoffs: number[] = [];
  const continuations: number[] = [];
  for (let i = 0; i < runs; i++) {
    const kickoff = await time(['curate', `benchmark fact ${i}`, '--format', 'json'], repo);
    kickoffs.push(kickoff.ms);
    const sessionId = JSON.parse(kickoff.stdout).data.sessionId;
    const topic = syntheticTopic(size + i);
    const done = await time(['curate', '--session', sessionId, '--response', JSON.stringify({ html: topic.html, meta: { impact: 'low' } }), '--format', 'json'], repo);
    const status = JSON.parse(done.stdout).data.status;
    if (status !== 'done') throw new Error(`curate did not finish: ${done.stdout}`);
    continuations.push(done.ms);
  }
  const row = {
    topics: size,
    importMs: Math.round(imported.ms),
    kickoff: { p50: percentile(kickoffs, 50), p95: percentile(kickoffs, 95) },
    continuation: { p50: percentile(continuations, 50), p95: percentile(continuations, 95), min: Math.min(...continuations), max: Math.max(...continuations) },
    runs,
  };
  results.push(row);
  console.log(
    `${String(size).padStart(6)} topics  import ${String(row.importMs).padStart(6)} ms  kickoff p50 ${row.kickoff.p50.toFixed(0)} p95 ${row.kickoff.p95.toFixed(0)} ms  continuation p50 ${row.continuation.p50.toFixed(0)} p95 ${row.continuation.p95.toFixed(0)} ms`,
  );
  await rm(work, { recursive: true, force: true });
}

const out = path.join(root, 'bench/results');
await mkdir(out, { recursive: true });
const report = { benchmark: 'curate', date: new Date().toISOString(), node: process.version, git: (await execa('git', ['version'])).stdout, results };
await writeFile(path.join(out, 'curate.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${path.relative(root, path.join(out, 'curate.json'))}`);
