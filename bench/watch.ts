/**
 * bench/watch: what watching a repository's refs costs a long-lived server. One process opens a
 * RepositoryPool on a fresh repository (plus `--refs N` extra refs under refs/brv/review/) and:
 * 1. idles `--rounds` times for `--idle` seconds without a watch, then with one: CPU time
 *    (process.cpuUsage) and the number of `for-each-ref` snapshots taken while idle;
 * 2. lets another process (a shell loop of `git update-ref`, one every 200 ms) move `--changes` refs:
 *    the latency from the write (the writer's clock right after update-ref returns) to the event, the
 *    CPU time per change in the watching process, and the wall time of each snapshot (`for-each-ref`).
 * Usage: node --expose-gc --import tsx bench/watch.ts [--idle 10 --rounds 3 --changes 50 --refs 0].
 * Writes bench/results/watch.json.
 */
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitRepository } from '../src/git/repository.js';
import { RepositoryPool, type RefChangeEvent } from '../src/service/repository-pool.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';
import { GitProcesses } from '../src/git/processes.js';

const gitProcesses = new GitProcesses(process.env);

const idleSeconds = Number(argValue('idle', '10'));
const rounds = Number(argValue('rounds', '3'));
const changes = Number(argValue('changes', '50'));
const extraRefs = Number(argValue('refs', '0'));

let snapshots = 0;
const snapshotMs: number[] = [];
const listRefs = GitRepository.prototype.listRefs;
GitRepository.prototype.listRefs = async function (this: GitRepository, prefix: string) {
  snapshots++;
  const start = performance.now();
  try {
    return await listRefs.call(this, prefix);
  } finally {
    snapshotMs.push(performance.now() - start);
  }
};

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-watch-'));
const repo = path.join(work, 'repo');
await execa('git', ['init', '-q', repo], { env: BENCH_ENV });
await execa('node', [CLI, 'init', '--format', 'json'], { cwd: repo, env: BENCH_ENV });
const tip = (await execa('git', ['rev-parse', 'refs/brv/heads/main'], { cwd: repo, env: BENCH_ENV })).stdout.trim();
if (extraRefs > 0) {
  const input = Array.from({ length: extraRefs }, (_, i) => `create refs/brv/review/r${i} ${tip}\n`).join('');
  await execa('git', ['update-ref', '--stdin'], { cwd: repo, env: BENCH_ENV, input });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

async function idle(): Promise<{ cpuMs: number; snapshots: number }> {
  // A full collection first (node --expose-gc), so that fewer of V8's own collections land in a window.
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(100);
  const taken = snapshots;
  const before = process.cpuUsage();
  await sleep(idleSeconds * 1000);
  return { cpuMs: Math.round(cpuMs(process.cpuUsage(before)) * 10) / 10, snapshots: snapshots - taken };
}

const pool = new RepositoryPool(repo, { processes: gitProcesses });
await pool.resolve(undefined);
await sleep(2000); // start-up's leftovers settle before anything is measured

// Idle windows alternate without and with a watch: an idle node process has its own noise (V8's
// collections and compilation after start-up), which lands in whichever window it falls in.
const events: Array<{ event: RefChangeEvent; at: number }> = [];
const listener = (event: RefChangeEvent) => void events.push({ event, at: performance.timeOrigin + performance.now() });
const withoutWatch: number[] = [];
const withWatch: number[] = [];
let idleSnapshots = 0;
for (let round = 0; round < rounds; round++) {
  withoutWatch.push((await idle()).cpuMs);
  const watching = await pool.watch(listener);
  await sleep(200);
  const window = await idle();
  withWatch.push(window.cpuMs);
  idleSnapshots += window.snapshots;
  watching.unsubscribe();
}
const subscription = await pool.watch(listener);

snapshots = 0;
snapshotMs.length = 0;
const before = process.cpuUsage();
const script = `for i in $(seq 1 ${changes}); do git update-ref refs/brv/heads/bench-$i ${tip}; date +%s%N; sleep 0.2; done`;
const writer = await execa('sh', ['-c', script], { cwd: repo, env: BENCH_ENV });
await sleep(500);
const perChangeCpu = cpuMs(process.cpuUsage(before)) / changes;
const written = writer.stdout.split('\n').map((line) => Number(line) / 1e6);
const latencies = events.map(({ event, at }) => at - written[Number(/bench-(\d+)$/.exec(event.ref)?.[1]) - 1]!);
await pool.close();
await rm(work, { recursive: true, force: true });

const result = {
  idleSeconds,
  changes,
  refs: extraRefs + 1 + changes,
  mode: subscription.mode,
  idleCpuMsWithoutWatch: withoutWatch,
  idleCpuMsWithWatch: withWatch,
  idleSnapshots,
  eventsSeen: events.length,
  snapshotsForChanges: snapshots,
  latencyMs: percentiles(latencies),
  cpuMsPerChange: Math.round(perChangeCpu * 100) / 100,
  snapshotWallMs: percentiles(snapshotMs),
};
console.log(JSON.stringify(result, null, 2));
await writeReport('watch', result);
