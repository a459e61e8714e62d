import test from 'ava';
import { plantTree } from '../helpers/plant.js';
import { brv, brvJson, curateTopic, git, makeRepo, refTip, reply, showTopic, tempDir } from '../helpers/repo.js';

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
  // A code commit is not knowledge; HEAD is the brv branch's tip, not git's code HEAD.
  t.is((await brvJson(repo, ['ls', '--at', await git(repo, 'rev-parse', 'HEAD')])).json!.data.error.kind, 'not-a-brv-commit');
  t.deepEqual((await brvJson(repo, ['ls', '--at', 'HEAD~1'])).json!.data.topics, ['a/topic']);
  t.is((await brvJson(repo, ['ls', '--at=--upload-pack=evil'])).json!.data.error.kind, 'invalid-revision');
  t.is((await brvJson(repo, ['ls', '--at', 'nonexistent'])).json!.data.error.kind, 'not-found');
});

// C0 (but tab and newline), DEL and C1: what a terminal acts on.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test('no raw control character reaches the terminal from any command that prints stored text, --raw included', async (t) => {
  const repo = await makeRepo();
  const out = await tempDir();
  await brv(repo, ['init']);
  // SGR, OSC 8 (a hidden link), OSC 52 (a clipboard write) ended by BEL, a C1 CSI (0x9B), DEL, CR (and NUL in blobs).
  const esc = '\x1b[31mred\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\x1b]52;c;cHduZWQ=\x07\x9b2J\x7f\r';
  const blob = `<bv-topic path="esc/topic" title="T ${esc}\x00" summary="S ${esc}"><bv-reason>zebra ${esc}</bv-reason><bv-fact subject="s ${esc}" value="v ${esc}">f ${esc}</bv-fact><bv-files><li><code>src/${esc}.ts</code></li></bv-files></bv-topic>`;
  const planted = await plantTree(
    repo,
    { 'esc/topic.html': blob, 'esc/t\x1b[1mX.html': blob, 'esc/u\x9b1m.html': blob },
    { message: `planted ${esc}\n\nBrv-Op: curate\nBrv-Impact: high\nBrv-Reason: r ${esc}\nBrv-Agent: a ${esc}` },
  );
  await git(repo, 'update-ref', `refs/brv/review/${planted.slice(0, 12)}`, planted);
  const runs: Array<[string[], 'text' | 'json']> = [];
  for (const args of [
    ['read', 'esc/topic', '--raw'],
    ['read', 'esc/topic'],
    ['query', 'zebra'],
    ['vc', 'log'],
    ['review', 'pending'],
  ])
    runs.push([args, 'text'], [args, 'json']);
  for (const args of [
    ['ls'],
    ['status'],
    ['search', 'zebra'],
    ['vc', 'show'],
    ['vc', 'show', 'main:esc/topic'],
    ['vc', 'diff', 'main~1..main'],
    ['curate', 'view'],
    ['export', out],
    ['doctor'],
  ])
    runs.push([args, 'text']);
  for (const [args, format] of runs) {
    const run = format === 'json' ? await brvJson(repo, args) : await brv(repo, args);
    t.is(run.exitCode, 0, `brv ${args.join(' ')} --format ${format}: ${run.stderr}`);
    t.false(RAW_CONTROL.test(run.stdout), `stdout of brv ${args.join(' ')} --format ${format}: ${JSON.stringify(run.stdout)}`);
    t.false(RAW_CONTROL.test(run.stderr), `stderr of brv ${args.join(' ')} --format ${format}: ${JSON.stringify(run.stderr)}`);
  }
  // --raw shows each control as U+FFFD; the exact text is in --format json (escaped) and in git.
  const raw = await brv(repo, ['read', 'esc/topic', '--raw']);
  t.is(raw.exitCode, 0, raw.stderr);
  t.is(raw.stdout, blob.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '\uFFFD'));
  t.is((await brvJson(repo, ['read', 'esc/topic', '--raw'])).json?.data.content, blob);
  t.is(await showTopic(repo, 'esc/topic.html'), blob);
});
