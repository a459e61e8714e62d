/**
 * bench/cold-build: what a large import and a full index build cost, in wall time, CPU time (user +
 * system, git children included) and peak RSS, each one real `brv` process under /usr/bin/time:
 *   import   `brv import <dir> --format json` of synthetic topics into a fresh repository
 *   cold     one `brv query` after deleting .git/brv/index and .git/brv/cache (a clone: nothing cached)
 *   fill     `brv maintenance` after it: the per-blob cache of what cold extracted (a query leaves it to maintenance)
 *   warm     one `brv query` after deleting .git/brv/index only (the per-blob cache fill wrote)
 * Usage: npm run build && node --import tsx bench/cold-build.ts [--sizes 10000,100000 --runs 1 --cli dist/cli/main.js]
 * Prints a table and writes bench/results/cold-build.json.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticQuestions, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, writeReport } from './lib/report.js';

const sizes = argValue('sizes', '10000,100000').split(',').map(Number);
const runs = Number(argValue('runs', '1'));
const cli = path.resolve(argValue('cli', CLI));

interface Run {
  ms: number;
  cpuMs: number;
  maxRssMiB: number;
}

async function timed(args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  const start = process.hrtime.bigint();
  const result = await execa('/usr/bin/time', ['-f', '%M %U %S', 'node', cli, ...args], { cwd, env: { ...BENCH_ENV, ...extraEnv } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const [rss, user, system] = result.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
  return { ms: Math.round(ms), cpuMs: Math.round((user + system) * 1000), maxRssMiB: Math.round(rss / 1024) };
}

const results = [];
for (const size of sizes) {
  const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-cold-'));
  try {
    const topics = path.join(work, 'topics');
    await writeSyntheticTopics(topics, size);
    const [question] = syntheticQuestions(size, 1);
    for (let run = 0; run < runs; run++) {
      const repo = path.join(work, `repo-${run}`);
      await mkdir(repo);
      await execa('git', ['init', '-q', repo]);
      const imported = await timed(['import', topics, '--format', 'json'], repo);
      const brvDir = path.join(repo, '.git', 'brv');
      await rm(path.join(brvDir, 'index'), { recursive: true, force: true });
      await rm(path.join(brvDir, 'cache'), { recursive: true, force: true });
      // The background maintenance the query would start is timed on its own (fill).
      const cold = await timed(['query', question!, '--format', 'json'], repo, { BRV_NO_AUTO_MAINTENANCE: '1' });
      const fill = await timed(['maintenance'], repo);
      await rm(path.join(brvDir, 'index'), { recursive: true, force: true });
      const warm = await timed(['query', question!, '--format', 'json'], repo);
      const row = { size, run, import: imported, cold, fill, warm };
      console.log(
        `${size}\trun ${run}\t` +
          (['import', 'cold', 'fill', 'warm'] as const)
            .map((k) => `${k} ${row[k].ms} ms wall, ${row[k].cpuMs} ms cpu, ${row[k].maxRssMiB} MiB`)
            .join('\t'),
      );
      results.push(row);
      await rm(repo, { recursive: true, force: true });
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
await writeReport('cold-build', { cli: path.relative(process.cwd(), cli), results });
