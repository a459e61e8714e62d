/**
 * bench/partial-clone: the first query in the checkouts CI jobs and cloud agents start from (issue 32,
 * item 4). One remote with `--topics` topics (default 1,000) and a code commit, served through file://
 * by an upload-pack wrapper that counts the requests it answers. Each run, in alternating order:
 *
 * - full:    `git clone`, `brv vc fetch`, first `brv query`;
 * - partial: `git clone --filter=blob:none`, `brv vc fetch` (whole: `--no-filter`), first query;
 * - arrived: `git clone --filter=blob:none`, a plain `git fetch` of the knowledge refs (no blobs: the
 *   filter applies), first query (the read-time import completes the blobs in one batch);
 * - lazy:    the same fetch, then `git cat-file --batch` over every knowledge blob: what git's lazy
 *   fetch costs a reader that asks blob by blob (one request each), the behaviour brv had before.
 *
 * Usage: npm run build && node --import tsx bench/partial-clone.ts [--topics 1000] [--runs 5]
 */
import { execa } from 'execa';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';
import { syntheticQuestions, writeSyntheticTopics } from './lib/synthetic.js';

const topics = Number(argValue('topics', '1000'));
const runs = Number(argValue('runs', '5'));
const env = BENCH_ENV;
const KNOWLEDGE = '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*';

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-partial-'));
try {
  const seed = path.join(work, 'seed');
  const bare = path.join(work, 'remote.git');
  await mkdir(seed);
  await execa('git', ['init', '-q', '-b', 'main', seed], { env });
  await writeFile(path.join(seed, 'app.txt'), 'code\n');
  await execa('git', ['add', '.'], { cwd: seed, env });
  await execa('git', ['commit', '-q', '-m', 'code'], { cwd: seed, env });
  await writeSyntheticTopics(path.join(work, 'topics'), topics);
  await execa('node', [CLI, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: seed, env });
  await execa('git', ['init', '-q', '--bare', bare], { env });
  await execa('git', ['config', 'uploadpack.allowFilter', 'true'], { cwd: bare, env });
  await execa('git', ['push', '-q', bare, 'main', 'refs/brv/heads/main:refs/brv/heads/main'], { cwd: seed, env });
  const log = path.join(work, 'requests.log');
  const uploadPack = path.join(work, 'upload-pack');
  await writeFile(uploadPack, `#!/bin/sh\necho request >> '${log}'\nexec git upload-pack "$@"\n`);
  await chmod(uploadPack, 0o755);
  const requests = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  const question = syntheticQuestions(topics, 1)[0]!;

  const timed = async (cwd: string, command: string, args: string[], input?: string) => {
    const started = performance.now();
    await execa(command, args, { cwd, env, input });
    return performance.now() - started;
  };
  const clone = async (name: string, ...flags: string[]) => {
    const dir = path.join(work, name);
    await rm(dir, { recursive: true, force: true });
    await execa('git', ['clone', '-q', ...flags, `--upload-pack=${uploadPack}`, `file://${bare}`, dir], { env });
    await execa('git', ['config', 'remote.origin.uploadpack', uploadPack], { cwd: dir, env });
    return dir;
  };
  type Sample = { fetch: number; query: number; requests: number };
  const shapes: Record<string, () => Promise<Sample>> = {
    full: async () => {
      const dir = await clone('full');
      const before = await requests();
      const fetch = await timed(dir, 'node', [CLI, 'vc', 'fetch', '--format', 'json']);
      const query = await timed(dir, 'node', [CLI, 'query', question, '--format', 'json']);
      return { fetch, query, requests: (await requests()) - before };
    },
    partial: async () => {
      const dir = await clone('partial', '--filter=blob:none');
      const before = await requests();
      const fetch = await timed(dir, 'node', [CLI, 'vc', 'fetch', '--format', 'json']);
      const query = await timed(dir, 'node', [CLI, 'query', question, '--format', 'json']);
      return { fetch, query, requests: (await requests()) - before };
    },
    arrived: async () => {
      const dir = await clone('arrived', '--filter=blob:none');
      const before = await requests();
      const fetch = await timed(dir, 'git', ['fetch', '-q', 'origin', KNOWLEDGE]);
      const query = await timed(dir, 'node', [CLI, 'query', question, '--format', 'json']);
      return { fetch, query, requests: (await requests()) - before };
    },
    lazy: async () => {
      const dir = await clone('lazy', '--filter=blob:none');
      const before = await requests();
      const fetch = await timed(dir, 'git', ['fetch', '-q', 'origin', KNOWLEDGE]);
      const listed = await execa('git', ['ls-tree', '-r', '--object-only', 'refs/brv/remotes/origin/heads/main'], { cwd: dir, env });
      const query = await timed(dir, 'git', ['cat-file', '--batch'], `${listed.stdout}\n`);
      return { fetch, query, requests: (await requests()) - before };
    },
  };
  const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(shapes).map((k) => [k, []]));
  const names = Object.keys(shapes);
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name]!.push(await shapes[name]!());
  }
  const summary: Record<string, object> = {};
  for (const name of names) {
    const fetch = percentiles(samples[name]!.map((s) => s.fetch));
    const query = percentiles(samples[name]!.map((s) => s.query));
    const reqs = percentiles(samples[name]!.map((s) => s.requests));
    summary[name] = { fetch, query, requests: reqs };
    console.log(
      `${name.padEnd(8)} fetch p50 ${fetch.p50.toFixed(0)} ms; first query p50 ${query.p50.toFixed(0)} ms (min ${query.min.toFixed(0)}); ` +
        `requests to the remote ${reqs.min}–${reqs.max}`,
    );
  }
  const full = (summary.full as { query: { p50: number } }).query.p50;
  for (const name of ['partial', 'arrived', 'lazy'])
    console.log(`${name}/full first query p50: ${((summary[name] as { query: { p50: number } }).query.p50 / full).toFixed(2)}`);
  await writeReport('partial-clone', { topics, runs, question, summary });
} finally {
  await rm(work, { recursive: true, force: true });
}
