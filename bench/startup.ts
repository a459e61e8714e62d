/**
 * bench/startup: what commands cost end to end (process start to exit) on a 1,000-topic tree: the
 * agent commands (query, search, a curate kickoff) and two that go through yargs (status, --version),
 * next to a bare `node -e 0` (the machine's floor), all measured round-robin so drift hits them
 * alike. Every command has run once before (index built, code cache written).
 * Usage: node --import tsx bench/startup.ts [--topics 1000] [--runs 40] [--cli label=dist/cli/main.js,…]
 * Several --cli builds (e.g. a checkout of the previous commit) are measured in the same rounds.
 * Also: the query without the code cache (BRV_CODE_CACHE=0), and the CPU time of each run: `perf stat`'s
 * task-clock (exact, every thread) where perf works, else user+system from /usr/bin/time (10 ms ticks).
 * On a shared machine the CPU time moves far less than the wall time: judge an A/B on it.
 * Prints a table and writes bench/results/startup.json.
 */
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const topics = Number(argValue('topics', '1000'));
const runs = Number(argValue('runs', '40'));
const clis = argValue('cli', `new=${CLI}`)
  .split(',')
  .map((spec) => {
    const [label, file] = spec.includes('=') ? spec.split('=') : [path.basename(path.dirname(path.dirname(spec))), spec];
    return { label: label!, file: path.resolve(file!) };
  });
const question = 'how do we handle token rotation';
const perf = spawnSync('perf', ['stat', '-x,', '-e', 'task-clock', 'true'], { encoding: 'utf8' }).stderr?.includes('task-clock');
const time = perf || existsSync('/usr/bin/time');

interface Variant {
  label: string;
  argv: string[];
  env?: Record<string, string>;
  wall: number[];
  cpu: number[];
}

function run(variant: Variant, cwd: string, record: boolean): void {
  const argv = perf
    ? ['perf', 'stat', '-x,', '-e', 'task-clock', ...variant.argv]
    : time
      ? ['/usr/bin/time', '-f', 'brv-bench-cpu %U %S', ...variant.argv]
      : variant.argv;
  const start = process.hrtime.bigint();
  const result = spawnSync(argv[0]!, argv.slice(1), { cwd, env: { ...BENCH_ENV, ...variant.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${variant.label} failed (${result.status}): ${result.stderr}`);
  if (!record) return;
  variant.wall.push(ms);
  const taskClock = /^([\d.]+),msec,task-clock/m.exec(String(result.stderr));
  const cpu = /brv-bench-cpu ([\d.]+) ([\d.]+)/.exec(String(result.stderr));
  if (taskClock) variant.cpu.push(Number(taskClock[1]));
  else if (cpu) variant.cpu.push((Number(cpu[1]) + Number(cpu[2])) * 1000);
}

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-startup-'));
const repo = path.join(work, 'repo');
await mkdir(repo);
await execa('git', ['init', '-q', repo]);
await writeSyntheticTopics(path.join(work, 'topics'), topics);
await execa('node', [clis[0]!.file, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: repo, env: BENCH_ENV });

const variants: Variant[] = [{ label: 'node -e 0 (floor)', argv: ['node', '-e', '0'], wall: [], cpu: [] }];
for (const { label, file } of clis) {
  const add = (name: string, args: string[], env?: Record<string, string>) =>
    variants.push({ label: `${label}: ${name}`, argv: ['node', file, ...args], env, wall: [], cpu: [] });
  add('query', ['query', question, '--format', 'json']);
  add('query, no code cache', ['query', question, '--format', 'json'], { BRV_CODE_CACHE: '0' });
  add('search', ['search', question, '--format', 'json']);
  add('curate (kickoff)', ['curate', 'JWTs are signed with RS256 and keys rotate monthly', '--format', 'json']);
  add('status', ['status', '--format', 'json']);
  add('--version', ['--version']);
}
// Build the index and write each command's code cache before anything is measured.
for (const variant of variants) run(variant, repo, false);
for (let round = -2; round < runs; round++) for (const variant of variants) run(variant, repo, round >= 0);

const floor = percentiles(variants[0]!.wall);
const floorCpu = time ? percentiles(variants[0]!.cpu) : undefined;
const rows = variants.map((v) => {
  const wall = percentiles(v.wall);
  const cpu = time ? percentiles(v.cpu) : undefined;
  return {
    label: v.label,
    wall,
    aboveFloorP50: Math.round((wall.p50 - floor.p50) * 10) / 10,
    cpu,
    cpuAboveFloorP50: cpu && Math.round((cpu.p50 - floorCpu!.p50) * 10) / 10,
  };
});
for (const row of rows)
  console.log(
    `${row.label.padEnd(32)} p50 ${String(row.wall.p50).padStart(6)} ms  p95 ${String(row.wall.p95).padStart(6)} ms  p50 above floor ${String(row.aboveFloorP50).padStart(6)} ms${row.cpu ? `  cpu p50 ${row.cpu.p50} ms (${row.cpuAboveFloorP50} above floor)` : ''}`,
  );
await writeReport('startup', { topics, runs, question, cpuClock: perf ? 'perf task-clock' : time ? '/usr/bin/time' : 'none', rows });
await rm(work, { recursive: true, force: true });
