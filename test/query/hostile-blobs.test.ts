import test from 'ava';
import { execa } from 'execa';
import path from 'node:path';
import { MAX_INDEXED_BLOB_BYTES, TreeIndexStore } from '../../src/index/tree-index.js';
import type { Brv } from '../../src/service/brv.js';
import { internals, openBrv } from '../helpers/service.js';
import { MAX_STORED_TOPIC_BYTES } from '../../src/topic/stored.js';
import { put } from '../helpers/knowledge.js';
import { plantTree } from '../helpers/plant.js';
import { brvJson, cleanup, ENV, git, makeRepo, tempDir } from '../helpers/repo.js';

/**
 * Refs can be moved by plain git (a teammate's push, a knowledge source, plumbing): the index reads
 * nothing it cannot bound. Bad blobs at topic paths are skipped unread or unparsed, counted in the
 * query metadata and listed by `skippedTopics`, and the rest of the tree still answers.
 */

const topic = (topicPath: string, title: string, body: string) =>
  `<bv-topic path="${topicPath}" title="${title}"><bv-rule id="r1">${body}</bv-rule></bv-topic>`;

const GOOD = {
  'auth/tokens.html': topic('auth/tokens', 'Tokens', 'Rotate access tokens every hour.'),
  'ops/deploy.html': topic('ops/deploy', 'Deploys', 'Deploy on Tuesdays only.'),
};
/** 2,000 nested spans in 14 KB: every recursive walk of it overflows the stack. */
const DEEP = `<bv-topic path="x/deep" title="Deep tokens">${'<span>'.repeat(2000)}tokens${'</span>'.repeat(2000)}</bv-topic>`;
/** A few MB over the limit (a 200 MB one is the same path: see docs/archive/bench-notebook-2026.md, "Hostile blobs and damaged index files"). */
const HUGE_BYTES = 3 * 1024 * 1024;
const huge = () => Buffer.from(`<bv-topic path="x/huge" title="Huge tokens"><p>${'tokens '.repeat(HUGE_BYTES / 7)}</p></bv-topic>`);

/** Records every object name the repository's reader is asked for. */
function spyReads(brv: Brv): string[] {
  const names: string[] = [];
  const read = internals(brv).repo.readObject.bind(internals(brv).repo);
  internals(brv).repo.readObject = (name: string) => {
    names.push(name);
    return read(name);
  };
  return names;
}

async function blobOid(repo: string, content: string | Buffer): Promise<string> {
  return (await execa('git', ['hash-object', '--stdin'], { cwd: repo, env: ENV, extendEnv: false, input: content })).stdout.trim();
}

test('the limit the index applies is the stored-topic limit', (t) => {
  t.is(MAX_INDEXED_BLOB_BYTES, MAX_STORED_TOPIC_BYTES);
});

test('a huge topic blob is never read: a full build skips it from its size, query answers from the rest', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const big = huge();
  await plantTree(repo, { ...GOOD, 'x/huge.html': big, 'x/deep.html': DEEP });
  const bigOid = await blobOid(repo, big);
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  const reads = spyReads(brv);
  const result = await brv.retrieval.query({ question: 'tokens' });
  t.deepEqual(
    result.matchedDocs.map((d) => d.topicPath),
    ['auth/tokens'],
  );
  t.is(result.metadata.skippedTopics, 2);
  t.false(
    reads.some((name) => name.includes(bigOid)),
    'the huge blob was never asked for',
  );
  t.deepEqual(
    (await brv.retrieval.skippedTopics()).map((s) => [s.path, s.problem]),
    [
      ['x/deep.html', 'too-deep'],
      ['x/huge.html', 'too-large'],
    ],
  );
  // `brv read` refuses it from its size too, with a typed error.
  const error = await t.throwsAsync(brv.knowledge.read({ path: 'x/huge' }));
  t.is((error as { kind?: string }).kind, 'too-large');
  t.false(
    reads.some((name) => name.includes(bigOid) || name.endsWith(':x/huge.html')),
    'read did not load it',
  );
  t.regex((await brv.knowledge.read({ path: 'x/deep' })).content, /cannot be shown as a topic/);
  // And it can be removed without being loaded (rm asks what kind of entry the path is).
  t.deepEqual((await brv.knowledge.remove({ path: 'x/huge' }, {})).removed, ['x/huge']);
  t.false(
    reads.some((name) => name.includes(bigOid) || name.endsWith(':x/huge.html')),
    'rm did not load it',
  );
  t.is((await brv.retrieval.query({ question: 'tokens' })).metadata.skippedTopics, 1);
});

test('incremental builds check sizes too: a huge blob that arrives after the first index is not read', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, GOOD);
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  t.is((await brv.retrieval.query({ question: 'tokens' })).metadata.index.build, 'full');
  const big = huge();
  await plantTree(repo, { ...GOOD, 'x/huge.html': big, 'x/deep.html': DEEP });
  const bigOid = await blobOid(repo, big);
  const reads = spyReads(brv);
  const after = await brv.retrieval.query({ question: 'tokens' });
  t.like(after.metadata, { skippedTopics: 2, index: { build: 'incremental', changedTopics: 2, skippedTopics: 2 } });
  t.deepEqual(
    after.matchedDocs.map((d) => d.topicPath),
    ['auth/tokens'],
  );
  t.false(reads.some((name) => name.includes(bigOid)));
  // A later good topic keeps the skipped ones skipped, and replacing a bad one un-skips it.
  await plantTree(repo, {
    ...GOOD,
    'x/huge.html': big,
    'x/deep.html': topic('x/deep', 'Deep no more', 'Shallow tokens now.'),
    'new/one.html': topic('new/one', 'New', 'Fresh tokens.'),
  });
  const third = await brv.retrieval.query({ question: 'tokens' });
  t.like(third.metadata, { skippedTopics: 1, index: { build: 'incremental' } });
  t.deepEqual(third.matchedDocs.map((d) => d.topicPath).sort(), ['auth/tokens', 'new/one', 'x/deep']);
  t.deepEqual(
    (await brv.retrieval.skippedTopics()).map((s) => s.path),
    ['x/huge.html'],
  );
  // A good topic that becomes unreadable leaves the index (its old version is not served).
  await plantTree(repo, { ...GOOD, 'ops/deploy.html': DEEP });
  const fourth = await brv.retrieval.query({ question: 'deploy tuesdays' });
  t.is(fourth.metadata.index.build, 'incremental');
  t.deepEqual(fourth.matchedDocs, []);
  t.deepEqual(
    (await brv.retrieval.skippedTopics()).map((s) => [s.path, s.problem]),
    [['ops/deploy.html', 'too-deep']],
  );
});

/** A tree naming `a/one.html` twice (git mktree refuses that; `hash-object --literally` does not), committed on the brv ref. */
async function plantDuplicate(repo: string, first: string, second: string, extra: Record<string, string> = {}): Promise<void> {
  await plantTree(repo, extra);
  const run = (args: string[], input?: string | Buffer) =>
    execa('git', args, { cwd: repo, env: ENV, extendEnv: false, input }).then((r) => r.stdout.trim());
  const base = await run(['rev-parse', 'refs/brv/heads/main^{tree}']);
  const entry = async (content: string) =>
    Buffer.concat([Buffer.from('100644 one.html\0'), Buffer.from(await run(['hash-object', '-w', '--stdin'], content), 'hex')]);
  const inner = await run(
    ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'],
    Buffer.concat([await entry(first), await entry(second)]),
  );
  // The base tree's entries plus `a` (written through mktree, which sorts them and keeps the raw subtree).
  const listing = await run(['ls-tree', base]);
  const tree = await run(['mktree'], `${listing}\n040000 tree ${inner}\ta\n`);
  const commit = await run(['commit-tree', tree, '-p', 'refs/brv/heads/main', '-m', 'duplicate entry']);
  await run(['update-ref', 'refs/brv/heads/main', commit]);
}

test('a tree naming a path twice: the first entry is indexed, the second skipped and reported', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantDuplicate(repo, topic('a/one', 'First', 'The first zebra.'), topic('a/one', 'Second', 'The second zebra.'), GOOD);
  const listed = await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main');
  t.is(listed.split('\n').filter((p) => p === 'a/one.html').length, 2, 'the tree really names it twice');
  for (const command of ['query', 'search']) {
    const run = await brvJson(repo, [command, 'zebra']);
    t.true(run.json?.success, run.stdout + run.stderr);
    t.notRegex(run.stderr, /distinct paths|\n\s+at /);
  }
  const query = await brvJson(repo, ['query', 'zebra']);
  t.deepEqual(
    query.json!.data.matchedDocs.map((d: { title: string }) => d.title),
    ['First'],
  );
  t.is(query.json!.data.metadata.skippedTopics, 1);
  t.is((await brvJson(repo, ['search', 'zebra'])).json!.data.skippedTopics, 1);
  const doctor = await brvJson(repo, ['doctor']);
  t.notRegex(doctor.stdout + doctor.stderr, /distinct paths/);
  t.like(
    doctor.json?.data.checks.find((c: { name: string }) => c.name === 'search index'),
    { status: 'ok' },
  );
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  t.like(await brv.retrieval.skippedTopics(), [{ path: 'a/one.html', problem: 'duplicate-path' }]);
});

test('a path named twice after a clean index: the incremental build is not fooled into replacing the first entry', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, { ...GOOD, 'a/one.html': topic('a/one', 'First', 'The first zebra.') });
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  t.is((await brv.retrieval.query({ question: 'zebra' })).matchedDocs[0]?.title, 'First');
  await plantDuplicate(repo, topic('a/one', 'First', 'The first zebra.'), topic('a/one', 'Second', 'The second zebra.'), GOOD);
  const dup = await brv.retrieval.query({ question: 'zebra' });
  t.deepEqual(
    dup.matchedDocs.map((d) => d.title),
    ['First'],
  );
  t.is(dup.metadata.skippedTopics, 1);
  // And back to a clean tree: the path is still there (diff-tree calls it deleted).
  await plantTree(repo, { ...GOOD, 'a/one.html': topic('a/one', 'First', 'The first zebra.') });
  const clean = await brv.retrieval.query({ question: 'zebra' });
  t.deepEqual(
    clean.matchedDocs.map((d) => d.title),
    ['First'],
  );
  t.is(clean.metadata.skippedTopics, 0);
});

test('a 2,000-deep topic: query, search and skippedTopics answer without a RangeError, also after a curate', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, { ...GOOD, 'x/deep.html': DEEP });
  const query = await brvJson(repo, ['query', 'tokens']);
  t.true(query.json?.success, query.stdout + query.stderr);
  t.notRegex(query.stderr, /RangeError|Maximum call stack/);
  t.deepEqual(
    query.json!.data.matchedDocs.map((d: { topicPath: string }) => d.topicPath),
    ['auth/tokens'],
  );
  t.is(query.json!.data.metadata.skippedTopics, 1);
  const search = await brvJson(repo, ['search', 'tokens']);
  t.true(search.json?.success, search.stdout + search.stderr);
  t.is(search.json!.data.skippedTopics, 1);
  const doctor = await brvJson(repo, ['doctor']);
  t.notRegex(doctor.stdout + doctor.stderr, /RangeError|Maximum call stack/);
  t.like(
    doctor.json?.data.checks.find((c: { name: string }) => c.name === 'search index'),
    { status: 'ok' },
  );
  await put(repo, 'auth/refresh', '<bv-rule id="r1">Refresh tokens last a day.</bv-rule>');
  const after = await brvJson(repo, ['query', 'tokens']);
  t.like(after.json!.data.metadata, { skippedTopics: 1, index: { build: 'incremental' } });
  t.deepEqual(after.json!.data.matchedDocs.map((d: { topicPath: string }) => d.topicPath).sort(), ['auth/refresh', 'auth/tokens']);
});

test('a knowledge source holding bad blobs: query in the consuming repository still answers, and counts them', async (t) => {
  const other = await makeRepo();
  const repo = await makeRepo();
  t.teardown(() => cleanup(other, repo));
  await plantTree(other, {
    'platform/logging.html': topic('platform/logging', 'Logging', 'Log tokens as JSON lines.'),
    'x/deep.html': DEEP,
    'x/huge.html': huge(),
  });
  await put(repo, 'auth/tokens', '<bv-rule id="r1">Rotate access tokens every hour.</bv-rule>');
  const added = await brvJson(repo, ['source', 'add', other, '--alias', 'platform']);
  t.true(added.json?.success, added.stdout + added.stderr);
  const query = await brvJson(repo, ['query', 'tokens']);
  t.true(query.json?.success, query.stdout + query.stderr);
  t.deepEqual(query.json!.data.matchedDocs.map((d: { topicPath: string; origin: string }) => `${d.origin}:${d.topicPath}`).sort(), [
    'local:auth/tokens',
    'shared:platform/logging',
  ]);
  t.like(query.json!.data.metadata, { skippedTopics: 2, sources: [{ alias: 'platform', skippedTopics: 2 }] });
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  t.deepEqual(
    (await brv.retrieval.skippedTopics()).map((s) => [s.source, s.path, s.problem]),
    [
      ['platform', 'x/deep.html', 'too-deep'],
      ['platform', 'x/huge.html', 'too-large'],
    ],
  );
});

test('export refuses a huge blob from its size instead of loading it', async (t) => {
  const repo = await makeRepo();
  const out = path.join(await tempDir('brv-export-'), 'out');
  t.teardown(() => cleanup(repo, path.dirname(out)));
  await plantTree(repo, { ...GOOD, 'x/huge.html': huge() });
  const run = await brvJson(repo, ['export', out]);
  t.is(run.json?.data.error.kind, 'too-large', run.stdout + run.stderr);
  t.regex(run.json!.data.error.message, /x\/huge\.html/);
});

test('a TreeIndexStore lists skipped topics for a tree directly (what brv doctor calls)', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, { ...GOOD, 'x/deep.html': DEEP, 'x/junk.html': '<p>not a topic</p>', 'notes.txt': 'not at a topic path' });
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  const tree = (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
  const store = new TreeIndexStore(internals(brv).repo, path.join(internals(brv).repo.location.commonDir, 'brv', 'index'));
  t.deepEqual(
    (await store.skippedTopics(tree)).map((s) => [s.path, s.problem]),
    [
      ['x/deep.html', 'too-deep'],
      ['x/junk.html', 'not-a-topic'],
    ],
  );
  // From the manifest of a fresh store: the list survives the process.
  const fresh = new TreeIndexStore(internals(brv).repo, path.join(internals(brv).repo.location.commonDir, 'brv', 'index'));
  const opened = await fresh.open(tree);
  t.is(opened.build, 'cached');
  t.is(opened.skipped.length, 2);
});
