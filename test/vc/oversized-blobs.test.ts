import test from 'ava';
import { execa } from 'execa';
import { BlobTooLargeError } from '../../src/git/repository.js';
import type { Brv } from '../../src/service/brv.js';
import { MAX_STORED_TOPIC_BYTES } from '../../src/topic/limits.js';
import { plantTree } from '../helpers/plant.js';
import { brv, brvJson, cleanup, ENV, git, makeRepo } from '../helpers/repo.js';
import { internals, openBrv } from '../helpers/service.js';
import { request, session, startFor } from '../web/http.js';

/**
 * Issue 31, finding 4: every path that reads a topic blob (vc diff, vc show, a topic's diff, review
 * diffs and conflicts, the dashboard's endpoints, merges, curate over a planted topic) bounds it by the
 * stored-topic limit before reading: a typed `too-large` naming the topic and the limit, the blob
 * never loaded, and the other topics still answer. A 600 MB blob is the same path, measured by
 * bench/attack/oversized-blobs.ts.
 */

const topic = (path: string, title: string, body: string) =>
  `<bv-topic path="${path}" title="${title}"><bv-rule id="r1">${body}</bv-rule></bv-topic>\n`;
/** A planted topic a little over the limit (valid markup: only its size is wrong). */
const huge = (path: string) => Buffer.from(topic(path, 'Huge', 'tokens '.repeat(Math.ceil((MAX_STORED_TOPIC_BYTES + 1024) / 7))));

const BASE = {
  'auth/tokens.html': topic('auth/tokens', 'Tokens', 'Rotate access tokens every hour.'),
  'ops/deploy.html': topic('ops/deploy', 'Deploys', 'Deploy on Tuesdays only.'),
};
const CHANGED = {
  ...BASE,
  'auth/tokens.html': topic('auth/tokens', 'Tokens', 'Rotate access tokens every ten minutes.'),
  'x/huge.html': huge('x/huge'),
};

async function hashOf(repo: string, content: string | Buffer): Promise<string> {
  return (await execa('git', ['hash-object', '--stdin'], { cwd: repo, env: ENV, extendEnv: false, input: content })).stdout.trim();
}

/**
 * Records every object name read with no limit (a blob read that way is loaded whole). Reads bounded
 * by a limit (`readObjectWithin`) never hold more than the limit, so they are not recorded.
 */
function unboundedReads(b: Brv): string[] {
  const names: string[] = [];
  const repo = internals(b).repo;
  const read = repo.readObject.bind(repo);
  repo.readObject = (name: string) => {
    names.push(name);
    return read(name);
  };
  return names;
}

interface Fixture {
  repo: string;
  base: string;
  changed: string;
  hugeOid: string;
  /** An ordinary review of `changed` (auth/tokens changed, x/huge added). */
  review: string;
  /** A merge review (Brv-Conflicts) naming x/huge and auth/tokens, at the tip. */
  mergeReview: string;
}

/** base → changed (x/huge added, auth/tokens changed) → a merge commit naming both; reviews of the last two. */
async function fixture(): Promise<Fixture> {
  const repo = await makeRepo();
  const base = await plantTree(repo, BASE);
  const changed = await plantTree(repo, CHANGED, { message: 'add knowledge' });
  const merged = await plantTree(
    repo,
    { ...CHANGED, 'ops/deploy.html': topic('ops/deploy', 'Deploys', 'Deploy on Wednesdays.') },
    { message: 'merge feature\n\nBrv-Op: merge\nBrv-Type: MERGE\nBrv-Conflicts: x/huge\nBrv-Conflicts: ops/deploy' },
  );
  const review = 'a1b2c3d4e5f6';
  const mergeReview = 'f6e5d4c3b2a1';
  await git(repo, 'update-ref', `refs/brv/review/${review}`, changed);
  await git(repo, 'update-ref', `refs/brv/review/${mergeReview}`, merged);
  return { repo, base, changed, hugeOid: await hashOf(repo, huge('x/huge')), review, mergeReview };
}

const assertTooLarge = (t: import('ava').ExecutionContext, problem: { kind: string; message: string } | undefined, path = 'x/huge') => {
  t.is(problem?.kind, 'too-large', JSON.stringify(problem));
  t.true(problem!.message.includes(path), problem!.message);
  t.true(problem!.message.includes(String(MAX_STORED_TOPIC_BYTES)), problem!.message);
};

test('the reader refuses a blob over the limit from its header, and the next reads still answer in order', async (t) => {
  const { repo, hugeOid } = await fixture();
  t.teardown(() => cleanup(repo));
  const b = await openBrv(repo);
  t.teardown(() => b.close());
  const git = internals(b).repo;
  const [over, small, again] = await Promise.allSettled([
    git.readBlob(hugeOid, { maxBytes: MAX_STORED_TOPIC_BYTES }),
    git.readBlob('refs/brv/heads/main:ops/deploy.html', { maxBytes: MAX_STORED_TOPIC_BYTES }),
    git.readObjectWithin(hugeOid, 0),
  ]);
  t.is(over.status, 'rejected');
  const error = (over as PromiseRejectedResult).reason as BlobTooLargeError;
  t.true(error instanceof BlobTooLargeError);
  t.is(error.kind, 'too-large');
  t.is(error.size, huge('x/huge').length);
  t.regex(String((small as PromiseFulfilledResult<Buffer>).value), /Wednesdays/);
  t.deepEqual((again as PromiseFulfilledResult<unknown>).value, {
    oid: hugeOid,
    type: 'blob',
    size: huge('x/huge').length,
    oversized: true,
  });
  t.regex((await git.readBlob('refs/brv/heads/main:auth/tokens.html'))!.toString(), /ten minutes/);
  // Resolving a name (a ref a plain fetch may point at a blob) wants its oid only: the data is never held.
  const reads = unboundedReads(b);
  t.is(await git.resolve('refs/brv/heads/main:x/huge.html'), hugeOid);
  t.deepEqual(reads, []);
});

test('vc diff, vc show and a topic diff: the over-limit topic is a typed too-large problem, never read; the others keep their diffs', async (t) => {
  const { repo, base, changed, hugeOid } = await fixture();
  t.teardown(() => cleanup(repo));
  const b = await openBrv(repo);
  t.teardown(() => b.close());
  const reads = unboundedReads(b);

  const diff = await b.history.diff({ range: `${base}..${changed}`, patch: true });
  const byPath = new Map(diff.changes.map((c) => [c.path, c]));
  assertTooLarge(t, byPath.get('x/huge')?.problem);
  t.is(byPath.get('x/huge')?.diff, undefined);
  t.regex(byPath.get('auth/tokens')?.diff ?? '', /\+.*ten minutes/);
  t.is(byPath.get('auth/tokens')?.problem, undefined);

  const shown = await b.history.show({ spec: changed, patch: true });
  t.is(shown.kind, 'commit');
  const changes = shown.kind === 'commit' ? shown.commit.changes : [];
  assertTooLarge(t, changes.find((c) => c.path === 'x/huge')?.problem);
  t.regex(changes.find((c) => c.path === 'auth/tokens')?.diff ?? '', /ten minutes/);

  const refused = await t.throwsAsync(b.history.topicDiff({ path: 'x/huge', from: base, to: changed }));
  t.is((refused as { kind?: string }).kind, 'too-large');
  t.regex(refused!.message, /x\/huge/);
  t.is((await b.history.topicDiff({ path: 'auth/tokens', from: base, to: changed })).status, 'changed');

  t.false(
    reads.some((name) => name.includes(hugeOid) || name.endsWith(':x/huge.html')),
    'the blob was never read whole',
  );
});

test('brv vc show, vc diff and review show (the built CLI): too-large in the JSON and the text, exit 0, the other topics answer', async (t) => {
  const { repo, base, changed, mergeReview } = await fixture();
  t.teardown(() => cleanup(repo));
  const json = await brvJson(repo, ['vc', 'show', changed]);
  t.is(json.exitCode, 0, json.stderr);
  const changes = json.json!.data.changes as Array<{ path: string; diff?: string; problem?: { kind: string; message: string } }>;
  assertTooLarge(t, changes.find((c) => c.path === 'x/huge')?.problem);
  t.regex(changes.find((c) => c.path === 'auth/tokens')?.diff ?? '', /ten minutes/);
  const text = await brv(repo, ['vc', 'diff', `${base}..${changed}`]);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /not shown \(too-large\): x\/huge is \d+ bytes after this change; topics are at most \d+ bytes/);
  t.regex(text.stdout, /\+.*ten minutes/);
  const review = await brv(repo, ['review', 'show', mergeReview]);
  t.is(review.exitCode, 0, review.stderr);
  t.regex(review.stdout, /x\/huge: not shown \(too-large\): x\/huge\.html is \d+ bytes/);
  t.regex(review.stdout, /ops\/deploy: no conflict left/);
});

test("review diffs and a merge review's conflicts: the over-limit topic is reported in its place, the rest answer", async (t) => {
  const { repo, hugeOid, review, mergeReview } = await fixture();
  t.teardown(() => cleanup(repo));
  const b = await openBrv(repo);
  t.teardown(() => b.close());
  const reads = unboundedReads(b);

  const pending = await b.review.pendingWithDiffs();
  const ops = pending.tasks.find((task) => task.taskId === review)!.operations;
  const hugeOp = ops.find((op) => op.path === 'x/huge');
  t.is(hugeOp?.diff, null);
  assertTooLarge(t, hugeOp?.problem);
  t.regex(ops.find((op) => op.path === 'auth/tokens')?.diff ?? '', /ten minutes/);

  const conflicts = await b.review.conflicts({ id: mergeReview });
  const byPath = new Map(conflicts.topics.map((c) => [c.path, c]));
  assertTooLarge(t, byPath.get('x/huge')?.problem);
  t.deepEqual(byPath.get('ops/deploy')?.conflicts, []);
  t.is(byPath.get('ops/deploy')?.problem, undefined);

  t.false(
    reads.some((name) => name.includes(hugeOid) || name.endsWith(':x/huge.html')),
    'the blob was never read whole',
  );
});

test('dashboard endpoints: a typed 422 too-large for the topic itself, the topic listed with its problem where others answer; never 500', async (t) => {
  const { repo, base, changed, mergeReview } = await fixture();
  t.teardown(() => cleanup(repo));
  const server = await startFor(repo);
  t.teardown(() => server.close());
  const get = (path: string) => request(server.port, { path, headers: session(server) });

  for (const path of ['/api/topic?path=x/huge', `/api/topic/diff?path=x/huge&from=${base}&to=${changed}`]) {
    const answer = await get(path);
    t.is(answer.status, 422, `${path}: ${answer.body}`);
    t.is(answer.json?.error.kind, 'too-large', path);
    t.regex(answer.json?.error.message, /x\/huge/);
  }
  t.is((await get(`/api/topic/diff?path=auth/tokens&from=${base}&to=${changed}`)).json?.status, 'changed');

  const commit = await get(`/api/commit?rev=${changed}`);
  t.is(commit.status, 200, commit.body);
  const changes = commit.json.changes as Array<{ path: string; diff: string; problem?: { kind: string; message: string } }>;
  assertTooLarge(t, changes.find((c) => c.path === 'x/huge')?.problem);
  t.regex(changes.find((c) => c.path === 'auth/tokens')?.diff ?? '', /ten minutes/);

  const reviews = await get('/api/reviews');
  t.is(reviews.status, 200, reviews.body);
  const ops = (
    reviews.json.tasks as Array<{ operations: Array<{ path: string; diff: string | null; problem?: { kind: string; message: string } }> }>
  ).flatMap((task) => task.operations);
  assertTooLarge(t, ops.find((op) => op.path === 'x/huge')?.problem);
  t.truthy(ops.find((op) => op.path === 'auth/tokens')?.diff);

  const conflicts = await get(`/api/reviews/conflicts?id=${mergeReview}`);
  t.is(conflicts.status, 200, conflicts.body);
  assertTooLarge(
    t,
    (conflicts.json.topics as Array<{ path: string; problem?: { kind: string; message: string } }>).find((c) => c.path === 'x/huge')
      ?.problem,
  );
});

test('a merge that meets an over-limit side never loads it: the readable side is kept and the topic goes to review', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const base = await plantTree(repo, BASE);
  await git(repo, 'update-ref', 'refs/brv/heads/feature', base);
  // Theirs: ops/deploy grown over the limit; ours: an ordinary edit of it.
  await plantTree(repo, { ...BASE, 'ops/deploy.html': huge('ops/deploy') }, { ref: 'refs/brv/heads/feature', message: 'theirs' });
  const ours = topic('ops/deploy', 'Deploys', 'Deploy on Thursdays.');
  await plantTree(repo, { ...BASE, 'ops/deploy.html': ours }, { message: 'ours' });
  const b = await openBrv(repo);
  t.teardown(() => b.close());
  const reads = unboundedReads(b);
  const hugeOid = await hashOf(repo, huge('ops/deploy'));

  const result = await b.history.merge({ source: 'feature' }, { agent: 'test' });
  t.is(result.status, 'merged');
  t.deepEqual(result.conflicts, ['ops/deploy']);
  t.truthy(result.review, 'a review names the topic');
  t.is((await b.knowledge.read({ path: 'ops/deploy', raw: true })).content, ours);
  t.false(
    reads.some((name) => name.includes(hugeOid)),
    'their blob was never read whole',
  );
});

test('curate over a planted over-limit topic: refused as path-exists without loading it, replaced with overwrite', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, { ...BASE, 'x/huge.html': huge('x/huge') });
  const b = await openBrv(repo);
  t.teardown(() => b.close());
  const reads = unboundedReads(b);
  const html = topic('x/huge', 'Small again', 'Tokens live one hour.');
  const refused = await b.knowledge.curateHtml({ html, meta: { reason: 'test' } }, { agent: 'test' });
  t.false(refused.ok);
  const error = refused.ok ? undefined : refused.errors[0];
  t.is(error?.kind, 'path-exists');
  t.is(error && 'existingContent' in error ? error.existingContent : undefined, undefined, 'the huge blob is not handed to the agent');
  const written = await b.knowledge.curateHtml({ html, meta: { reason: 'test' }, overwrite: true }, { agent: 'test' });
  t.true(written.ok, JSON.stringify(written));
  t.false(
    reads.some((name) => name.endsWith(':x/huge.html')),
    'the planted blob was never read whole',
  );
  t.regex((await b.knowledge.read({ path: 'x/huge' })).content, /one hour/);
});

test('a .brv/format blob far larger than a version is refused from its header (unsupported-format), never loaded', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, BASE);
  const planted = await plantTree(repo, { ...BASE, '.brv/format': Buffer.alloc(MAX_STORED_TOPIC_BYTES + 1024, '1') });
  const b = await openBrv(repo);
  t.teardown(() => b.close());
  const reads = unboundedReads(b);
  const error = await t.throwsAsync(b.history.show({ spec: planted, patch: true }));
  t.is((error as { kind?: string }).kind, 'unsupported-format');
  t.false(
    reads.some((name) => name.endsWith(':.brv/format')),
    'the format blob was never read whole',
  );
});

test('a merge whose own side is over the limit keeps their readable version instead (never loading ours)', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const base = await plantTree(repo, BASE);
  await git(repo, 'update-ref', 'refs/brv/heads/feature', base);
  const theirs = topic('ops/deploy', 'Deploys', 'Deploy on Fridays, never.');
  await plantTree(repo, { ...BASE, 'ops/deploy.html': theirs }, { ref: 'refs/brv/heads/feature', message: 'theirs' });
  await plantTree(repo, { ...BASE, 'ops/deploy.html': huge('ops/deploy') }, { message: 'ours, planted over the limit' });
  const b = await openBrv(repo);
  t.teardown(() => b.close());
  const reads = unboundedReads(b);
  const hugeOid = await hashOf(repo, huge('ops/deploy'));
  const result = await b.history.merge({ source: 'feature' }, { agent: 'test' });
  t.deepEqual(result.conflicts, ['ops/deploy']);
  t.is((await b.knowledge.read({ path: 'ops/deploy', raw: true })).content, theirs);
  t.false(reads.some((name) => name.includes(hugeOid)));
});
