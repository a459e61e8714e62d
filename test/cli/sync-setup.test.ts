import test from 'ava';
import { execa } from 'execa';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, brvJson, CLI, ENV, git, refTip, tempDir } from '../helpers/repo.js';
import { put, rule, succeeded, twoClones } from '../helpers/knowledge.js';
import { openBrv } from '../helpers/service.js';
import type { SyncProgress } from '../../src/service/sharing.js';

// Sharing without reading the manual: after `brv vc remote add`, `brv hooks install`, or a first
// brv fetch in a plain `git clone`, a plain `git fetch`/`git pull` brings knowledge; read-only
// commands say what to run.

const TRACKING = 'refs/brv/remotes/origin/heads/main';

/** A bare remote holding code and knowledge (one topic), pushed from clone a. */
async function remoteWithKnowledge() {
  const env = await twoClones();
  succeeded(await brvJson(env.a, ['init']));
  await put(env.a, 'security/auth', rule('Use RS256.'));
  succeeded(await brvJson(env.a, ['vc', 'push', '-u', 'origin']));
  return env;
}

/** `brv` on PATH for git hooks. */
async function brvBin(): Promise<Record<string, string>> {
  const dir = await tempDir('brv-bin-');
  await writeFile(path.join(dir, 'brv'), `#!/bin/sh\nexec node "${CLI}" "$@"\n`);
  await chmod(path.join(dir, 'brv'), 0o755);
  return { ...ENV, PATH: `${dir}${path.delimiter}${ENV.PATH}` };
}

test('brv vc remote add sets up the fetch refspecs: a plain git fetch then brings knowledge', async (t) => {
  const { root, a, bare } = await remoteWithKnowledge();
  const c = path.join(root, 'c');
  await git(root, 'init', '-q', '-b', 'main', c);
  const added = succeeded(await brvJson(c, ['vc', 'remote', 'add', 'origin', bare]));
  t.deepEqual(added.tracked, ['+refs/brv/heads/*:refs/brv/remotes/origin/heads/*', '+refs/brv/review/*:refs/brv/remotes/origin/review/*']);
  await git(c, 'fetch', '-q', 'origin');
  t.is(await refTip(c, TRACKING), await refTip(a));
  // The text says so; adding another remote tells the same.
  const text = await brv(c, ['vc', 'remote', 'add', 'other', bare]);
  t.regex(text.stdout, /A plain git fetch or git pull from other now brings knowledge too/);
  // git push still pushes code only.
  t.deepEqual(await git(c, 'config', '--get-all', 'remote.origin.push').catch(() => ''), '');
});

test('brv hooks install in a plain git clone: the next git pull brings knowledge into the brv branch', async (t) => {
  const { root, a, bare } = await remoteWithKnowledge();
  const env = await brvBin();
  const c = path.join(root, 'c');
  await git(root, 'clone', '-q', bare, c);
  const report = succeeded(await brvJson(c, ['hooks', 'install'], { env }));
  t.deepEqual(report.tracking?.remote, 'origin');
  t.is(report.tracking?.added.length, 2);
  t.true(report.notes.some((n: string) => /plain git fetch or git pull from origin now brings knowledge/.test(n)));
  // A teammate adds code and knowledge; a plain git pull here brings both.
  await put(a, 'api/errors', rule('Return problem+json.'));
  succeeded(await brvJson(a, ['vc', 'push']));
  await writeFile(path.join(a, 'more.txt'), 'x\n');
  await git(a, 'add', '.');
  await git(a, 'commit', '-q', '-m', 'more code');
  await git(a, 'push', '-q', 'origin', 'main');
  const pull = await execa('git', ['pull', '-q', '--ff-only'], { cwd: c, env, extendEnv: false });
  t.is(pull.exitCode, 0);
  t.is(await refTip(c), await refTip(a), 'post-merge integrated the fetched knowledge');
  // Installing again changes nothing and says nothing about tracking.
  const again = succeeded(await brvJson(c, ['hooks', 'install'], { env }));
  t.deepEqual(again.tracking?.added, []);
});

test('brv hooks install without a usable remote says exactly what to run', async (t) => {
  const dir = await tempDir();
  await git(dir, 'init', '-q', '-b', 'main');
  const none = succeeded(await brvJson(dir, ['hooks', 'install']));
  t.true(none.notes.some((n: string) => n.includes('brv vc remote add origin <url>')));
  await git(dir, 'remote', 'add', 'one', '/nowhere/one');
  await git(dir, 'remote', 'add', 'two', '/nowhere/two');
  const several = succeeded(await brvJson(dir, ['hooks', 'install']));
  t.true(several.notes.some((n: string) => n.includes('brv init --track <remote>')));
  // Only pre-commit: nothing about fetching.
  const preCommit = succeeded(await brvJson(dir, ['hooks', 'install', 'pre-commit']));
  t.false(preCommit.notes.some((n: string) => n.includes('--track')));
});

test('a plain git clone: read-only commands hint and write nothing; brv vc fetch brings knowledge and sets up git pull', async (t) => {
  const { root, a, bare } = await remoteWithKnowledge();
  const c = path.join(root, 'c');
  await git(root, 'clone', '-q', bare, c);
  const configBefore = await git(c, 'config', '--list', '--local');
  const status = await brv(c, ['vc', 'status']);
  t.is(status.exitCode, 0);
  t.regex(
    status.stdout,
    /No knowledge here yet, and nothing fetched from origin, which may have some: brv init fetches it and starts from it\./,
  );
  t.regex(status.stdout, /A plain git pull does not bring knowledge from origin/);
  t.notRegex(status.stdout, /commit\(s\) to push/);
  const overview = await brv(c, ['status']);
  t.regex(overview.stdout, /Tip: +none yet — origin may have knowledge: "brv init" fetches it and starts from it/);
  t.is(succeeded(await brvJson(c, ['status'])).fetchFrom, 'origin');
  const json = succeeded(await brvJson(c, ['vc', 'status']));
  t.like(json, { remote: 'origin', tracking: undefined, ahead: 0, behind: 0, plainFetch: false });
  const doctor = (await brvJson(c, ['doctor'])).json?.data;
  t.is(
    doctor.checks.find((check: { name: string }) => check.name === 'context tree').fix,
    "brv init (fetches origin's knowledge and starts from it; it creates a new branch only if origin has none)",
  );
  t.is(await git(c, 'config', '--list', '--local'), configBefore, 'read-only commands change no config');

  const fetched = succeeded(await brvJson(c, ['vc', 'fetch']));
  t.deepEqual(fetched.createdBranches, ['main']);
  t.is(fetched.tracked.length, 2);
  t.is(await refTip(c), await refTip(a));
  t.is(succeeded(await brvJson(c, ['vc', 'status'])).plainFetch, true);
  t.is(succeeded(await brvJson(c, ['status'])).fetchFrom, undefined);
  // From now on a plain git fetch brings new knowledge.
  await put(a, 'api/errors', rule('Return problem+json.'));
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(c, 'fetch', '-q');
  t.is(await refTip(c, TRACKING), await refTip(a));
  // A second fetch reports no tracking change.
  t.is(succeeded(await brvJson(c, ['vc', 'fetch'])).tracked, undefined);
});

test('brv vc pull and brv sync set up the remote for a plain git pull too, and say so', async (t) => {
  const { root, a, bare } = await remoteWithKnowledge();
  const c = path.join(root, 'c');
  await git(root, 'clone', '-q', bare, c);
  const pull = await brv(c, ['vc', 'pull']);
  t.is(pull.exitCode, 0, pull.stderr);
  t.regex(pull.stdout, /A plain git fetch or git pull from origin now brings knowledge too/);
  t.is(await refTip(c), await refTip(a));
  const d = path.join(root, 'd');
  await git(root, 'clone', '-q', bare, d);
  const sync = succeeded(await brvJson(d, ['sync']));
  t.is(sync.tracked.length, 2);
  t.is(await refTip(d), await refTip(a));
});

test('brv vc status counts against the remote branch; a branch never pushed is "not pushed yet", not its whole history', async (t) => {
  const { root, a, url } = await remoteWithKnowledge();
  t.like(succeeded(await brvJson(a, ['vc', 'status'])), { tracking: TRACKING, ahead: 0, behind: 0 });
  // A new branch from the pushed main, with one commit of its own: brv has never seen it on origin.
  succeeded(await brvJson(a, ['vc', 'checkout', '-b', 'feature']));
  await put(a, 'api/errors', rule('Return problem+json.'));
  const fresh = succeeded(await brvJson(a, ['vc', 'status']));
  t.like(fresh, { branch: 'feature', remote: 'origin', tracking: undefined, ahead: 0, behind: 0 });
  const text = await brv(a, ['vc', 'status']);
  t.regex(text.stdout, /Not pushed to origin yet \(brv has not seen feature there\): brv vc push -u origin\./);
  t.notRegex(text.stdout, /commit\(s\) to push/);
  // Pushed: counted against origin/feature from then on.
  succeeded(await brvJson(a, ['vc', 'push', '-u']));
  t.like(succeeded(await brvJson(a, ['vc', 'status'])), { tracking: 'refs/brv/remotes/origin/heads/feature', ahead: 0, behind: 0 });
  await put(a, 'api/retries', rule('Retry idempotent calls only.'));
  t.like(succeeded(await brvJson(a, ['vc', 'status'])), { ahead: 1, behind: 0 });
  // A teammate pushes to main while main here has a commit of its own: after a fetch, main is one
  // ahead and one behind (a fetch that main can fast-forward to is taken at the next read instead).
  succeeded(await brvJson(root, ['vc', 'clone', url, 'b']));
  const b = path.join(root, 'b');
  await put(b, 'db/migrations', rule('Never edit an applied migration.'));
  succeeded(await brvJson(b, ['vc', 'push']));
  succeeded(await brvJson(a, ['vc', 'checkout', 'main']));
  await put(a, 'db/pools', rule('Size the pool to the cores.'));
  succeeded(await brvJson(a, ['vc', 'fetch']));
  t.like(succeeded(await brvJson(a, ['vc', 'status'])), { branch: 'main', ahead: 1, behind: 1 });
  t.regex((await brv(a, ['vc', 'status'])).stdout, /1 commit\(s\) to push, 1 to pull \(origin\/main\); brv sync does both\./);
});

test('fetch, pull, push and sync report their steps to onProgress (for a front end to print on stderr)', async (t) => {
  const { root, url } = await remoteWithKnowledge();
  succeeded(await brvJson(root, ['vc', 'clone', url, 'b']));
  const b = await openBrv(path.join(root, 'b'));
  t.teardown(() => b.close());
  const steps: string[] = [];
  const onProgress = (p: SyncProgress) => {
    if (!p.transfer) steps.push(`${p.step} ${p.remote}/${p.branch} #${p.attempt}`);
  };
  await b.sharing.fetch({ onProgress });
  await b.sharing.pull({ onProgress }, { agent: 'test' });
  await b.sharing.push({ onProgress });
  await b.sharing.sync({ onProgress }, { agent: 'test' });
  t.deepEqual(steps, [
    'fetch origin/main #1',
    'fetch origin/main #1',
    'merge origin/main #1',
    'push origin/main #1',
    'fetch origin/main #1',
    'merge origin/main #1',
    'push origin/main #1',
  ]);
});

test('sync, fetch, pull and push name their steps on stderr on a terminal (BRV_PROGRESS=always stands in), never with --format json', async (t) => {
  const env = await remoteWithKnowledge();
  await put(env.a, 'ops/deploy', rule('Deploy on Tuesdays.'));
  const shown = { env: { BRV_PROGRESS: 'always' } };
  const sync = await brv(env.a, ['sync'], shown);
  t.is(sync.exitCode, 0, sync.stderr);
  t.regex(sync.stderr, /Fetching knowledge from origin…/);
  t.regex(sync.stderr, /Merging origin\/main into main…/);
  t.regex(sync.stderr, /Pushing main to origin…/);
  // git's own transfer progress, the last report of each phase (a terminal rewrites it in place).
  t.regex(sync.stderr, /^ {2}Writing objects 100% \(\d+\/\d+\)$/m, sync.stderr);
  const fetch = await brv(env.a, ['vc', 'fetch'], shown);
  t.regex(fetch.stderr, /Fetching knowledge from origin…/, fetch.stderr);
  const json = await brvJson(env.a, ['sync'], shown);
  t.is(json.exitCode, 0);
  t.notRegex(json.stderr, /Fetching|Merging|Pushing/);
  const plain = await brv(env.a, ['sync']);
  t.notRegex(plain.stderr, /Fetching|Pushing/, 'stderr is not a terminal: no step lines');
});
