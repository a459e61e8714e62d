import test from 'ava';
import { brv, brvJson, git, makeRepo, makeWorktree, refTip, showTopic } from '../helpers/repo.js';
import { put } from '../helpers/knowledge.js';
import { validateTopicHtml } from '../../src/topic/index.js';

const rule = (text: string, id = 'r1') => `<bv-rule id="${id}">${text}</bv-rule>`;
const decision = (text: string, id = 'd1') => `<bv-decision id="${id}">${text}</bv-decision>`;

async function ok(cwd: string, args: string[]) {
  const run = await brvJson(cwd, args);
  if (run.exitCode !== 0 || !run.json?.success)
    throw new Error(`brv ${args.join(' ')} failed (${run.exitCode}): ${run.stdout} ${run.stderr}`);
  return run.json.data;
}

async function initRepo() {
  const repo = await makeRepo();
  await ok(repo, ['init']);
  return repo;
}

async function assertValidTopic(t: import('ava').ExecutionContext, repo: string, file: string) {
  const html = await showTopic(repo, file);
  t.truthy(html, `${file} exists`);
  const validation = validateTopicHtml(html!);
  t.true(validation.ok, `${file} validates: ${JSON.stringify(validation.ok ? [] : validation.errors)}`);
  return html!;
}

test('branches: create, switch per worktree, list, delete only when merged', async (t) => {
  const repo = await initRepo();
  await put(repo, 'a/one', rule('one'));
  const created = await ok(repo, ['vc', 'checkout', '-b', 'feature']);
  t.like(created, { branch: 'feature', previous: 'main', created: true });
  await put(repo, 'a/two', rule('two'));
  t.deepEqual((await ok(repo, ['ls'])).topics, ['a/one', 'a/two']);
  // Another worktree of the same repository stays on main and sees main's knowledge.
  const wt = await makeWorktree(repo, 'wt');
  t.deepEqual((await ok(wt, ['ls'])).topics, ['a/one']);
  const list = await ok(repo, ['vc', 'branch']);
  t.is(list.current, 'feature');
  t.deepEqual(
    list.branches.map((b: { branch: string }) => b.branch),
    ['feature', 'main'],
  );
  await ok(repo, ['vc', 'checkout', 'main']);
  const refused = await brvJson(repo, ['vc', 'branch', '-d', 'feature']);
  t.is(refused.json?.data.error.kind, 'branch-not-merged');
  const merged = await ok(repo, ['vc', 'merge', 'feature']);
  t.is(merged.status, 'fast-forward');
  await ok(repo, ['vc', 'branch', '-d', 'feature']);
  t.is(await refTip(repo, 'refs/brv/heads/feature'), undefined);
  const bad = await brvJson(repo, ['vc', 'checkout', 'nope']);
  t.is(bad.json?.data.error.kind, 'branch-not-found');
  const invalid = await brvJson(repo, ['vc', 'checkout', '-b', '../x']);
  t.is(invalid.json?.data.error.kind, 'invalid-branch-name');
  const tipBefore = await refTip(repo);
  for (const args of [
    ['vc', 'merge', '../../heads/main'],
    ['vc', 'merge', 'x/../main'],
    ['vc', 'branch', '-d', 'a..b'],
  ]) {
    const run = await brvJson(repo, args);
    t.is(run.json?.data.error.kind, 'invalid-branch-name', args.join(' '));
  }
  t.is(await refTip(repo), tipBefore, 'nothing written');
});

test('merge matrix: disjoint edits, overlap, add/add, modify/delete — nothing lost, every topic valid', async (t) => {
  const repo = await initRepo();
  await put(repo, 'm/disjoint', rule('base rule') + decision('base decision'), { tags: 'a' });
  await put(repo, 'm/overlap', rule('base'));
  await put(repo, 'm/moddel', rule('keep me'));
  await ok(repo, ['vc', 'branch', 'feature']);
  // main side
  await put(repo, 'm/disjoint', rule('main rule') + decision('base decision'), { tags: 'a,main' });
  await put(repo, 'm/overlap', rule('main says X'));
  await put(repo, 'm/addadd', rule('main version'));
  await put(repo, 'm/moddel', rule('keep me, improved on main'));
  // feature side
  await ok(repo, ['vc', 'checkout', 'feature']);
  await put(repo, 'm/disjoint', rule('base rule') + decision('feature decision'), { tags: 'a,feature' });
  await put(repo, 'm/overlap', rule('feature says Y'));
  await put(repo, 'm/addadd', rule('feature version'));
  await ok(repo, ['rm', 'm/moddel']);
  await ok(repo, ['vc', 'checkout', 'main']);

  const result = await ok(repo, ['vc', 'merge', 'feature']);
  t.is(result.status, 'merged');
  t.deepEqual(result.merged, ['m/disjoint']);
  t.deepEqual(result.conflicts.sort(), ['m/addadd', 'm/moddel', 'm/overlap']);
  t.truthy(result.review);

  const disjoint = await assertValidTopic(t, repo, 'm/disjoint.html');
  t.regex(disjoint, /main rule/);
  t.regex(disjoint, /feature decision/);
  t.regex(disjoint, /tags="a,main,feature"/);
  const overlap = await assertValidTopic(t, repo, 'm/overlap.html');
  t.regex(overlap, /main says X/);
  t.regex(overlap, /feature says Y/);
  t.regex(overlap, /Merge conflict/);
  t.notRegex(overlap, /<<<<<<<|>>>>>>>/);
  const addadd = await assertValidTopic(t, repo, 'm/addadd.html');
  t.regex(addadd, /main version/);
  t.regex(addadd, /feature version/);
  t.regex(await assertValidTopic(t, repo, 'm/moddel.html'), /improved on main/);

  const commit = await git(repo, 'cat-file', '-p', 'refs/brv/heads/main');
  t.is(commit.match(/^parent /gm)?.length, 2);
  t.regex(commit, /Brv-Conflicts: m\/overlap/);
  // Two reviews: the deletion made on feature (now part of main's history) and the merge itself.
  const pending = await ok(repo, ['review', 'pending']);
  t.is(pending.tasks.length, 2);
  const mergeReview = pending.tasks.find((task: { taskId: string }) => task.taskId === result.review.id);
  t.deepEqual(mergeReview.operations.map((o: { path: string }) => o.path).sort(), ['m/addadd', 'm/moddel', 'm/overlap']);
  t.true(mergeReview.operations.every((o: { type: string }) => o.type === 'MERGE'));
  // Merging again is a no-op.
  t.is((await ok(repo, ['vc', 'merge', 'feature'])).status, 'up-to-date');
});

test('a topic renamed on one side and edited on the other keeps the edit at a path that matches its file', async (t) => {
  const repo = await initRepo();
  await put(repo, 'r/old', rule('stable rule') + decision('decision v1'));
  await ok(repo, ['vc', 'branch', 'feature']);
  await put(repo, 'r/old', rule('stable rule') + decision('decision v2 on main'));
  await ok(repo, ['vc', 'checkout', 'feature']);
  await ok(repo, ['rm', 'r/old']);
  await put(repo, 'r/new', rule('stable rule') + decision('decision v1'));
  await ok(repo, ['vc', 'checkout', 'main']);
  await ok(repo, ['vc', 'merge', 'feature']);
  const files = (await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).split('\n').filter((f) => f.endsWith('.html'));
  t.true(files.length >= 1);
  let sawEdit = false;
  for (const file of files) {
    const html = await assertValidTopic(t, repo, file);
    t.true(html.includes(`path="${file.replace(/\.html$/, '')}"`), `${file} path attribute matches its location`);
    if (html.includes('decision v2 on main')) sawEdit = true;
  }
  t.true(sawEdit, 'the edit made on main survives');
});

test('review: high impact and deletions open reviews; approve closes; reject reverts onto the current tip', async (t) => {
  const repo = await initRepo();
  await put(repo, 'k/base', rule('base'));
  const high = await put(repo, 'k/risky', rule('Drop the users table on deploy.'), { meta: { impact: 'high', reason: 'cleanup' } });
  t.truthy(high.review, 'the curate envelope names the review');
  await put(repo, 'k/later', rule('An unrelated later fact.'));
  let pending = await ok(repo, ['review', 'pending']);
  t.is(pending.pendingCount, 1);
  t.like(pending.tasks[0].operations[0], { path: 'k/risky', filePath: 'k/risky.html', type: 'ADD', impact: 'high', reason: 'cleanup' });
  const id = pending.tasks[0].taskId as string;

  const rejected = await ok(repo, ['review', 'reject', id.slice(0, 6)]);
  t.like(rejected, { decision: 'rejected', taskId: id, status: 'success', totalCount: 1 });
  t.deepEqual(rejected.files, [{ path: 'k/risky.html', reverted: true }]);
  t.deepEqual((await ok(repo, ['ls'])).topics, ['k/base', 'k/later']);
  t.is(await refTip(repo, `refs/brv/review/${id}`), undefined);
  const decision = await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main');
  t.regex(decision, /^Brv-Op: review-reject$/m);
  t.regex(decision, new RegExp(`^Brv-Review: ${id}$`, 'm'));
  t.regex(decision, /^Brv-Files: k\/risky\.html$/m);

  await ok(repo, ['rm', 'k/base']);
  pending = await ok(repo, ['review', 'pending']);
  t.is(pending.tasks[0].operations[0].type, 'DELETE');
  const approved = await ok(repo, ['review', 'approve', pending.tasks[0].taskId]);
  t.is(approved.decision, 'approved');
  t.deepEqual((await ok(repo, ['ls'])).topics, ['k/later']);
  t.is((await ok(repo, ['review', 'pending'])).pendingCount, 0);
  const missing = await brvJson(repo, ['review', 'approve', 'abcdef']);
  t.is(missing.json?.data.error.kind, 'review-not-found');
});

test('review: reject --file reverts one topic and leaves the rest pending', async (t) => {
  const repo = await initRepo();
  await put(repo, 'p/a', rule('a'));
  await put(repo, 'p/b', rule('b'));
  await ok(repo, ['rm', '--recursive', 'p']);
  const { tasks } = await ok(repo, ['review', 'pending']);
  t.is(tasks[0].operations.length, 2);
  const partial = await ok(repo, ['review', 'reject', tasks[0].taskId, '--file', 'p/a']);
  t.deepEqual(partial.remaining, ['p/b.html']);
  t.deepEqual((await ok(repo, ['ls'])).topics, ['p/a']);
  const still = await ok(repo, ['review', 'pending']);
  t.deepEqual(
    still.tasks[0].operations.map((o: { path: string }) => o.path),
    ['p/b'],
  );
  await ok(repo, ['review', 'approve', tasks[0].taskId]);
  t.is((await ok(repo, ['review', 'pending'])).tasks.length, 0);
});

test('review gate: a high-impact change waits on its review ref and lands on approve', async (t) => {
  const repo = await initRepo();
  await git(repo, 'config', 'brv.review.gate', 'true');
  await put(repo, 'g/base', rule('base'));
  const held = await put(repo, 'g/held', rule('Needs a human.'), { meta: { impact: 'high' } });
  t.true(held.review?.gated);
  t.deepEqual((await ok(repo, ['ls'])).topics, ['g/base'], 'not on the branch yet');
  await put(repo, 'g/after', rule('written meanwhile'));
  const { tasks } = await ok(repo, ['review', 'pending']);
  t.true(tasks[0].gated);
  await ok(repo, ['review', 'approve', tasks[0].taskId]);
  t.deepEqual((await ok(repo, ['ls'])).topics, ['g/after', 'g/base', 'g/held']);
  await git(repo, 'config', 'brv.review.enabled', 'false');
  const quiet = await put(repo, 'g/quiet', rule('x'), { meta: { impact: 'high' } });
  t.falsy(quiet.review);
});

test('log, diff and show speak in topics', async (t) => {
  const repo = await initRepo();
  await put(repo, 'd/topic', rule('first version'));
  await put(repo, 'd/other', rule('other'));
  await put(repo, 'd/topic', rule('second version'));
  const log = await ok(repo, ['vc', 'log', '-n', '2']);
  t.is(log.entries.length, 2);
  t.is(log.entries[0].meta.type, 'UPDATE');
  const byPath = await ok(repo, ['vc', 'log', 'd/topic']);
  t.is(byPath.entries.length, 2);
  const diff = await ok(repo, ['vc', 'diff']);
  t.is(diff.changes.length, 1);
  t.like(diff.changes[0], { status: 'changed', path: 'd/topic' });
  t.regex(diff.changes[0].diff, /^-.*first version/m);
  t.regex(diff.changes[0].diff, /^\+.*second version/m);
  const range = await ok(repo, ['vc', 'diff', 'main~3..main', '--stat']);
  t.deepEqual(
    range.changes.map((c: { status: string; path: string }) => `${c.status} ${c.path}`),
    ['added d/other', 'added d/topic'],
  );
  const show = await ok(repo, ['vc', 'show', 'main~1']);
  t.is(show.changes[0].path, 'd/other');
  const old = await ok(repo, ['vc', 'show', 'main~2:d/topic']);
  t.regex(old.content, /first version/);
  const text = await brv(repo, ['vc', 'diff']);
  t.regex(text.stdout, /changed\s+d\/topic/);
  const status = await ok(repo, ['vc', 'status']);
  t.like(status, { branch: 'main', openReviews: 0 });
  await ok(repo, ['vc', 'config', 'user.name', 'Grace']);
  t.is((await ok(repo, ['vc', 'config', 'user.name'])).value, 'Grace');
  t.is(await git(repo, 'config', 'user.name'), 'Grace');
  const notBrv = await brvJson(repo, ['vc', 'show', await git(repo, 'rev-parse', 'HEAD')]);
  t.is(notBrv.json?.data.error.kind, 'not-a-brv-commit');
});
