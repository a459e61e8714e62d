/**
 * bench/publish: `brv publish` (issue 36, point 7) over synthetic context trees of 1,000 and 10,000
 * topics (bench/lib/synthetic.ts, each related to its neighbour), committed with `git fast-import`.
 * For a branch and for a folder, each a whole process (start to exit): the first publish (every page
 * rendered), a publish with nothing changed (nothing written), and one after `--changed` topics were
 * rewritten (only their pages rendered again), beside `node -e 0`.
 * Usage: npm run build && node --import tsx bench/publish.ts [--sizes 1000,10000 --runs 3 --changed 10]
 * Writes bench/results/publish.json.
 */
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticTopic } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const sizes = argValue('sizes', '1000,10000').split(',').map(Number);
const runs = Number(argValue('runs', '3'));
const changed = Number(argValue('changed', '10'));
const env = { ...BENCH_ENV, BRV_NO_AUTO_MAINTENANCE: '1' };

function topicHtml(i: number, size: number, round = 0): [string, string] {
  const topic = syntheticTopic(i);
  const next = syntheticTopic((i + 1) % size);
  let html = topic.html.replace('<bv-topic ', `<bv-topic related="@${next.path}.html" `);
  if (round > 0) html = html.replace('</bv-topic>', `<bv-reason>Revised in round ${round}.</bv-reason></bv-topic>`);
  return [`${topic.path}.html`, html];
}

/** A commit on the brv branch with `files` written (the first one with `.brv/format` too). */
async function commit(repo: string, files: Array<[string, string]>, first: boolean, when: number): Promise<void> {
  const parts = ['commit refs/brv/heads/main', `committer bench <bench@example.com> ${when} +0000`, 'data 5', 'bench'];
  if (!first) parts.push('from refs/brv/heads/main^0');
  for (const [file, content] of first ? [['.brv/format', '1\n'] as [string, string], ...files] : files)
    parts.push(`M 100644 inline ${file}`, `data ${Buffer.byteLength(content)}`, content);
  await execa('git', ['fast-import', '--quiet'], { cwd: repo, env, input: parts.join('\n') + '\n' });
}

/** One brv run as a process: wall time, and CPU time (user + system, git children included) from /usr/bin/time. */
async function timed(args: string[], cwd: string): Promise<{ ms: number; cpuMs: number; data: any }> {
  const start = process.hrtime.bigint();
  const result = await execa('/usr/bin/time', ['-f', 'cpu %U %S', 'node', CLI, ...args, '--format', 'json'], { cwd, env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = result.stderr.match(/cpu ([\d.]+) ([\d.]+)\s*$/);
  const data = JSON.parse(result.stdout).data;
  if (data?.error) throw new Error(`${args.join(' ')}: ${data.error.message}`);
  return { ms, cpuMs: cpu ? Math.round((Number(cpu[1]) + Number(cpu[2])) * 1000) : NaN, data };
}

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-publish-'));
const results: Array<Record<string, unknown>> = [];
try {
  for (const size of sizes) {
    const samples: Record<string, number[]> = {
      branchFirst: [],
      branchUnchanged: [],
      branchIncremental: [],
      dirFirst: [],
      dirUnchanged: [],
      dirIncremental: [],
    };
    const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(samples).map((k) => [k, []]));
    let rendered: Record<string, number> = {};
    for (let run = 0; run < runs; run++) {
      const repo = path.join(work, `repo-${size}-${run}`);
      await execa('git', ['init', '-q', '-b', 'main', repo], { env });
      await commit(
        repo,
        Array.from({ length: size }, (_, i) => topicHtml(i, size)),
        true,
        1700000000,
      );
      await execa('node', [CLI, 'status', '--format', 'json'], { cwd: repo, env });
      const dir = path.join(work, `site-${size}-${run}`);
      const branchFirst = await timed(['publish', '--to-branch', 'pages'], repo);
      const dirFirst = await timed(['publish', '--to-dir', dir], repo);
      const branchUnchanged = await timed(['publish', '--to-branch', 'pages'], repo);
      const dirUnchanged = await timed(['publish', '--to-dir', dir], repo);
      await commit(
        repo,
        Array.from({ length: changed }, (_, k) => topicHtml(Math.floor((k * size) / changed), size, 1)),
        false,
        1700000100,
      );
      const branchIncremental = await timed(['publish', '--to-branch', 'pages'], repo);
      const dirIncremental = await timed(['publish', '--to-dir', dir], repo);
      const all = { branchFirst, branchUnchanged, branchIncremental, dirFirst, dirUnchanged, dirIncremental };
      for (const [name, { ms, cpuMs }] of Object.entries(all)) {
        samples[name]!.push(ms);
        cpu[name]!.push(cpuMs);
      }
      rendered = Object.fromEntries(Object.entries(all).map(([name, { data }]) => [name, data.rendered]));
      await rm(repo, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
    const wall = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, percentiles(v)]));
    const cpuMs = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, percentiles(v)]));
    const row = { topics: size, changed, runs, rendered, ...wall, cpuMs };
    for (const name of Object.keys(samples))
      console.log(
        `${String(size).padStart(6)} topics  ${name.padEnd(18)} wall p50 ${wall[name]!.p50} ms  cpu p50 ${cpuMs[name]!.p50} ms  rendered ${rendered[name]}`,
      );
    results.push(row);
  }
  const nodeFloor: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    await execa('node', ['-e', '0'], { env });
    nodeFloor.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(`machine floor: node -e 0 p50 ${percentiles(nodeFloor).p50} ms`);
  await writeReport('publish', { nodeFloor: percentiles(nodeFloor), results });
} finally {
  await rm(work, { recursive: true, force: true });
}
