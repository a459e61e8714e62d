import test from 'ava';
import { execa } from 'execa';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, brv, brvJson, curateTopic, git, makeRepo, makeWorktree, refTip, reply, showTopic, tempDir } from '../helpers/repo.js';

test('init is idempotent, works from a sub-directory and keeps the working tree clean', async (t) => {
  const repo = await makeRepo();
  const sub = path.join(repo, 'src', 'deep');
  const first = await brvJson(sub, ['init']);
  t.is(first.exitCode, 0);
  t.like(first.json, { command: 'init', success: true, data: { created: true, branch: 'main', ref: 'refs/brv/heads/main' } });
  t.regex(first.json!.timestamp, /^\d{4}-\d\d-\d\dT/);
  const second = await brvJson(repo, ['init']);
  t.like(second.json!.data, { created: false, commit: first.json!.data.commit });
  t.is(await git(repo, 'show', 'refs/brv/heads/main:.brv/format'), '1');
  t.is(await git(repo, 'status', '--porcelain'), '');
  t.regex((await brv(repo, ['init'])).stdout, /already initialized/);
});

test('outside a git repository: typed error, exit 1, JSON wrapper kept', async (t) => {
  const dir = await tempDir();
  const run = await brvJson(dir, ['status']);
  t.is(run.exitCode, 1);
  t.like(run.json, { command: 'status', success: false, data: { error: { kind: 'not-a-git-repository' } } });
  const text = await brv(dir, ['init']);
  t.is(text.exitCode, 1);
  t.regex(text.stderr, /not inside a git repository.*git init/);
});

test('usage errors exit 2; --help explains every command', async (t) => {
  const repo = await makeRepo();
  const unknown = await brv(repo, ['frobnicate']);
  t.is(unknown.exitCode, 2);
  const json = await brvJson(repo, ['status', '--bogus']);
  t.is(json.exitCode, 2);
  t.like(json.json, { success: false, data: { error: { kind: 'usage' } } });
  const help = await brv(repo, ['--help']);
  t.is(help.exitCode, 0);
  for (const command of ['init', 'status', 'curate', 'rm']) t.regex(help.stdout, new RegExp(`brv ${command}`));
  const curateHelp = await brv(repo, ['curate', '--help']);
  for (const flag of ['--session', '--response-file', '--delete-response-file', '--overwrite', '--html-file', 'view'])
    t.true(curateHelp.stdout.includes(flag), flag);
});

test('status reports branch, tip, topics and open sessions', async (t) => {
  const repo = await makeRepo();
  const before = await brvJson(repo, ['status']);
  t.like(before.json!.data, { initialized: false, topics: 0, branch: 'main', repository: repo, bare: false });
  await curateTopic(repo, reply('a/one'));
  await curateTopic(repo, reply('a/two'));
  await brvJson(repo, ['curate', 'pending intent']);
  const after = await brvJson(repo, ['status']);
  t.like(after.json!.data, { initialized: true, topics: 2, openSessions: 1, tip: await refTip(repo) });
  t.regex((await brv(repo, ['status'])).stdout, /Topics:\s+2/);
});

test('rm removes a topic or, with --recursive, a folder; unknown paths are typed errors', async (t) => {
  const repo = await makeRepo();
  for (const p of ['ops/deploy', 'ops/rollback', 'ops/db/backup', 'api/errors']) await curateTopic(repo, reply(p));
  const one = await brvJson(repo, ['rm', 'ops/deploy.html', '--reason', 'obsolete']);
  t.like(one.json!.data, { removed: ['ops/deploy'] });
  t.is(await showTopic(repo, 'ops/deploy.html'), undefined);
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /Brv-Op: delete\nBrv-Type: DELETE\nBrv-Reason: obsolete/);

  const tip = await refTip(repo);
  t.is((await brvJson(repo, ['rm', 'ops'])).json!.data.error.kind, 'is-a-folder');
  t.is((await brvJson(repo, ['rm', 'nothing/here'])).json!.data.error.kind, 'not-found');
  t.is((await brvJson(repo, ['rm', '../etc'])).json!.data.error.kind, 'unsafe-path');
  t.is((await brvJson(repo, ['rm', '.brv/format'])).json!.data.error.kind, 'unsafe-path');
  t.is(await refTip(repo), tip);

  const folder = await brvJson(repo, ['rm', 'ops/', '--recursive']);
  t.deepEqual(folder.json!.data.removed.sort(), ['ops/db/backup', 'ops/rollback']);
  t.deepEqual((await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).split('\n'), ['.brv/format', 'api/errors.html']);
});

test('curate view lists history with trailers and changed topics', async (t) => {
  const repo = await makeRepo();
  await curateTopic(repo, reply('a/one', 'One', undefined, { impact: 'high', reason: 'why not' }));
  await curateTopic(repo, reply('a/two'));
  await brvJson(repo, ['rm', 'a/one']);
  const view = await brvJson(repo, ['curate', 'view', '--limit', '2']);
  t.is(view.json!.command, 'curate view');
  const entries = view.json!.data.entries;
  t.is(entries.length, 2);
  t.like(entries[0], { meta: { op: 'delete', type: 'DELETE' }, changes: [{ status: 'deleted', path: 'a/one.html' }] });
  t.like(entries[1], { meta: { op: 'curate', type: 'ADD' }, changes: [{ status: 'added', path: 'a/two.html' }] });
  const text = await brv(repo, ['curate', 'view']);
  t.regex(text.stdout, /impact high/);
  t.regex(text.stdout, /reason: why not/);
});

test('linked worktrees share the knowledge and the sessions', async (t) => {
  const repo = await makeRepo();
  const worktree = await makeWorktree(repo);
  const start = await brvJson(worktree, ['curate', 'from the worktree']);
  const done = await brvJson(repo, ['curate', '--session', start.json!.data.sessionId, '--response', reply('wt/topic')]);
  t.is(done.json!.data.status, 'done');
  t.like((await brvJson(worktree, ['status'])).json!.data, { topics: 1, repository: worktree });
  t.is(await git(worktree, 'status', '--porcelain'), '');
});

test('bare repositories, repositories without commits and a detached HEAD all work', async (t) => {
  const bare = await makeRepo({ bare: true });
  t.is((await curateTopic(bare, reply('a/bare'))).status, 'done');
  const empty = await makeRepo({ commit: false });
  t.is((await curateTopic(empty, reply('a/empty'))).status, 'done');
  t.is(await git(empty, 'status', '--porcelain'), '');
  const detached = await makeRepo();
  await git(detached, 'checkout', '-q', '--detach');
  t.is((await curateTopic(detached, reply('a/detached'))).status, 'done');
});

test('GIT_DIR/GIT_INDEX_FILE leaking from a hook do not redirect writes', async (t) => {
  const repo = await makeRepo();
  const other = await makeRepo();
  const start = await brvJson(repo, ['curate', 'x'], {
    env: { GIT_DIR: path.join(other, '.git'), GIT_INDEX_FILE: path.join(other, '.git', 'index') },
  });
  const done = await brvJson(repo, ['curate', '--session', start.json!.data.sessionId, '--response', reply('a/b')], {
    env: { GIT_DIR: path.join(other, '.git'), GIT_INDEX_FILE: path.join(other, '.git', 'index') },
  });
  t.is(done.json!.data.status, 'done');
  t.truthy(await refTip(repo));
  t.is(await refTip(other), undefined);
  t.is(await git(repo, 'status', '--porcelain'), '');
});

test('works without a configured git identity', async (t) => {
  const repo = await makeRepo();
  const unset = ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL'];
  const start = await brvJson(repo, ['curate', 'x'], { unset, env: { EMAIL: '' } });
  const done = await brvJson(repo, ['curate', '--session', start.json!.data.sessionId, '--response', reply('a/b')], { unset });
  t.is(done.json!.data.status, 'done');
});

test('`git brv` runs the same program', async (t) => {
  const repo = await makeRepo();
  const bin = await tempDir('brv-bin-');
  await symlink(CLI, path.join(bin, 'git-brv'));
  const result = await execa('git', ['brv', 'status', '--format', 'json'], {
    cwd: repo,
    env: { ...ENV, PATH: `${bin}:${ENV.PATH}` },
    extendEnv: false,
  });
  t.like(JSON.parse(result.stdout), { command: 'status', success: true });
  const help = await execa('git', ['brv', '-h'], { cwd: repo, env: { ...ENV, PATH: `${bin}:${ENV.PATH}` }, extendEnv: false });
  t.regex(help.stdout, /git brv <command>/);
});

test('-C runs in another directory', async (t) => {
  const repo = await makeRepo();
  const elsewhere = await tempDir();
  await mkdir(path.join(elsewhere, 'x'));
  const run = await brvJson(elsewhere, ['-C', repo, 'init']);
  t.true(run.json!.success);
});
