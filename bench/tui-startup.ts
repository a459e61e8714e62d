/**
 * bench/tui-startup: how long `brv` (the terminal REPL) takes to show its prompt, and then its status
 * line (topic count, reviews, remote), in a real pseudo-terminal (tmux), on a tree of --topics topics.
 * Times are the process's own performance marks (from its start): "tui: first paint" (ink's first
 * frame) and "tui: status read", printed by BRV_TRACE=1 into a file; the process is then left with
 * Ctrl-C twice. A `node -e 0` floor is measured in the same rounds.
 * Usage: npm run build && node --import tsx bench/tui-startup.ts [--topics 10000] [--runs 15]
 * Prints a table and writes bench/results/tui-startup.json.
 */
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const topics = Number(argValue('topics', '10000'));
const runs = Number(argValue('runs', '15'));

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-tui-'));
const repo = path.join(work, 'repo');
await mkdir(repo);
await execa('git', ['init', '-q', repo]);
await writeSyntheticTopics(path.join(work, 'topics'), topics);
await execa('node', [CLI, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: repo, env: BENCH_ENV });
await execa('node', [CLI, 'query', 'warm up the index'], { cwd: repo, env: BENCH_ENV });

const socket = path.join(work, 'tmux.sock');
const tmux = (...args: string[]) => execa('tmux', ['-S', socket, ...args], { env: { ...BENCH_ENV, TMUX_TMPDIR: work } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function once(): Promise<{ paint: number; status: number }> {
  const trace = path.join(work, 'trace.txt');
  await rm(trace, { force: true });
  const env = Object.entries({ ...BENCH_ENV, BRV_TRACE: '1', TERM: 'xterm-256color' })
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && !entry[1].includes('\n'))
    .flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await tmux('new-session', '-d', '-s', 'b', '-x', '100', '-y', '30', '-c', repo, ...env, `node ${CLI} 2>${trace}; sleep 60`);
  for (let i = 0; i < 400; i++) {
    const screen = (await tmux('capture-pane', '-p', '-t', 'b')).stdout;
    if (/topics · /.test(screen)) break;
    await sleep(25);
  }
  await tmux('send-keys', '-t', 'b', 'C-c');
  await sleep(100);
  await tmux('send-keys', '-t', 'b', 'C-c');
  for (let i = 0; i < 200; i++) {
    const text = await readFile(trace, 'utf8').catch(() => '');
    const paint = /([\d.]+) ms {2}tui: first paint/.exec(text);
    const status = /([\d.]+) ms {2}tui: status read/.exec(text);
    if (paint && status) {
      await tmux('kill-server').catch(() => {});
      return { paint: Number(paint[1]), status: Number(status[1]) };
    }
    await sleep(25);
  }
  throw new Error(`no trace: ${await readFile(trace, 'utf8').catch(() => '(none)')}`);
}

const floor: number[] = [];
const paint: number[] = [];
const status: number[] = [];
await once(); // the code cache is written on the first run
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  spawnSync('node', ['-e', '0']);
  floor.push(Number(process.hrtime.bigint() - start) / 1e6);
  const run = await once();
  paint.push(run.paint);
  status.push(run.status);
}
await rm(work, { recursive: true, force: true });

const rows = [
  { label: 'node -e 0 (floor, wall)', ...percentiles(floor) },
  { label: `first paint, ${topics} topics`, ...percentiles(paint) },
  { label: 'status line read', ...percentiles(status) },
];
for (const row of rows)
  console.log(`${row.label.padEnd(32)} p50 ${row.p50.toFixed(1).padStart(7)} ms   p95 ${row.p95.toFixed(1).padStart(7)} ms`);
await writeReport('tui-startup', { topics, runs, rows });
