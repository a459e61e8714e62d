/**
 * bench/sync: sharing knowledge through a plain git remote. Usage:
 *   npm run bench:sync [-- --topics 10000 --changed 100 --runs 5]
 * 1. push a tree of N topics to an empty bare repository (vc push -u) and clone it (vc clone);
 * 2. one curate in clone A, then `brv sync` in A (push) and in B (fetch + fast-forward): objects
 *    that reached B, time of each side;
 * 3. two branches each changing `changed` topics (disjoint halves plus a few edited on both), then
 *    `brv vc merge`.
 * Prints a table and writes bench/results/sync.json.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticTopic, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const topics = Number(argValue('topics', '10000'));
const changed = Number(argValue('changed', '100'));
const runs = Number(argValue('runs', '5'));
const env = BENCH_ENV;

async function timed(args: string[], cwd: string): Promise<{ ms: number; data: any }> {
  const start = process.hrtime.bigint();
  const result = await execa('node', [CLI, ...args, '--format', 'json'], { cwd, env, reject: false });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const parsed = JSON.parse(result.stdout || '{}');
  if (!parsed.success) throw new Error(`brv ${args.join(' ')} failed: ${result.stdout} ${result.stderr}`);
  return { ms, data: parsed.data };
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execa('git', args, { cwd, env })).stdout;
}

/** Loose objects plus objects in packs: what a fetch added to a repository. */
async function objectCount(repo: string): Promise<number> {
  const out = await git(repo, 'count-objects', '-v');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
  return field('count') + field('in-pack');
}

async function curateOne(repo: string, index: number, dir: string): Promise<number> {
  const topic = syntheticTopic(topics + index);
  const file = path.join(dir, `topic-${index}.html`);
  await writeFile(file, topic.html);
  return (await timed(['curate', '--html-file', file, '--overwrite'], repo)).ms;
}

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-sync-'));
const bare = path.join(work, 'remote.git');
const a = path.join(work, 'a');
const b = path.join(work, 'b');
await git(work, 'init', '-q', '--bare', '-b', 'main', bare);
await mkdir(a);
await git(a, 'init', '-q', '-b', 'main');
await writeFile(path.join(a, 'README.md'), '# project\n');
await git(a, 'add', '.');
await git(a, 'commit', '-q', '-m', 'code');
await git(a, 'remote', 'add', 'origin', bare);
await git(a, 'push', '-q', 'origin', 'main');
const source = path.join(work, 'topics');
await writeSyntheticTopics(source, topics);
const imported = await timed(['import', source], a);
console.error(`imported ${topics} topics in ${Math.round(imported.ms)} ms`);

const push = await timed(['vc', 'push', '-u'], a);
const remoteObjects = await objectCount(bare);
const clone = await timed(['vc', 'clone', bare, 'b'], work);
const noopFetch = await timed(['vc', 'fetch'], b);

const tmp = path.join(work, 'tmp');
await mkdir(tmp);
const syncPush: number[] = [];
const syncPull: number[] = [];
const objectsArrived: number[] = [];
for (let i = 0; i < runs; i++) {
  await curateOne(a, i, tmp);
  syncPush.push((await timed(['sync'], a)).ms);
  const before = await objectCount(b);
  const pulled = await timed(['sync'], b);
  if (pulled.data.merge?.status !== 'fast-forward') throw new Error(`expected a fast-forward, got ${JSON.stringify(pulled.data.merge)}`);
  syncPull.push(pulled.ms);
  objectsArrived.push((await objectCount(b)) - before);
}

// Two branches, each changing `changed` topics: disjoint halves and a tenth edited on both sides.
const files = (await git(a, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main'))
  .split('\n')
  .filter((f) => f.endsWith('.html'))
  .slice(0, changed * 2);
await timed(['vc', 'branch', 'feature'], a);
const both = Math.max(1, Math.floor(changed / 10));
async function changeTopics(branch: string, list: string[], marker: string) {
  await timed(['vc', 'checkout', branch], a);
  const dir = path.join(work, `edit-${branch}`);
  await mkdir(dir, { recursive: true });
  for (const file of list) {
    const html = await git(a, 'show', `refs/brv/heads/${branch}:${file}`);
    const edited = html.replace('</bv-topic>', `<bv-fact subject="${marker}">Changed on ${marker}.</bv-fact></bv-topic>`);
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), edited);
  }
  // One import commit per branch: the benchmark measures the merge, not 100 curates.
  await timed(['import', dir, '--overwrite'], a);
}
await changeTopics('main', files.slice(0, changed), 'main');
await changeTopics('feature', [...files.slice(changed, 2 * changed - both), ...files.slice(0, both)], 'feature');
await timed(['vc', 'checkout', 'main'], a);
const merge = await timed(['vc', 'merge', 'feature'], a);

const result = {
  topics,
  importMs: Math.round(imported.ms),
  firstPushMs: Math.round(push.ms),
  remoteObjects,
  cloneMs: Math.round(clone.ms),
  noopFetchMs: Math.round(noopFetch.ms),
  syncPushAfterOneCurate: percentiles(syncPush),
  syncPullAfterOneCurate: percentiles(syncPull),
  objectsPerIncrementalSync: objectsArrived,
  merge: {
    changedPerBranch: changed,
    editedOnBoth: both,
    ms: Math.round(merge.ms),
    status: merge.data.status,
    sectionMerged: merge.data.merged.length,
    conflicts: merge.data.conflicts.length,
  },
};
console.log(JSON.stringify(result, null, 2));
await writeReport('sync', result);
await rm(work, { recursive: true, force: true });
