import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { brv, brvJson, git, makeRepo, refTip, tempDir } from '../helpers/repo.js';
import { put } from '../helpers/knowledge.js';

const rule = (text: string) => `<bv-rule id="r1">${text}</bv-rule>`;

async function ok(cwd: string, args: string[]) {
  const run = await brvJson(cwd, args);
  if (run.exitCode !== 0 || !run.json?.success)
    throw new Error(`brv ${args.join(' ')} failed (${run.exitCode}): ${run.stdout} ${run.stderr}`);
  return run.json.data;
}

test('worktree add/list/remove: a new worktree shares the knowledge and can take its own brv branch', async (t) => {
  const repo = await makeRepo();
  await ok(repo, ['init']);
  await put(repo, 'shared/fact', rule('shared'));
  const dir = path.join(await tempDir('brv-wt-'), 'feature');
  const added = await ok(repo, ['worktree', 'add', dir, '-b', 'feature-code', '--brv-branch', 'experiment', '--create-brv-branch']);
  t.like(added, { path: dir, gitBranch: 'feature-code', brvBranch: 'experiment' });
  t.deepEqual((await ok(dir, ['ls'])).topics, ['shared/fact']);
  await put(dir, 'exp/idea', rule('only on the experiment branch'));
  t.deepEqual((await ok(repo, ['ls'])).topics, ['shared/fact'], 'the main worktree stays on main');
  t.truthy(await refTip(repo, 'refs/brv/heads/experiment'));
  const list = await ok(repo, ['worktree', 'list']);
  t.deepEqual(
    list.worktrees.map((w: { brvBranch: string; current: boolean }) => [w.brvBranch, w.current]),
    [
      ['main', true],
      ['experiment', false],
    ],
  );
  await ok(repo, ['worktree', 'remove', dir]);
  t.false(existsSync(dir));
  t.truthy(await refTip(repo, 'refs/brv/heads/experiment'), 'knowledge outlives the worktree');
  const missing = await brvJson(repo, ['worktree', 'add', path.join(dir, 'x'), '--brv-branch', 'nope']);
  t.is(missing.json?.data.error.kind, 'branch-not-found');
});

test('source add/list/refresh/remove: another repository read-only, refreshed when it changes', async (t) => {
  const other = await makeRepo();
  await ok(other, ['init']);
  await put(other, 'platform/logging', rule('Log as JSON lines.'));
  const repo = await makeRepo();
  await ok(repo, ['init']);
  const added = await ok(repo, ['source', 'add', other, '--alias', 'platform']);
  t.like(added, { alias: 'platform', branch: 'main' });
  t.is(await refTip(repo, 'refs/brv/sources/platform/main'), await refTip(other));
  const self = await brvJson(repo, ['source', 'add', repo]);
  t.is(self.json?.data.error.kind, 'source-is-self');
  const dup = await brvJson(repo, ['source', 'add', other]);
  t.is(dup.json?.data.error.kind, 'source-exists');
  const plain = await makeRepo();
  const notBrv = await brvJson(repo, ['source', 'add', plain]);
  t.is(notBrv.json?.data.error.kind, 'not-a-brv-source');
  // Option-like and transport-helper locations never reach git as options or commands.
  const marker = path.join(repo, 'pwned');
  for (const location of [`--upload-pack=touch ${marker}`, `ext::sh -c touch% ${marker}`]) {
    const hostile = await brvJson(repo, ['source', 'add', location, '--alias', 'x']);
    t.not(hostile.exitCode, 0, location);
    t.false(hostile.json?.success, location);
  }
  t.false(existsSync(marker));
  const badAlias = await brvJson(repo, ['source', 'add', other, '--alias', '../x']);
  t.is(badAlias.json?.data.error.kind, 'invalid-alias');
  t.is((await ok(repo, ['source', 'list'])).sources.length, 1);

  await put(repo, 'local/logging', rule('Local services log to stderr.'));
  const query = await ok(repo, ['query', 'how do we log']);
  const origins = query.matchedDocs.map((d: { topicPath: string; origin: string; source?: string }) => [d.topicPath, d.origin, d.source]);
  t.deepEqual(origins.sort(), [
    ['local/logging', 'local', undefined],
    ['platform/logging', 'shared', 'platform'],
  ]);
  t.is(query.metadata.sources[0].alias, 'platform');
  t.regex((await brv(repo, ['query', 'how do we log'])).stdout, /\[platform\] platform\/logging/);
  const search = await ok(repo, ['search', 'JSON lines']);
  t.like(search.results[0], { topicPath: 'platform/logging', origin: 'shared', source: 'platform' });
  const past = await ok(repo, ['query', 'how do we log', '--at', 'main']);
  t.true(
    past.matchedDocs.every((d: { origin?: string }) => d.origin === undefined),
    '--at reads local history only',
  );
  await put(other, 'platform/metrics', rule('Prometheus only.'));
  const refreshed = await ok(repo, ['source', 'refresh']);
  t.is(refreshed.sources[0].commit, await refTip(other));
  // Writes never touch a source: local curates land on the local branch only.
  await put(repo, 'local/thing', rule('local'));
  t.regex(JSON.stringify((await ok(repo, ['query', 'Prometheus'])).matchedDocs), /platform\/metrics/);
  t.is(await refTip(repo, 'refs/brv/sources/platform/main'), await refTip(other));
  await ok(repo, ['source', 'remove', 'platform']);
  t.is(await refTip(repo, 'refs/brv/sources/platform/main'), undefined);
  t.is(await git(repo, 'config', '--get-regexp', '^brvsource\\.').catch(() => ''), '');
});

test('brv sync refreshes knowledge sources', async (t) => {
  const other = await makeRepo();
  await ok(other, ['init']);
  await put(other, 'platform/logging', rule('Log as JSON lines.'));
  const repo = await makeRepo();
  const bare = await tempDir('brv-remote-');
  await git(bare, 'init', '-q', '--bare');
  await git(repo, 'remote', 'add', 'origin', bare);
  await ok(repo, ['init']);
  await ok(repo, ['source', 'add', other, '--alias', 'platform']);
  await put(other, 'platform/metrics', rule('Prometheus only.'));
  const synced = await ok(repo, ['sync']);
  t.deepEqual(synced.sources, [{ alias: 'platform', commit: await refTip(other) }]);
  t.regex(JSON.stringify((await ok(repo, ['query', 'Prometheus'])).matchedDocs), /platform\/metrics/);
});
