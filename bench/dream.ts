/**
 * bench/dream: `brv dream` over synthetic context trees of 1,000 and 10,000 topics (bench/lib/synthetic.ts),
 * with 1% of the topics written twice (reworded), a tenth citing project files (some deleted from the
 * code since), committed with `git fast-import`. Times a dry run and a run that records its proposals,
 * each a whole process (start to exit), and the candidates found. No model. Dry runs at the default
 * --max 50 and at --max 1000 (where proposing 1,000 links validates every topic they touch).
 * Usage: npm run build && node --import tsx bench/dream.ts [--sizes 1000,10000 --runs 3]
 * Writes bench/results/dream.json.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticTopic } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const sizes = argValue('sizes', '1000,10000').split(',').map(Number);
const runs = Number(argValue('runs', '3'));
const env = { ...BENCH_ENV, BRV_NO_AUTO_MAINTENANCE: '1' };

function tree(size: number): Array<[string, string]> {
  const files: Array<[string, string]> = [['.brv/format', '1\n']];
  for (let i = 0; i < size; i++) {
    const topic = syntheticTopic(i);
    let html = topic.html;
    if (i % 10 === 0)
      html = html.replace('</bv-topic>', `  <bv-files><li><code>src/module_${i % 300}.ts</code></li></bv-files>\n</bv-topic>`);
    files.push([`${topic.path}.html`, html]);
    if (i % 100 === 0) {
      // The same topic written again elsewhere, a sentence changed: a merge candidate.
      const copy = html
        .replace(/path="([^"]+)"/, 'path="$1_again"')
        .replace(/<bv-reason>[^<]*<\/bv-reason>/, '<bv-reason>Recorded again later.</bv-reason>');
      files.push([`${topic.path}_again.html`, copy]);
    }
  }
  return files;
}

async function prepare(work: string, size: number): Promise<string> {
  const repo = path.join(work, `repo-${size}`);
  await mkdir(path.join(repo, 'src'), { recursive: true });
  await execa('git', ['init', '-q', '-b', 'main', repo], { env });
  for (let m = 0; m < 300; m++) await writeFile(path.join(repo, 'src', `module_${m}.ts`), `export const m = ${m};\n`);
  await execa('git', ['add', '-A'], { cwd: repo, env });
  await execa('git', ['commit', '-q', '-m', 'code'], { cwd: repo, env });
  const parts = ['commit refs/brv/heads/main', 'committer bench <bench@example.com> 1700000000 +0000', 'data 5', 'bench'];
  for (const [file, content] of tree(size)) parts.push(`M 100644 inline ${file}`, `data ${Buffer.byteLength(content)}`, content);
  await execa('git', ['fast-import', '--quiet'], { cwd: repo, env, input: parts.join('\n') + '\n' });
  // A third of the cited modules are deleted from the code afterwards.
  await execa('git', ['rm', '-q', ...Array.from({ length: 100 }, (_, m) => `src/module_${m * 3}.ts`)], { cwd: repo, env });
  await execa('git', ['commit', '-q', '-m', 'remove modules'], { cwd: repo, env });
  await execa('node', [CLI, 'status', '--format', 'json'], { cwd: repo, env });
  return repo;
}

async function timed(args: string[], cwd: string): Promise<{ ms: number; data: any }> {
  const start = process.hrtime.bigint();
  const result = await execa('node', [CLI, ...args, '--format', 'json'], { cwd, env });
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, data: JSON.parse(result.stdout).data };
}

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-dream-'));
const results: Record<string, unknown> = {};
try {
  for (const size of sizes) {
    const repo = await prepare(work, size);
    const dry: number[] = [];
    const inner: number[] = [];
    const dryDefault: number[] = [];
    let last: any;
    for (let i = 0; i < runs; i++) {
      dryDefault.push((await timed(['dream', '--dry-run'], repo)).ms);
      const run = await timed(['dream', '--dry-run', '--max', '1000'], repo);
      dry.push(run.ms);
      inner.push(run.data.durationMs);
      last = run.data;
    }
    const recorded = await timed(['dream', '--max', '1000'], repo);
    const byType: Record<string, number> = {};
    for (const c of last.candidates) byType[c.type] = (byType[c.type] ?? 0) + 1;
    results[String(size)] = {
      topics: last.topics,
      dryRunDefaultMaxProcessMs: percentiles(dryDefault),
      dryRunProcessMs: percentiles(dry),
      dryRunInsideMs: percentiles(inner),
      recordProcessMs: Math.round(recorded.ms),
      candidates: byType,
      proposals: recorded.data.proposals.length,
      review: recorded.data.review?.id,
    };
    console.log(`${size} topics:`, JSON.stringify(results[String(size)]));
  }
  console.log(await writeReport('dream', { sizes, runs, results }));
} finally {
  if (!process.env.BRV_BENCH_KEEP) await rm(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
