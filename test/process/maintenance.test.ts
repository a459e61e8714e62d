import test from 'ava';
import { execa } from 'execa';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Brv } from '../../src/service/brv.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { brvJson, CLI, ENV, git, makeRepo, ROOT, tempDir } from '../helpers/repo.js';
import { openBrv } from '../helpers/service.js';
import { alive, waitFor } from '../helpers/wait.js';

// A query never compacts the search index on its own path: past the threshold it answers from the
// stack as it is and reports `compaction: 'due'`; the CLI then starts `brv maintenance` in the
// background (the test environment switches that off with BRV_NO_AUTO_MAINTENANCE=1, these tests
// switch it on again), and the MCP server compacts between calls.

/** Topics imported as the base segment: with 10, compaction is due past 1 delta topic (10%), and inline past 4 (4×). */
const BASE = 10;
const WORDS = ['apples', 'pears', 'plums', 'cherries', 'grapes'];
const AUTO = { BRV_NO_AUTO_MAINTENANCE: '' };
const CHILD = path.join(ROOT, 'test/helpers/maintenance-child.cjs');
const QUESTION = 'apples pears plums';

function topic(i: number, prefix = 'orchard'): { path: string; html: string } {
  // Word counts vary by topic, so the ranking has distinct scores to compare.
  const body = WORDS.map((w, k) => Array.from({ length: ((i + k) % 4) + 1 }, () => w).join(' ')).join(', ');
  const topicPath = `${prefix}/${['north', 'south', 'east', 'west'][i % 4]}/t${i}`;
  return {
    path: topicPath,
    html: `<bv-topic path="${topicPath}" title="Fruit ${i}"><bv-rule id="r1" severity="must">Grow ${body} in row ${i}.</bv-rule></bv-topic>\n`,
  };
}

/** A repository with BASE topics imported and its index built (one segment). */
async function indexedRepo(): Promise<{ dir: string; brv: Brv }> {
  const dir = await makeRepo();
  const topics = await tempDir('brv-topics-');
  for (let i = 0; i < BASE; i++) {
    const { path: p, html } = topic(i);
    await mkdir(path.dirname(path.join(topics, `${p}.html`)), { recursive: true });
    await writeFile(path.join(topics, `${p}.html`), html);
  }
  const imported = await brvJson(dir, ['import', topics]);
  if (!imported.json?.success) throw new Error(`import failed: ${imported.stdout} ${imported.stderr}`);
  const first = await query(dir);
  if (first.index.segments !== 1) throw new Error('the first query should build one segment');
  const brv = await openBrv(dir);
  return { dir, brv };
}

/** Curates topics in process (fast); the queries that follow run as real CLI processes. */
async function curate(brv: Brv, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const result = await brv.knowledge.curateHtml({ html: topic(100 + i, 'fresh').html, overwrite: false }, { agent: 'test' });
    if (!result.ok) throw new Error(`curate failed: ${JSON.stringify(result)}`);
  }
}

interface Answer {
  index: { tree: string; build: string; segments: number; compaction: string };
  docs: Array<[string, number]>;
  /** The pid of the background maintenance this query started, if it started one. */
  started: number | undefined;
  busy: boolean;
}

async function query(dir: string, env: Record<string, string> = {}): Promise<Answer> {
  const run = await brvJson(dir, ['query', QUESTION, '--limit', '50'], { env: { BRV_TRACE: '1', ...env } });
  if (!run.json?.success) throw new Error(`query failed: ${run.stdout} ${run.stderr}`);
  const data = run.json.data;
  const started = /background maintenance started \(pid (\d+)\)/.exec(run.stderr);
  return {
    index: data.metadata.index,
    docs: data.matchedDocs.map((d: { path: string; score: number }) => [d.path, d.score]),
    started: started ? Number(started[1]) : undefined,
    busy: run.stderr.includes('background maintenance busy'),
  };
}

function indexDir(dir: string): string {
  const root = path.join(dir, '.git', 'brv', 'index');
  return path.join(
    root,
    readdirSync(root).find((n) => n.startsWith('v'))!,
  );
}

/** How many segments the manifest of `tree` on disk names. */
function segmentsOnDisk(dir: string, tree: string): number {
  const text = readFileSync(path.join(indexDir(dir), 'trees', `${tree}.json`), 'utf8');
  return JSON.parse(text.slice(text.indexOf('\n') + 1)).segments.length;
}

const lockFile = (dir: string) => path.join(indexDir(dir), 'maintenance.lock');

async function finished(pid: number): Promise<boolean> {
  return waitFor(() => !alive(pid), 20_000);
}

test('past the compaction threshold a query answers from the uncompacted stack; only far past it (4×) does one compact inline', async (t) => {
  const { dir, brv } = await indexedRepo();
  t.teardown(() => brv.close());
  const seen: Array<[string, number]> = [];
  for (let i = 0; i < 5; i++) {
    await curate(brv, i, 1);
    const answer = await query(dir); // background maintenance off (the test environment)
    t.is(answer.index.build, 'incremental');
    seen.push([answer.index.compaction, answer.index.segments]);
  }
  t.deepEqual(seen, [
    ['none', 2],
    ['due', 3],
    ['due', 4],
    ['due', 5],
    ['inline', 1],
  ]);
});

test('a query that leaves the index due starts brv maintenance in the background, which compacts it; the ranking is unchanged', async (t) => {
  const { dir, brv } = await indexedRepo();
  t.teardown(() => brv.close());
  await curate(brv, 0, 3);
  const due = await query(dir, AUTO);
  t.is(due.index.compaction, 'due');
  t.is(due.index.segments, 2); // the three curates are one change since the last indexed tree
  t.truthy(due.started, 'a background maintenance was started');
  t.true(await finished(due.started!));
  t.is(segmentsOnDisk(dir, due.index.tree), 1);
  t.false(existsSync(lockFile(dir)), 'the lock was released');
  const after = await query(dir, AUTO);
  t.is(after.index.tree, due.index.tree);
  t.is(after.index.build, 'cached');
  t.is(after.index.compaction, 'none');
  t.is(after.index.segments, 1);
  t.is(after.started, undefined);
  t.is(after.docs.length, BASE + 3);
  t.deepEqual(after.docs, due.docs, 'same topics, same order, same scores');
});

test('queries at once start one background maintenance', async (t) => {
  const { dir, brv } = await indexedRepo();
  t.teardown(() => brv.close());
  await curate(brv, 0, 3);
  // The maintenance process holds its lock until every query has answered, so each finds it running.
  const release = path.join(dir, '.git', 'release-maintenance');
  const env = { ...AUTO, NODE_OPTIONS: `--require ${CHILD}`, BRV_TEST_MAINTENANCE_HOLD_UNTIL: release };
  const answers = await Promise.all([query(dir, env), query(dir, env), query(dir, env)]);
  await writeFile(release, '');
  for (const answer of answers) t.is(answer.index.compaction, 'due');
  const started = answers.flatMap((a) => (a.started === undefined ? [] : [a.started]));
  t.is(started.length, 1, 'one maintenance started');
  t.is(answers.filter((a) => a.busy).length, 2, 'the other queries found it running');
  t.true(await finished(started[0]!));
  t.is(segmentsOnDisk(dir, answers[0]!.index.tree), 1);
});

for (const [point, at] of [
  ['writing the merged segment (its docstore in place, the segment not)', '.seg.md'],
  ['publishing the compacted manifest', `${path.sep}trees${path.sep}`],
] as const) {
  test(`kill -9 of brv maintenance while ${point} leaves a working index; the next query's maintenance takes over its lock`, async (t) => {
    const { dir, brv } = await indexedRepo();
    t.teardown(() => brv.close());
    await curate(brv, 0, 3);
    const killed = await query(dir, { ...AUTO, NODE_OPTIONS: `--require ${CHILD}`, BRV_TEST_MAINTENANCE_KILL_AT: at });
    t.is(killed.index.compaction, 'due');
    t.truthy(killed.started);
    t.true(await finished(killed.started!));
    t.is(segmentsOnDisk(dir, killed.index.tree), 2, 'the old manifest is still the published one');
    t.true(existsSync(lockFile(dir)), 'the killed process left its lock');
    const next = await query(dir, AUTO);
    t.is(next.index.build, 'cached');
    t.is(next.index.compaction, 'due');
    t.deepEqual(next.docs, killed.docs, 'the index answers as before');
    t.truthy(next.started, 'the stale lock (its process is gone) was taken over');
    t.true(await finished(next.started!));
    t.is(segmentsOnDisk(dir, next.index.tree), 1);
    const after = await query(dir, AUTO);
    t.is(after.index.segments, 1);
    t.deepEqual(after.docs, killed.docs);
  });
}

test('the MCP server compacts a due index after answering, between calls', async (t) => {
  const { dir, brv } = await indexedRepo();
  t.teardown(() => brv.close());
  await curate(brv, 0, 3);
  const tree = (await git(dir, 'rev-parse', 'refs/brv/heads/main^{tree}')).trim();
  const client = await connectMcp(t, dir, { ...ENV, ...AUTO });
  const before = textOf(await client.callTool({ name: 'brv-query', arguments: { query: QUESTION, limit: 50 } }));
  t.true(await waitFor(() => segmentsOnDisk(dir, tree) === 1, 20_000), 'compacted after the call');
  const after = textOf(await client.callTool({ name: 'brv-query', arguments: { query: QUESTION, limit: 50 } }));
  const untimed = (answer: string) => answer.replace(/ in \d+ms/g, '');
  t.is(untimed(after), untimed(before), 'same answer from the compacted index');
  t.true(await waitFor(() => !existsSync(lockFile(dir)), 10_000), 'the lock is released');
});

test('with BRV_NO_AUTO_MAINTENANCE=1 a query starts nothing; brv maintenance compacts on demand', async (t) => {
  const { dir, brv } = await indexedRepo();
  t.teardown(() => brv.close());
  await curate(brv, 0, 3);
  const due = await query(dir);
  t.is(due.index.compaction, 'due');
  t.is(due.started, undefined);
  t.false(existsSync(lockFile(dir)));
  const run = await brvJson(dir, ['maintenance']);
  t.true(run.json?.success);
  t.deepEqual(
    run.json?.data.indexes.map((i: { compacted: boolean; segmentsBefore: number; segmentsAfter: number }) => [
      i.compacted,
      i.segmentsBefore,
      i.segmentsAfter,
    ]),
    [[true, 2, 1]],
  );
  const again = await brvJson(dir, ['maintenance']);
  t.is(again.json?.data.indexes[0].compacted, false);
  t.deepEqual((await query(dir)).docs, due.docs);
});

// ---- maintenance where the index folder cannot be written ----

const AS_ROOT = process.getuid?.() === 0;

/** Every file under `dir` with its bytes (what "nothing changed" compares). */
function snapshotFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    files.set(path.relative(dir, file), readFileSync(file).toString('base64'));
  }
  return files;
}

/** Runs the built CLI as an unprivileged user (uid 65534) when the tests run as root; as the current user otherwise. */
async function unprivileged(
  dir: string,
): Promise<((args: string[]) => Promise<{ exitCode: number; json: any; stderr: string }>) | undefined> {
  const setpriv = AS_ROOT ? (await execa('sh', ['-c', 'command -v setpriv'], { reject: false })).stdout.trim() : '';
  if (AS_ROOT && !setpriv) return undefined;
  const home = await tempDir('brv-home-');
  const config = path.join(home, '.gitconfig');
  await writeFile(config, '[safe]\n\tdirectory = *\n');
  await execa('chmod', ['-R', 'a+rwX', dir, home]);
  const env = { ...ENV, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_CONFIG_GLOBAL: config, BRV_CODE_CACHE: '0' };
  const cli = AS_ROOT ? [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups', 'node', CLI] : ['node', CLI];
  return async (args) => {
    const run = await execa(cli[0]!, [...cli.slice(1), ...args, '--format', 'json'], {
      cwd: dir,
      env,
      extendEnv: false,
      reject: false,
      timeout: 20_000,
    });
    return { exitCode: run.exitCode ?? -1, json: JSON.parse(run.stdout), stderr: run.stderr };
  };
}

async function canMount(): Promise<boolean> {
  if (!AS_ROOT) return false;
  const probe = await tempDir('brv-mount-');
  const mounted = await execa('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { reject: false });
  if (mounted.exitCode !== 0) return false;
  await execa('umount', [probe]);
  return true;
}

test('brv maintenance on an index folder its user cannot write: local-state-unwritable naming the folder and the fix, nothing changed, queries answer', async (t) => {
  const { dir, brv } = await indexedRepo();
  t.teardown(() => brv.close());
  await curate(brv, 0, 3);
  const due = await query(dir);
  t.is(due.index.compaction, 'due');
  const as = await unprivileged(dir);
  if (!as) return t.pass('root without setpriv: permissions cannot be tried here');
  const index = indexDir(dir);
  await execa('chmod', ['-R', 'a-w', path.join(dir, '.git', 'brv')]);
  t.teardown(() => execa('chmod', ['-R', 'u+w', path.join(dir, '.git', 'brv')]));
  const before = snapshotFiles(index);

  const run = await as(['maintenance']);
  t.is(run.exitCode, 1, run.stderr);
  t.is(run.json.data.error?.kind, 'local-state-unwritable', JSON.stringify(run.json));
  t.regex(run.json.data.error.message, /permission denied \(EACCES\)/);
  t.true(run.json.data.error.message.includes(index), 'names the folder');
  t.regex(run.json.data.error.message, /write access|chown|chmod/, 'says what to do');
  t.deepEqual(snapshotFiles(index), before, 'nothing changed in the index folder');
  const answer = await as(['query', QUESTION, '--limit', '50']);
  t.true(answer.json.success, `queries still answer (from memory): ${JSON.stringify(answer.json)} ${answer.stderr}`);
  t.deepEqual(
    answer.json.data.matchedDocs.map((d: { path: string; score: number }) => [d.path, d.score]),
    due.docs,
  );
  // A folder of local state that does not exist yet, under a .git/brv that cannot be written: the real cause, not ENOENT.
  const session = await as(['curate', 'record a note']);
  t.is(session.json.data.error?.kind, 'local-state-unwritable', JSON.stringify(session.json));
  t.regex(session.json.data.error.message, /\.git\/brv\/sessions\/.*: permission denied \(EACCES\): .*\.git\/brv is not writable/);
  t.notRegex(session.json.data.error.message, /ENOENT/);
});

test('brv maintenance on a read-only file system and on a full disk (tmpfs): typed errors, nothing changed, queries answer, then it works', async (t) => {
  if (!(await canMount())) return t.pass('mounting a tmpfs needs root: read-only and full disks cannot be tried here');
  const { dir, brv } = await indexedRepo();
  t.teardown(() => brv.close());
  await curate(brv, 0, 3);
  const due = await query(dir);
  t.is(due.index.compaction, 'due');
  const root = path.join(dir, '.git', 'brv', 'index');
  const index = indexDir(dir);
  const saved = await tempDir('brv-index-copy-');
  await execa('cp', ['-a', `${root}/.`, saved]);
  // The index folder on a 1 MiB tmpfs of its own.
  await execa('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', root]);
  let mounted = true;
  const unmount = async () => {
    if (mounted) await execa('umount', [root]);
    mounted = false;
  };
  t.teardown(unmount);
  await execa('cp', ['-a', `${saved}/.`, root]);
  const before = snapshotFiles(index);

  // Read-only.
  await execa('mount', ['-o', 'remount,ro', root]);
  let run = await brvJson(dir, ['maintenance']);
  t.is(run.exitCode, 1);
  t.is(run.json?.data.error?.kind, 'local-state-unwritable', run.stdout);
  t.regex(run.json!.data.error.message, /read-only file system \(EROFS\)/);
  t.true(run.json!.data.error.message.includes(index));
  t.deepEqual((await query(dir)).docs, due.docs, 'queries answer');
  await execa('mount', ['-o', 'remount,rw', root]);
  t.deepEqual(snapshotFiles(index), before, 'nothing changed');

  // Full: not one byte left (the lock cannot be written), then one page left (the lock is, the compacted segment is not).
  const filler = path.join(root, 'filler');
  await execa('sh', ['-c', `cat /dev/zero > ${filler} 2>/dev/null; true`]);
  for (const free of [0, 4096]) {
    if (free > 0) await truncate(filler, statSync(filler).size - free);
    run = await brvJson(dir, ['maintenance']);
    t.is(run.exitCode, 1, `${free} bytes free: ${run.stdout}`);
    t.is(run.json?.data.error?.kind, 'local-state-unwritable', run.stdout);
    t.regex(run.json!.data.error.message, /no space left on the device \(ENOSPC\)/);
    t.regex(run.json!.data.error.message, /Free some space/);
    t.regex(run.json!.data.error.message, free === 0 ? /maintenance\.lock/ : /The compacted search index could not be written/);
    t.deepEqual(snapshotFiles(index), before, `${free} bytes free: nothing changed, no temporary file left`);
    t.false(existsSync(lockFile(dir)), 'the lock is released');
    const answer = await query(dir);
    t.deepEqual(answer.docs, due.docs, 'queries answer');
  }
  await unmount();

  const fixed = await brvJson(dir, ['maintenance']);
  t.true(fixed.json?.success, fixed.stdout);
  t.is(fixed.json?.data.indexes[0].compacted, true);
});
