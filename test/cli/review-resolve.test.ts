import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { put } from '../helpers/knowledge.js';
import { highImpactReview } from '../helpers/merge-review.js';
import { brv, brvJson, git, makeRepo, refTip, showTopic, tempDir } from '../helpers/repo.js';

const rule = (text: string, id = 'r1') => `<bv-rule id="${id}">${text}</bv-rule>`;

async function ok(cwd: string, args: string[], env?: Record<string, string>) {
  const run = await brvJson(cwd, args, env ? { env } : {});
  if (run.exitCode !== 0 || !run.json?.success)
    throw new Error(`brv ${args.join(' ')} failed (${run.exitCode}): ${run.stdout} ${run.stderr}`);
  return run.json.data;
}

/** main and feature both change rule r1 and r2 of ops/deploy differently; feature is merged into main: one merge review. */
async function conflictedMerge(): Promise<{ repo: string; id: string }> {
  const repo = await makeRepo();
  await put(repo, 'ops/deploy', rule('Base one.') + rule('Base two.', 'r2'), { title: 'Deploys' });
  await ok(repo, ['vc', 'checkout', '-b', 'feature']);
  await put(repo, 'ops/deploy', rule('Theirs one.') + rule('Theirs two.', 'r2'), { title: 'Deploys' });
  await ok(repo, ['vc', 'checkout', 'main']);
  await put(repo, 'ops/deploy', rule('Ours one.') + rule('Ours two.', 'r2'), { title: 'Deploys' });
  const merged = await ok(repo, ['vc', 'merge', 'feature']);
  if (!merged.review?.id) throw new Error(`no review opened: ${JSON.stringify(merged)}`);
  return { repo, id: merged.review.id };
}

test('review show lists the conflicts of a merge review with both versions', async (t) => {
  const { repo, id } = await conflictedMerge();
  const shown = await ok(repo, ['review', 'show', id]);
  t.is(shown.taskId, id);
  t.is(shown.topics.length, 1);
  const [topic] = shown.topics;
  t.is(topic.path, 'ops/deploy');
  t.deepEqual(
    topic.conflicts.map((c: { section: string }) => c.section),
    ['bv-rule#r1', 'bv-rule#r2'],
  );
  t.regex(topic.conflicts[0].ours, /Ours one\./);
  t.notRegex(topic.conflicts[0].ours, /Merge conflict/, 'markers are not part of a version');
  t.regex(topic.conflicts[0].theirs, /Theirs one\./);
  const text = await brv(repo, ['review', 'show', id.slice(0, 8)]);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /ops\/deploy: 2 conflict\(s\)/);
  t.regex(text.stdout, /bv-rule#r1: changed differently on both sides/);
  t.regex(text.stdout, /ours:\n\s+<bv-rule id="r1">Ours one\.<\/bv-rule>/);
  t.regex(text.stdout, /brv review resolve/);
});

test('approving a merge review with unresolved conflict notes is refused unless --keep-both', async (t) => {
  const { repo, id } = await conflictedMerge();
  const tip = await refTip(repo);
  const refused = await brvJson(repo, ['review', 'approve', id]);
  t.is(refused.exitCode, 1);
  t.is(refused.json?.data.error.kind, 'unresolved-conflicts');
  t.regex(refused.json!.data.error.message, /--keep-both/);
  t.is(await refTip(repo), tip, 'nothing was recorded');
  const kept = await ok(repo, ['review', 'approve', id, '--keep-both']);
  t.is(kept.decision, 'approved');
  t.regex((await showTopic(repo, 'ops/deploy.html'))!, /Merge conflict/, 'both versions stay, as asked');
  t.deepEqual((await ok(repo, ['review', 'pending'])).tasks, []);
});

test('review resolve keeps ours, theirs or both per section, then approve goes through', async (t) => {
  const { repo, id } = await conflictedMerge();
  const first = await ok(repo, ['review', 'resolve', id, 'ops/deploy', '--section', 'bv-rule#r1', '--theirs']);
  t.like(first, { taskId: id, path: 'ops/deploy', side: 'theirs', resolved: ['bv-rule#r1'], remaining: ['bv-rule#r2'] });
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /^Brv-Op: review-resolve$/m);
  let html = (await showTopic(repo, 'ops/deploy.html'))!;
  t.regex(html, /<bv-rule id="r1">Theirs one\.<\/bv-rule>/, 'theirs kept, under the original id');
  t.notRegex(html, /Ours one/);
  t.regex(html, /Merge conflict/, 'r2 is still marked');
  t.is((await brvJson(repo, ['review', 'approve', id])).json?.data.error.kind, 'unresolved-conflicts');

  const none = await brvJson(repo, ['review', 'resolve', id, 'ops/deploy', '--section', 'bv-rule#r1', '--ours']);
  t.is(none.json?.data.error.kind, 'no-conflict');
  const two = await brv(repo, ['review', 'resolve', id, 'ops/deploy', '--ours', '--theirs']);
  t.is(two.exitCode, 2, 'exactly one way to resolve');

  const text = await brv(repo, ['review', 'resolve', id, 'ops/deploy', '--both']);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /Resolved bv-rule#r2 in ops\/deploy \(kept both\)/);
  t.regex(text.stdout, /no conflict left/);
  html = (await showTopic(repo, 'ops/deploy.html'))!;
  t.notRegex(html, /Merge conflict/, 'markers and the note are gone');
  t.regex(html, /Ours two\./);
  t.regex(html, /Theirs two\./);
  t.deepEqual((await ok(repo, ['review', 'show', id])).topics[0].conflicts, []);
  t.like(await ok(repo, ['review', 'approve', id]), { decision: 'approved', taskId: id });
});

test('review resolve --ours on the whole topic, and --edit through the editor', async (t) => {
  const { repo, id } = await conflictedMerge();
  await ok(repo, ['review', 'resolve', id, 'ops/deploy', '--ours']);
  const html = (await showTopic(repo, 'ops/deploy.html'))!;
  t.notRegex(html, /Merge conflict|Theirs/);
  t.regex(html, /Ours one\.[\s\S]*Ours two\./);

  const other = await conflictedMerge();
  const script = path.join(await tempDir('brv-editor-'), 'editor.sh');
  // The person rewrites the topic by hand: no note, no markers.
  await writeFile(
    script,
    `#!/bin/sh\nprintf '%s' '<bv-topic path="ops/deploy" title="Deploys"><bv-rule id="r1">Combined.</bv-rule></bv-topic>' > "$1"\n`,
  );
  await chmod(script, 0o755);
  const edited = await ok(other.repo, ['review', 'resolve', other.id, 'ops/deploy', '--edit'], { EDITOR: script });
  t.like(edited, { ok: true, unchanged: false });
  t.regex((await showTopic(other.repo, 'ops/deploy.html'))!, /Combined\./);
  t.like(await ok(other.repo, ['review', 'approve', other.id]), { decision: 'approved' });
});

test('review resolve: a title changed on both sides takes theirs with --theirs', async (t) => {
  const repo = await makeRepo();
  await put(repo, 'ops/deploy', rule('Base.'), { title: 'Deploys' });
  await ok(repo, ['vc', 'checkout', '-b', 'feature']);
  await put(repo, 'ops/deploy', rule('Base.'), { title: 'Shipping' });
  await ok(repo, ['vc', 'checkout', 'main']);
  await put(repo, 'ops/deploy', rule('Base.'), { title: 'Releases' });
  const { review } = await ok(repo, ['vc', 'merge', 'feature']);
  const conflicts = (await ok(repo, ['review', 'show', review.id])).topics[0].conflicts;
  t.deepEqual(
    conflicts.map((c: { section: string }) => c.section),
    ['title'],
  );
  const resolved = await ok(repo, ['review', 'resolve', review.id, 'ops/deploy', '--section', 'title', '--theirs']);
  t.deepEqual(resolved.remaining, []);
  const html = (await showTopic(repo, 'ops/deploy.html'))!;
  t.regex(html, /title="Shipping"/);
  t.notRegex(html, /Merge conflict/);
  t.like(await ok(repo, ['review', 'approve', review.id]), { decision: 'approved' });
});

test('review reject that conflicts with a later edit reports a conflict and opens a merge review; a clean reject succeeds', async (t) => {
  const repo = await makeRepo();
  await put(repo, 'ops/deploy', rule('Base deploy.'));
  await put(repo, 'ops/other', rule('Base other.'));
  const id = await highImpactReview(repo, 'ops/deploy', 'Risky deploy.');
  const clean = await highImpactReview(repo, 'ops/other', 'Risky other.');
  await put(repo, 'ops/deploy', rule('Later deploy.')); // the same section, edited after the reviewed change

  const tip = await refTip(repo);
  const rejected = await brvJson(repo, ['review', 'reject', id]);
  t.is(rejected.exitCode, 1, 'a conflict is not reported as success');
  t.false(rejected.json?.success);
  const data = rejected.json!.data;
  t.like(data, { decision: 'rejected', taskId: id, status: 'conflict', conflicts: ['ops/deploy'] });
  t.is(data.error.kind, 'reject-conflict');
  t.regex(data.error.message, /brv review resolve/);
  t.deepEqual(data.files, [{ path: 'ops/deploy.html', reverted: false }]);
  const conflictId: string = data.review?.id;
  t.truthy(conflictId, 'a merge review is open to resolve it');
  t.not(await refTip(repo), tip, 'the decision is recorded');
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /^Brv-Conflicts: ops\/deploy$/m);

  const pending = await ok(repo, ['review', 'pending']);
  const open = pending.tasks.map((task: { taskId: string; operations: Array<{ type: string; path: string }> }) => ({
    id: task.taskId,
    ops: task.operations.map((o) => `${o.type} ${o.path}`),
  }));
  t.deepEqual(open.find((o: { id: string }) => o.id === conflictId)?.ops, ['MERGE ops/deploy']);
  t.falsy(
    open.find((o: { id: string }) => o.id === id),
    'the rejected review is decided',
  );
  const shown = await ok(repo, ['review', 'show', conflictId]);
  t.deepEqual(
    shown.topics[0].conflicts.map((c: { section: string }) => c.section),
    ['bv-rule#r1'],
  );
  t.regex(shown.topics[0].conflicts[0].ours, /Later deploy\./);
  t.regex(shown.topics[0].conflicts[0].theirs, /Base deploy\./);
  t.is(
    (await brvJson(repo, ['review', 'approve', conflictId])).json?.data.error.kind,
    'unresolved-conflicts',
    'markers are never blessed unseen',
  );

  await ok(repo, ['review', 'resolve', conflictId, 'ops/deploy', '--theirs']);
  await ok(repo, ['review', 'approve', conflictId]);
  const html = (await showTopic(repo, 'ops/deploy.html'))!;
  t.regex(html, /Base deploy\./);
  t.notRegex(html, /Merge conflict|Later deploy|Risky deploy/);

  const text = await brv(repo, ['review', 'reject', clean]);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /^Rejected 1 change\(s\)/);
  t.regex(text.stdout, /ops\/other\.html \(reverted\)/);
  t.notRegex(text.stdout, /Conflict/);
  t.regex((await showTopic(repo, 'ops/other.html'))!, /Base other\./);
});

test('review reject with a conflict, in text: says conflict and how to resolve, exit 1', async (t) => {
  const repo = await makeRepo();
  await put(repo, 'ops/deploy', rule('Base deploy.'));
  const id = await highImpactReview(repo, 'ops/deploy', 'Risky deploy.');
  await put(repo, 'ops/deploy', rule('Later deploy.'));
  const run = await brv(repo, ['review', 'reject', id]);
  t.is(run.exitCode, 1);
  t.regex(run.stdout, /ops\/deploy\.html \(conflict: kept for review\)/);
  t.regex(run.stdout, /Conflict: a later change edited what review \w+ changed/);
  t.regex(run.stdout, /brv review resolve \w+ <topic> --ours\|--theirs\|--both\|--edit/);
  t.notRegex(run.stdout, /\(reverted\)/);
});

test('review reject of a topic added then edited since keeps the edit and is a conflict, approved as it is', async (t) => {
  const repo = await makeRepo();
  const id = await highImpactReview(repo, 'ops/new', 'Added by the reviewed change.');
  await put(repo, 'ops/new', rule('Edited since.'));
  const rejected = await brvJson(repo, ['review', 'reject', id]);
  t.is(rejected.exitCode, 1);
  t.like(rejected.json?.data, { status: 'conflict', conflicts: ['ops/new'], error: { kind: 'reject-conflict' } });
  const html = (await showTopic(repo, 'ops/new.html'))!;
  t.regex(html, /Edited since\./, 'the later edit is not thrown away');
  t.notRegex(html, /Merge conflict/);
  const approved = await ok(repo, ['review', 'approve', rejected.json!.data.review.id]);
  t.is(approved.decision, 'approved');
  t.deepEqual((await ok(repo, ['review', 'pending'])).tasks, []);
});
