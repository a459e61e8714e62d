/**
 * bench/arrival: what the read-time import of fetched knowledge (src/vc/arrival.ts, issue 32) costs a
 * warm query when nothing moved, the common case. A clone with an `origin` whose knowledge was pushed
 * and fetched back (a remote-tracking knowledge ref, as in every teammate's clone) answers the same
 * question with two builds, A (before) and B (after), interleaved run by run, with BRV_TRACE=1: the
 * time from "repository discovered" to "query: rendered" (where the import runs, free of the
 * launcher's noise) and the whole command, p50 and min. Then the import's fast path in process.
 *
 * Usage: node --import tsx bench/arrival.ts <cli A> <cli B> [--runs 30] [--topics 1000]
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitProcesses } from '../src/git/processes.js';
import { GitRepository } from '../src/git/repository.js';
import { ContextStore } from '../src/store/context-store.js';
import { importFetched } from '../src/vc/arrival.js';
import { argValue, BENCH_ENV, percentiles } from './lib/report.js';
import { syntheticQuestions, writeSyntheticTopics } from './lib/synthetic.js';

const [cliA, cliB] = process.argv.slice(2).filter((a) => !a.startsWith('--') && a.endsWith('.js'));
if (!cliA || !cliB) throw new Error('usage: bench/arrival.ts <cli A> <cli B> [--runs 30] [--topics 1000]');
const runs = Number(argValue('runs', '30'));
const topics = Number(argValue('topics', '1000'));
const env = BENCH_ENV;

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-arrival-'));
try {
  const repo = path.join(work, 'clone');
  const bare = path.join(work, 'remote.git');
  await mkdir(repo);
  await execa('git', ['init', '-q', repo], { env });
  await writeSyntheticTopics(path.join(work, 'topics'), topics);
  await execa('node', [cliB, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: repo, env });
  await execa('git', ['init', '-q', '--bare', bare], { env });
  await execa('git', ['remote', 'add', 'origin', bare], { cwd: repo, env });
  await execa('git', ['push', '-q', 'origin', 'refs/brv/heads/main:refs/brv/heads/main'], { cwd: repo, env });
  await execa('git', ['config', '--add', 'remote.origin.fetch', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*'], { cwd: repo, env });
  await execa('git', ['fetch', '-q', 'origin'], { cwd: repo, env });
  const questions = syntheticQuestions(topics, runs);

  const traced = async (cli: string, question: string) => {
    const run = await execa('node', [cli, 'query', question, '--format', 'json'], { cwd: repo, env: { ...env, BRV_TRACE: '1' } });
    const at = (label: string) => Number(new RegExp(`^\\s*([\\d.]+) ms\\s+${label}`, 'm').exec(run.stderr)?.[1]);
    const end = Math.max(...[...run.stderr.matchAll(/^\s*([\d.]+) ms/gm)].map((m) => Number(m[1])));
    return { read: at('query: rendered') - at('repository discovered'), total: end };
  };
  // Warm both (index, code cache, discovery and arrival answers remembered).
  for (let i = 0; i < 3; i++) for (const cli of [cliA, cliB]) await traced(cli, questions[0]!);
  const a: Array<{ read: number; total: number }> = [];
  const b: Array<{ read: number; total: number }> = [];
  for (const [i, question] of questions.entries()) {
    if (i % 2 === 0) {
      a.push(await traced(cliA, question));
      b.push(await traced(cliB, question));
    } else {
      b.push(await traced(cliB, question));
      a.push(await traced(cliA, question));
    }
  }
  const show = (name: string, values: number[]) => {
    const p = percentiles(values);
    return `${name} p50 ${p.p50.toFixed(2)} min ${p.min.toFixed(2)} ms`;
  };
  for (const key of ['read', 'total'] as const) {
    const pa = percentiles(a.map((r) => r[key]));
    const pb = percentiles(b.map((r) => r[key]));
    console.log(
      `${key === 'read' ? 'discovered → rendered' : 'whole command'} (${topics} topics, ${runs} runs): ` +
        `${show(
          'A',
          a.map((r) => r[key]),
        )}; ${show(
          'B',
          b.map((r) => r[key]),
        )}; B/A p50 ${(pb.p50 / pa.p50).toFixed(3)}`,
    );
  }

  const repository = await GitRepository.open(repo, new GitProcesses(env as Record<string, string>));
  try {
    const store = new ContextStore(repository, async () => ({ enabled: true, gate: false }));
    const state = await importFetched(store, 'main');
    const n = 2000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await importFetched(store, 'main');
    console.log(
      `import in process, nothing moved (${state.state}): ${(Number(process.hrtime.bigint() - start) / 1e3 / n).toFixed(1)} µs a read`,
    );
  } finally {
    repository.close();
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
