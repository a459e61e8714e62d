import test from 'ava';
import { execa } from 'execa';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GitRepository } from '../../src/git/repository.js';
import type { RefChangeEvent } from '../../src/service/repository-pool.js';
import { testService } from '../helpers/service.js';
import { put, rule } from '../helpers/knowledge.js';
import { brvJson, cleanup, ENV, git, makeRepo, makeWorktree, refTip, ROOT, tempDir } from '../helpers/repo.js';

// Every snapshot of the refs is one listRefs (one `git for-each-ref`): counted to prove idleness is free.
let listRefsCalls = 0;
const listRefs = GitRepository.prototype.listRefs;
GitRepository.prototype.listRefs = function (this: GitRepository, prefix: string) {
  listRefsCalls++;
  return listRefs.call(this, prefix);
};

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Collects events; `next(n)` waits (at most 1 s after it is called) for n more and returns them. */
function recorder() {
  const events: RefChangeEvent[] = [];
  let seen = 0;
  return {
    events,
    listener: (event: RefChangeEvent) => void events.push(event),
    async next(count: number, withinMs = 1000): Promise<RefChangeEvent[]> {
      const deadline = Date.now() + withinMs;
      while (events.length < seen + count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const got = events.slice(seen);
      seen = events.length;
      return got;
    },
  };
}

const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function initialized() {
  const repo = await makeRepo();
  const init = await brvJson(repo, ['init']);
  if (!init.json?.success) throw new Error(init.stdout + init.stderr);
  return repo;
}

test.serial('moves by other processes are events within 1 s: curate, update-ref, fetch, delete, pack-refs', async (t) => {
  const repo = await initialized();
  const other = await initialized();
  t.teardown(() => cleanup(repo, other));
  await put(other, 'remote/topic', rule('From elsewhere.'));
  const pool = testService.pool(repo);
  t.teardown(() => pool.close());
  const seen = recorder();
  const subscription = await pool.watch(seen.listener);
  t.is(subscription.mode, 'watch');
  t.is(subscription.fallback, undefined);
  const repository = path.join(repo, '.git');
  t.is(subscription.repository, repository);

  // A CLI curate in another process.
  const before = await refTip(repo);
  const file = path.join(await tempDir('brv-topic-'), 'topic.html');
  t.teardown(() => cleanup(path.dirname(file)));
  await writeFile(file, `<bv-topic path="security/jwt" title="JWT">${rule('Use RS256.')}</bv-topic>`);
  const curate = await brvJson(repo, ['curate', '--html-file', file]);
  t.true(curate.json?.success, curate.stdout + curate.stderr);
  const after = await refTip(repo);
  t.not(after, before);
  t.deepEqual(await seen.next(1), [{ repository, ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', from: before, to: after }]);

  // git update-ref: a new branch (a new ref file in an existing directory).
  await git(repo, 'update-ref', 'refs/brv/heads/feature', before!);
  t.deepEqual(await seen.next(1), [
    { repository, ref: 'refs/brv/heads/feature', kind: 'branch', branch: 'feature', from: undefined, to: before },
  ]);

  // git fetch into refs/brv/remotes/… (directories that did not exist yet).
  const fetched = await refTip(other);
  await git(repo, 'fetch', '-q', other, '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  t.deepEqual(await seen.next(1), [
    {
      repository,
      ref: 'refs/brv/remotes/origin/heads/main',
      kind: 'remote',
      remote: 'origin',
      branch: 'main',
      from: undefined,
      to: fetched,
    },
  ]);

  // A move inside a directory that appeared after the watch began.
  await git(repo, 'update-ref', 'refs/brv/remotes/origin/heads/main', before!);
  t.deepEqual(await seen.next(1), [
    { repository, ref: 'refs/brv/remotes/origin/heads/main', kind: 'remote', remote: 'origin', branch: 'main', from: fetched, to: before },
  ]);

  // A deletion.
  await git(repo, 'update-ref', '-d', 'refs/brv/heads/feature');
  t.deepEqual(await seen.next(1), [
    { repository, ref: 'refs/brv/heads/feature', kind: 'branch', branch: 'feature', from: before, to: undefined },
  ]);

  // pack-refs moves every ref into packed-refs and deletes the loose files: no ref changed, no event.
  await git(repo, 'pack-refs', '--all');
  t.deepEqual(await seen.next(1, 1500), []);
  t.true((await git(repo, 'for-each-ref', 'refs/brv/')).includes('refs/brv/remotes/origin/heads/main'));

  // A packed ref deleted (git rewrites packed-refs).
  await git(repo, 'update-ref', '-d', 'refs/brv/remotes/origin/heads/main');
  t.deepEqual(await seen.next(1), [
    {
      repository,
      ref: 'refs/brv/remotes/origin/heads/main',
      kind: 'remote',
      remote: 'origin',
      branch: 'main',
      from: before,
      to: undefined,
    },
  ]);
  // A packed ref moved by a writer that only rewrites packed-refs (as clone or JGit do): lock, rename.
  const packed = path.join(repository, 'packed-refs');
  const text = await readFile(packed, 'utf8');
  t.true(text.includes(`${after} refs/brv/heads/main\n`));
  await writeFile(`${packed}.lock`, text.replace(`${after} refs/brv/heads/main\n`, `${fetched} refs/brv/heads/main\n`));
  await rename(`${packed}.lock`, packed);
  t.deepEqual(await seen.next(1), [{ repository, ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', from: after, to: fetched }]);
  await writeFile(`${packed}.lock`, text);
  await rename(`${packed}.lock`, packed);
  t.deepEqual(await seen.next(1), [{ repository, ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', from: fetched, to: after }]);
  // A packed ref moved (git writes a loose file over it).
  await git(repo, 'update-ref', 'refs/brv/heads/main', before!);
  t.deepEqual(await seen.next(1), [{ repository, ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', from: after, to: before }]);

  // Refs outside refs/brv/ and other files in the git dir are not events.
  await git(repo, 'update-ref', 'refs/heads/elsewhere', 'HEAD');
  await git(repo, 'commit', '-q', '--allow-empty', '-m', 'code');
  t.deepEqual(await seen.next(1, 1000), []);
});

test.serial('idle costs nothing: no event and no git process while nothing changes', async (t) => {
  const repo = await initialized();
  t.teardown(() => cleanup(repo));
  const pool = testService.pool(repo);
  t.teardown(() => pool.close());
  const seen = recorder();
  await pool.watch(seen.listener);
  await quiet(200); // let anything still settling from start-up pass
  const calls = listRefsCalls;
  await quiet(1500);
  t.deepEqual(seen.events, []);
  t.is(listRefsCalls, calls, 'no for-each-ref while idle');
  // …and a burst of writes costs one snapshot, not one per write.
  const tip = (await refTip(repo))!;
  await execa('git', ['update-ref', '--stdin'], {
    cwd: repo,
    env: ENV,
    extendEnv: false,
    input: ['a', 'b', 'c', 'd'].map((name) => `create refs/brv/heads/${name} ${tip}\n`).join(''),
  });
  const burst = await seen.next(4);
  t.deepEqual(
    burst.map((e) => e.ref),
    ['refs/brv/heads/a', 'refs/brv/heads/b', 'refs/brv/heads/c', 'refs/brv/heads/d'],
  );
  t.true(listRefsCalls - calls <= 2, `${listRefsCalls - calls} snapshots for one transaction`);
});

test.serial("this process's own writes are events too; listeners share one watch and unsubscribe", async (t) => {
  const repo = await initialized();
  t.teardown(() => cleanup(repo));
  const pool = testService.pool(repo);
  t.teardown(() => pool.close());
  const first = recorder();
  const second = recorder();
  const a = await pool.watch(first.listener);
  const b = await pool.watch(second.listener, { cwd: path.join(repo, 'src') });
  t.is(a.repository, b.repository);
  // A listener that throws hears of its own failure; the others are not disturbed.
  const failures: unknown[] = [];
  const c = await pool.watch(
    () => {
      throw new Error('listener bug');
    },
    { onError: (error) => failures.push(error) },
  );
  const brv = await pool.resolve(undefined);
  const before = await refTip(repo);
  const written = await brv.knowledge.curateHtml({ html: `<bv-topic path="a/b" title="A">${rule('x')}</bv-topic>`, meta: {} }, {});
  t.true(written.ok);
  const after = await refTip(repo);
  t.deepEqual(await first.next(1), [
    { repository: a.repository, ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', from: before, to: after },
  ]);
  t.is((await second.next(1)).length, 1);
  t.deepEqual(
    failures.map((error) => (error as Error).message),
    ['listener bug'],
  );
  c.unsubscribe();

  a.unsubscribe();
  await git(repo, 'update-ref', 'refs/brv/heads/x', after!);
  t.is((await second.next(1)).length, 1);
  t.deepEqual(await first.next(1, 300), []);
  b.unsubscribe();
  // No listener left: the repository is no longer watched at all.
  const calls = listRefsCalls;
  await git(repo, 'update-ref', 'refs/brv/heads/y', after!);
  await quiet(300);
  t.is(listRefsCalls, calls);
});

test.serial('close() stops every watch; watching never keeps a process alive', async (t) => {
  const repo = await initialized();
  t.teardown(() => cleanup(repo));
  const pool = testService.pool(repo);
  const seen = recorder();
  await pool.watch(seen.listener);
  await pool.close();
  const calls = listRefsCalls;
  await git(repo, 'update-ref', 'refs/brv/heads/after-close', (await refTip(repo))!);
  await quiet(300);
  t.deepEqual(seen.events, []);
  t.is(listRefsCalls, calls);
  await t.throwsAsync(pool.watch(seen.listener), { message: /shutting down/ });

  // A process that watches exits by itself, with or without close().
  for (const args of [[], ['--no-close']]) {
    const child = await execa('node', ['--import', 'tsx', path.join(FIXTURES, 'watch-then-exit.ts'), repo, ...args], {
      cwd: ROOT,
      env: ENV,
      extendEnv: false,
      timeout: 20_000,
      reject: false,
    });
    t.is(child.exitCode, 0, child.stderr);
    t.is(child.stdout.trim(), 'watch');
  }
});

test.serial('where files cannot be watched it polls, and says so', async (t) => {
  const repo = await initialized();
  t.teardown(() => cleanup(repo));
  const pool = testService.pool(repo, { watch: { poll: true, pollMs: 200 } });
  t.teardown(() => pool.close());
  const seen = recorder();
  const subscription = await pool.watch(seen.listener);
  t.is(subscription.mode, 'poll');
  t.regex(subscription.fallback ?? '', /poll/);
  const tip = (await refTip(repo))!;
  await git(repo, 'update-ref', 'refs/brv/review/r1', tip);
  t.deepEqual(await seen.next(1), [
    {
      repository: subscription.repository,
      ref: 'refs/brv/review/r1',
      kind: 'review',
      review: 'r1',
      action: 'opened',
      from: undefined,
      to: tip,
    },
  ]);
  // Typed by what the ref names: a review decided is 'closed'; a knowledge source's branch is a 'source'.
  await git(repo, 'update-ref', '-d', 'refs/brv/review/r1');
  t.like((await seen.next(1))[0], { kind: 'review', review: 'r1', action: 'closed', from: tip, to: undefined });
  await git(repo, 'update-ref', 'refs/brv/sources/docs/main', tip);
  t.like((await seen.next(1))[0], { kind: 'source', source: 'docs', branch: 'main', to: tip });
});

test.serial('a linked worktree watches the refs it shares with the main checkout', async (t) => {
  const repo = await initialized();
  const worktree = await makeWorktree(repo);
  t.teardown(() => cleanup(repo, path.dirname(worktree)));
  const pool = testService.pool(worktree);
  t.teardown(() => pool.close());
  const seen = recorder();
  const subscription = await pool.watch(seen.listener);
  t.is(subscription.repository, path.join(repo, '.git'));
  const before = await refTip(repo);
  await put(repo, 'shared/topic', rule('Seen from the worktree.'));
  t.deepEqual(await seen.next(1), [
    {
      repository: subscription.repository,
      ref: 'refs/brv/heads/main',
      kind: 'branch',
      branch: 'main',
      from: before,
      to: await refTip(repo),
    },
  ]);
});

test.serial('a write while the watch starts is never diffed against an empty snapshot', async (t) => {
  const repo = await initialized();
  t.teardown(() => cleanup(repo));
  const pool = testService.pool(repo);
  t.teardown(() => pool.close());
  await pool.resolve(undefined);
  const tip = (await refTip(repo))!;
  // The first snapshot is slow, and a ref is written (file events fire) before it is read.
  const counted = GitRepository.prototype.listRefs;
  let first = true;
  GitRepository.prototype.listRefs = async function (this: GitRepository, prefix: string) {
    if (first) {
      first = false;
      await git(repo, 'update-ref', 'refs/brv/heads/during', tip);
      await quiet(200);
    }
    return counted.call(this, prefix);
  };
  t.teardown(() => void (GitRepository.prototype.listRefs = counted));
  const seen = recorder();
  await pool.watch(seen.listener);
  await quiet(500);
  t.deepEqual(seen.events, []);
});
