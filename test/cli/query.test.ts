import test from 'ava';
import { execa } from 'execa';
import path from 'node:path';
import type { QueryResult } from '../../src/search/query-topics.js';
import { queryText } from '../../src/views/query.js';
import { ENV, brv, brvJson, curateTopic, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

async function seed(repo: string) {
  await curateTopic(
    repo,
    reply(
      'security/jwt',
      'JWT signing',
      '<bv-rule severity="must">Sign tokens with RS256.</bv-rule><bv-fact subject="rotation" value="monthly">Keys rotate monthly.</bv-fact>',
    ),
  );
  await curateTopic(
    repo,
    reply('api/errors', 'Error responses', '<bv-rule>Return problem+json bodies with a stable error code.</bv-rule>'),
  );
  await curateTopic(
    repo,
    reply(
      'ops/deploy',
      'Deploying',
      '<bv-changes><li>Canary first, then the fleet.</li></bv-changes><bv-highlights><p>Tokens for the deploy bot are in the vault.</p></bv-highlights>',
    ),
  );
}

test("query returns ranked, rendered topics in ByteRover's JSON shape, with why they matched", async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  const run = await brvJson(repo, ['query', 'how are tokens signed']);
  t.is(run.exitCode, 0);
  const data = run.json!.data;
  t.is(data.status, 'ok');
  t.is(data.matchedDocs[0].path, 'security/jwt.html');
  t.like(data.matchedDocs[0], { topicPath: 'security/jwt', title: 'JWT signing', format: 'html' });
  t.true(data.matchedDocs[0].score > 0 && data.matchedDocs[0].score < 1);
  t.regex(data.matchedDocs[0].rendered_md, /^# JWT signing/);
  t.true(data.matchedDocs[0].matched.terms.includes('signed'));
  t.true(
    data.matchedDocs.some((d: any) => d.topicPath === 'ops/deploy'),
    'a topic matching one word is not dropped',
  );
  t.like(data.metadata, {
    tier: 2,
    cacheHit: null,
    filtered: false,
    totalFound: data.matchedDocs.length,
    topScore: data.matchedDocs[0].score,
  });
  t.is(typeof data.metadata.durationMs, 'number');
  // Unquoted words work too, and text output is readable.
  const text = await brv(repo, ['query', 'deploy', 'canary']);
  t.regex(text.stdout, /## 1\. Deploying — ops\/deploy/);
});

test('no-matches is a success with an empty list; --limit and --scope narrow', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  const none = await brvJson(repo, ['query', 'kubernetes helm charts']);
  t.is(none.exitCode, 0);
  t.true(none.json!.success);
  t.like(none.json!.data, { status: 'no-matches', matchedDocs: [] });
  t.is((await brvJson(repo, ['query', 'tokens', '--limit', '1'])).json!.data.matchedDocs.length, 1);
  const scoped = await brvJson(repo, ['query', 'tokens', '--scope', 'ops/']);
  t.deepEqual(
    scoped.json!.data.matchedDocs.map((d: any) => d.topicPath),
    ['ops/deploy'],
  );
  t.is((await brvJson(repo, ['query', '  '])).json!.data.error.kind, 'missing-query');
  // An empty repository answers too.
  const empty = await makeRepo();
  t.is((await brvJson(empty, ['query', 'anything'])).json!.data.status, 'no-matches');
});

test("a question word's neighbours are off by default: a topic written in other words is not brought in (docs/decisions/0012)", async (t) => {
  const repo = await makeRepo();
  await curateTopic(repo, reply('home/cat', 'Where the cat sleeps', '<bv-fact>Our cat sleeps on the sofa.</bv-fact>'));
  await curateTopic(repo, reply('home/couch', 'The couch', '<bv-fact>The couch came from the market.</bv-fact>'));
  const run = await brvJson(repo, ['query', 'couch']);
  t.deepEqual(
    run.json!.data.matchedDocs.map((d: any) => [d.topicPath, d.matched.terms]),
    [['home/couch', ['couch']]],
  );
});

test('a topic found only through related words (feedback, neighbours) says so in the text answer', (t) => {
  const doc = {
    path: 'home/cat.html',
    topicPath: 'home/cat',
    title: 'Where the cat sleeps',
    score: 0.5,
    format: 'html',
    rendered_md: '# Where the cat sleeps\n\nOur cat sleeps on the sofa.',
    matched: { terms: [], fields: [] },
  };
  const text = queryText({ status: 'ok', matchedDocs: [doc], metadata: { totalFound: 1, durationMs: 1 } } as unknown as QueryResult);
  t.regex(text, /## 1\. Where the cat sleeps — home\/cat \(score 0\.50; matched related words only\)/);
});

test('search gives paths, titles, scores and excerpts', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  const run = await brvJson(repo, ['search', 'problem json']);
  const [first] = run.json!.data.results;
  t.like(first, { path: 'api/errors.html', topicPath: 'api/errors', title: 'Error responses' });
  t.regex(first.excerpt, /problem\+json/);
  t.regex((await brv(repo, ['search', 'canary'])).stdout, /1\. Deploying \[\d+%\]\n {3}ops\/deploy/);
});

test("search --format json carries ByteRover's status field ('completed', matches or none)", async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  const hit = await brvJson(repo, ['search', 'problem json']);
  t.like(hit.json, { success: true, data: { status: 'completed' } });
  t.true(hit.json!.data.results.length > 0);
  const none = await brvJson(repo, ['search', 'zebra quantum']);
  t.is(none.exitCode, 0);
  t.like(none.json, { success: true, data: { status: 'completed', results: [], totalFound: 0 } });
});

test('after a curate the next query updates the index incrementally, not from scratch', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  t.is((await brvJson(repo, ['query', 'tokens'])).json!.data.metadata.index.build, 'full');
  t.is((await brvJson(repo, ['query', 'tokens'])).json!.data.metadata.index.build, 'cached');
  await curateTopic(repo, reply('security/cookies', 'Cookies', '<bv-rule>Session tokens live in HttpOnly cookies.</bv-rule>'));
  const after = await brvJson(repo, ['query', 'httponly cookies']);
  t.like(after.json!.data.metadata.index, { build: 'incremental', changedTopics: 1 });
  t.is(after.json!.data.matchedDocs[0].topicPath, 'security/cookies');
  await brvJson(repo, ['rm', 'api/errors']);
  const removed = await brvJson(repo, ['query', 'problem json error']);
  t.like(removed.json!.data.metadata.index, { build: 'incremental', changedTopics: 1 });
  t.false(removed.json!.data.matchedDocs.some((d: any) => d.topicPath === 'api/errors'));
  // Indexes are keyed by tree: going back to an indexed tree reuses its index as is.
  await brvJson(repo, ['rm', 'security/cookies']);
  await curateTopic(
    repo,
    reply('api/errors', 'Error responses', '<bv-rule>Return problem+json bodies with a stable error code.</bv-rule>'),
  );
  t.is((await brvJson(repo, ['query', 'tokens'])).json!.data.metadata.index.build, 'cached');
});

test('a topic written by plain git (update-ref from outside) is found by the next query', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  await brvJson(repo, ['query', 'tokens']);
  const index = path.join(await tempDir(), 'index');
  const env = { ...ENV, GIT_INDEX_FILE: index };
  const run = (args: string[], input?: string) =>
    execa('git', args, { cwd: repo, env, extendEnv: false, input }).then((r) => r.stdout.trim());
  await run(['read-tree', 'refs/brv/heads/main']);
  const blob = await run(
    ['hash-object', '-w', '--stdin'],
    '<bv-topic path="ext/outside" title="Written outside"><bv-rule>Zebras are striped.</bv-rule></bv-topic>',
  );
  await run(['update-index', '--add', '--cacheinfo', `100644,${blob},ext/outside.html`]);
  const tree = await run(['write-tree']);
  const commit = await run(['commit-tree', tree, '-p', 'refs/brv/heads/main', '-m', 'outside']);
  await git(repo, 'update-ref', 'refs/brv/heads/main', commit);
  const found = await brvJson(repo, ['query', 'zebras']);
  t.is(found.json!.data.matchedDocs[0]?.topicPath, 'ext/outside');
  t.is(found.json!.data.metadata.commit, commit);
});

test('--at queries knowledge as it was', async (t) => {
  const repo = await makeRepo();
  await curateTopic(repo, reply('team/lunch', 'Lunch', '<bv-fact>Lunch is at noon.</bv-fact>'));
  await curateTopic(repo, reply('team/lunch', 'Lunch', '<bv-fact>Lunch is at one.</bv-fact>'), ['--overwrite']);
  const now = await brvJson(repo, ['query', 'lunch']);
  t.regex(now.json!.data.matchedDocs[0].rendered_md, /at one/);
  const then = await brvJson(repo, ['query', 'lunch', '--at', 'main~1']);
  t.regex(then.json!.data.matchedDocs[0].rendered_md, /at noon/);
  t.is((await brvJson(repo, ['search', 'lunch', '--at', 'main~1'])).json!.data.results.length, 1);
});

test('--kind, --since and --until filter by element and by bv-timestamp date', async (t) => {
  const repo = await makeRepo();
  await curateTopic(
    repo,
    reply('rel/one', 'Release one', '<bv-timestamp>2026-03-01</bv-timestamp><bv-decision><p>Ship the release on Monday.</p></bv-decision>'),
  );
  await curateTopic(
    repo,
    reply('rel/two', 'Release two', '<bv-timestamp>2026-06-01</bv-timestamp><bv-rule>Every release needs a changelog.</bv-rule>'),
  );
  const ids = async (...args: string[]) =>
    (await brvJson(repo, ['query', 'release', ...args])).json!.data.matchedDocs.map((d: any) => d.topicPath).sort();
  t.deepEqual(await ids(), ['rel/one', 'rel/two']);
  t.deepEqual(await ids('--kind', 'decision'), ['rel/one']);
  t.deepEqual(await ids('--kind', 'bv-rule'), ['rel/two']);
  t.deepEqual(await ids('--since', '2026-04-01'), ['rel/two']);
  t.deepEqual(await ids('--until', '2026-04-01'), ['rel/one']);
  t.is((await brvJson(repo, ['query', 'release', '--since', 'March'])).json!.data.error.kind, 'invalid-date');
});

test('SHA-256 repositories: curate, query and read work', async (t) => {
  const repo = await tempDir();
  await git(repo, 'init', '-q', '--object-format=sha256');
  t.is((await curateTopic(repo, reply('a/b', 'Two five six', '<bv-rule>Sixty-four hex digits.</bv-rule>'))).status, 'done');
  const found = await brvJson(repo, ['query', 'sixty four hex']);
  t.is(found.json!.data.matchedDocs[0].topicPath, 'a/b');
  t.regex((await brvJson(repo, ['read', 'a/b'])).json!.data.commit, /^[0-9a-f]{64}$/);
});

test('a damaged index is rebuilt', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  // (First queries at once, as processes: test/process/concurrency.test.ts.)
  const first = await brvJson(repo, ['query', 'tokens']);
  t.is(first.json?.data.matchedDocs.length, 2, first.stdout + first.stderr);
  const segments = path.join(repo, '.git', 'brv', 'index');
  const { readdir, writeFile } = await import('node:fs/promises');
  const files = (await readdir(segments, { recursive: true })).filter((f) => String(f).endsWith('.seg'));
  t.true(files.length > 0);
  for (const file of files) await writeFile(path.join(segments, String(file)), 'garbage');
  const rebuilt = await brvJson(repo, ['query', 'tokens']);
  t.is(rebuilt.json!.data.metadata.index.build, 'full');
  t.is(rebuilt.json!.data.matchedDocs.length, 2);
  // A truncated docstore (rendered markdown) is caught when the index is opened, not mid-answer.
  const docstores = (await readdir(segments, { recursive: true })).filter((f) => String(f).endsWith('.seg.md'));
  for (const file of docstores) await writeFile(path.join(segments, String(file)), 'BRVMD001');
  const again = await brvJson(repo, ['query', 'tokens']);
  t.is(again.json!.data.metadata.index.build, 'full');
  t.regex(again.json!.data.matchedDocs[0].rendered_md, /^# /);
});
