/**
 * bench/ab-query: two builds of brv (e.g. before and after a change) answering the same questions,
 * interleaved run by run on two copies of one synthetic repository, so machine noise falls on both
 * alike. Usage: node --import tsx bench/ab-query.ts <cli A> <cli B> [--sizes 1000,10000 --runs 30] [--remote]
 * Prints p50/p95 wall time per size for A and B. `--remote`: the repository has an `origin` with the
 * knowledge pushed and fetched back (a remote-tracking knowledge ref, as in every teammate's clone),
 * so each read's import of fetched knowledge (src/vc/arrival.ts) is measured too.
 */
import { execa } from 'execa';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticQuestions, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, percentiles } from './lib/report.js';

const [cliA, cliB] = process.argv.slice(2).filter((a) => !a.startsWith('--') && a.endsWith('.js'));
if (!cliA || !cliB) throw new Error('usage: bench/ab-query.ts <cli A> <cli B> [--sizes …] [--runs …]');
const sizes = argValue('sizes', '1000,10000').split(',').map(Number);
const runs = Number(argValue('runs', '30'));
const op = argValue('op', 'query');
const withRemote = process.argv.includes('--remote');
let curated = 0;
const env = BENCH_ENV;

/** Wall time, and CPU time (user + system, git children included) from /usr/bin/time: less sensitive to a busy machine. */
async function wall(cli: string, question: string, cwd: string): Promise<{ ms: number; cpuMs: number }> {
  const start = process.hrtime.bigint();
  let args = ['query', question];
  if (op === 'curate') {
    const file = path.join(cwd, '..', `curate-${++curated}.html`);
    await writeFile(file, `<bv-topic path="ab/t${curated}" title="AB ${curated}"><bv-rule>${question}</bv-rule></bv-topic>`);
    args = ['curate', '--html-file', file];
  }
  const run = await execa('/usr/bin/time', ['-f', '%U %S', 'node', cli, ...args, '--format', 'json'], { cwd, env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const [user, system] = run.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number];
  return { ms, cpuMs: (user + system) * 1000 };
}

for (const size of sizes) {
  const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-ab-'));
  const repo = path.join(work, 'a');
  await mkdir(repo);
  await execa('git', ['init', '-q', repo]);
  await writeSyntheticTopics(path.join(work, 'topics'), size);
  await execa('node', [cliA, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: repo, env });
  if (withRemote) {
    const bare = path.join(work, 'remote.git');
    await execa('git', ['init', '-q', '--bare', bare], { env });
    await execa('git', ['remote', 'add', 'origin', bare], { cwd: repo, env });
    await execa('git', ['push', '-q', 'origin', 'refs/brv/heads/main:refs/brv/heads/main'], { cwd: repo, env });
    await execa('git', ['config', '--add', 'remote.origin.fetch', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*'], { cwd: repo, env });
    await execa('git', ['fetch', '-q', 'origin'], { cwd: repo, env });
  }
  const other = path.join(work, 'b');
  await cp(repo, other, { recursive: true });
  const questions = syntheticQuestions(size, runs);
  await wall(cliA, questions[0]!, repo); // builds A's index
  await wall(cliB, questions[0]!, other); // builds B's index
  const a: Array<{ ms: number; cpuMs: number }> = [];
  const b: Array<{ ms: number; cpuMs: number }> = [];
  for (const [i, question] of questions.entries()) {
    // Alternate which goes first, so neither always follows the other.
    if (i % 2 === 0) {
      a.push(await wall(cliA, question, repo));
      b.push(await wall(cliB, question, other));
    } else {
      b.push(await wall(cliB, question, other));
      a.push(await wall(cliA, question, repo));
    }
  }
  const pa = percentiles(a.map((r) => r.ms));
  const pb = percentiles(b.map((r) => r.ms));
  const ca = percentiles(a.map((r) => r.cpuMs));
  const cb = percentiles(b.map((r) => r.cpuMs));
  console.log(
    `${op}, ${size} topics, ${runs} runs: wall p50 A ${pa.p50} / B ${pb.p50} ms (B/A ${(pb.p50 / pa.p50).toFixed(3)}), p95 A ${pa.p95} / B ${pb.p95} ms; ` +
      `CPU p50 A ${ca.p50} / B ${cb.p50} ms (B/A ${(cb.p50 / ca.p50).toFixed(3)}); ` +
      // The fastest run of each: the least disturbed by other work on a busy machine.
      `wall min A ${Math.min(...a.map((r) => r.ms)).toFixed(1)} / B ${Math.min(...b.map((r) => r.ms)).toFixed(1)} ms`,
  );
  await rm(work, { recursive: true, force: true });
}
