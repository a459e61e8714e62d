import test from 'ava';
import { brv, brvJson, curateTopic, git, makeRepo, refTip, reply } from '../helpers/repo.js';

test('read renders markdown, --raw gives the stored HTML, unknown paths are typed errors', async (t) => {
  const repo = await makeRepo();
  await curateTopic(
    repo,
    reply(
      'ops/deploy',
      'Deploys',
      '<bv-changes><li>Blue/green</li><li>Canary first</li></bv-changes><bv-rule severity="must">Never on Fridays.</bv-rule>',
    ),
  );
  const rendered = await brvJson(repo, ['read', 'ops/deploy']);
  t.like(rendered.json!.data, { path: 'ops/deploy.html', topicPath: 'ops/deploy', format: 'markdown' });
  t.regex(rendered.json!.data.content, /^# Deploys/);
  t.regex(rendered.json!.data.content, /- Blue\/green\n- Canary first/);
  t.regex(rendered.json!.data.content, /\*\*Rule\*\* \[must\]: Never on Fridays\./);
  const raw = await brv(repo, ['read', 'ops/deploy.html', '--raw']);
  t.is(raw.stdout.trimEnd(), await git(repo, 'show', 'refs/brv/heads/main:ops/deploy.html'));
  t.is((await brvJson(repo, ['read', 'ops/nothing'])).json!.data.error.kind, 'not-found');
  t.regex((await brvJson(repo, ['read', 'ops'])).json!.data.error.message, /folder/);
  t.is((await brvJson(repo, ['read', '../../etc/passwd'])).json!.data.error.kind, 'unsafe-path');
});

test('ls lists topics, optionally under a folder', async (t) => {
  const repo = await makeRepo();
  t.deepEqual((await brvJson(repo, ['ls'])).json!.data.topics, []);
  for (const p of ['ops/deploy', 'ops/db/backup', 'api/errors']) await curateTopic(repo, reply(p));
  t.deepEqual((await brvJson(repo, ['ls'])).json!.data.topics, ['api/errors', 'ops/db/backup', 'ops/deploy']);
  t.deepEqual((await brvJson(repo, ['ls', 'ops/'])).json!.data.topics, ['ops/db/backup', 'ops/deploy']);
  t.deepEqual((await brvJson(repo, ['ls', 'op'])).json!.data.topics, []);
});

test('--at reads knowledge as it was at a brv commit, branch expression or date', async (t) => {
  const repo = await makeRepo();
  await curateTopic(repo, reply('a/topic', 'Version one', '<bv-rule>One.</bv-rule>'));
  const first = (await refTip(repo))!;
  await curateTopic(repo, reply('a/topic', 'Version two', '<bv-rule>Two.</bv-rule>'), ['--overwrite']);
  await curateTopic(repo, reply('a/other'));
  for (const at of [first, first.slice(0, 10), 'main~2']) {
    const old = await brvJson(repo, ['read', 'a/topic', '--at', at]);
    t.regex(old.json!.data.content, /Version one/, at);
    t.is(old.json!.data.commit, first);
  }
  t.deepEqual((await brvJson(repo, ['ls', '--at', 'main~1'])).json!.data.topics, ['a/topic']);
  // Dates: the test environment pins commit dates to 2026-01-01.
  t.deepEqual((await brvJson(repo, ['ls', '--at', '2026-01-02'])).json!.data.topics, ['a/other', 'a/topic']);
  t.is((await brvJson(repo, ['ls', '--at', '2025-12-31'])).json!.data.error.kind, 'not-found');
  // A code commit is not knowledge.
  t.is((await brvJson(repo, ['ls', '--at', 'HEAD'])).json!.data.error.kind, 'not-a-brv-commit');
  t.is((await brvJson(repo, ['ls', '--at=--upload-pack=evil'])).json!.data.error.kind, 'invalid-revision');
  t.is((await brvJson(repo, ['ls', '--at', 'nonexistent'])).json!.data.error.kind, 'not-found');
});
