import test from 'ava';
import { execa } from 'execa';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, brv, brvJson, git, refTip, tempDir } from '../helpers/repo.js';
import { put, rule, sharedClones, succeeded } from '../helpers/knowledge.js';
import { plantTree } from '../helpers/plant.js';
import { holdRule } from '../../src/vc/removal.js';

// Issue 31, finding 5: a pull never silently takes knowledge away. Teammate A removes many topics
// and pushes; B's pull, sync and plain `git pull` (hooks installed) hold the change as a review that
// names what it removes, B's topics still answer, and approve (or reject) settles it.

const topicHtml = (p: string, text: string) => `<bv-topic path="${p}" title="Topic ${p}"><bv-rule id="r1">${text}</bv-rule></bv-topic>`;
const emptyHtml = (p: string) => `<bv-topic path="${p}" title="Topic ${p}"></bv-topic>`;

/** The topics A starts with besides security/auth: zoo/t0 … zoo/t12 (14 topics in all). */
const ZOO = Array.from({ length: 13 }, (_, i) => `zoo/t${i}`);
const full = () => Object.fromEntries(ZOO.map((p, i) => [`${p}.html`, topicHtml(p, `Zebras rule number ${i} of the zoo.`)]));
const auth = { 'security/auth.html': topicHtml('security/auth', 'Use RS256.') };

test('a pull, sync or git pull that removes many topics is held as a review naming them; approve or reject settles it', async (t) => {
  const { a, b, bare } = await sharedClones();
  await plantTree(a, { ...auth, ...full() });
  succeeded(await brvJson(a, ['vc', 'push']));
  const first = succeeded(await brvJson(b, ['vc', 'pull']));
  t.is(first.merge.status, 'fast-forward');

  // B learns something of its own (so B's pull is a merge), A deletes 13 of the 14 topics and pushes.
  await put(b, 'local/note', rule('Only B knows this.'));
  const bTip = await refTip(b);
  await plantTree(a, auth);
  succeeded(await brvJson(a, ['vc', 'push']));

  const pull = succeeded(await brvJson(b, ['vc', 'pull']));
  t.is(pull.merge.status, 'held');
  t.deepEqual([...pull.merge.removed.deleted].sort(), [...ZOO].sort());
  t.like(pull.merge.held, { opened: true, source: 'origin/main', topics: 15, rule: 'more than 10 topics' });
  const id = pull.merge.held.id as string;
  t.is(await refTip(b), bTip, 'the local branch did not move');
  // B's agents still find the knowledge.
  t.regex(succeeded(await brvJson(b, ['read', 'zoo/t3'])).content, /Zebras rule number 3/);
  t.true(succeeded(await brvJson(b, ['query', 'zebras zoo'])).matchedDocs.length >= 10);

  // Listed for review, named; the same incoming tip is held once; sync pushes nothing, exit 0.
  const pending = await brv(b, ['review', 'pending']);
  t.regex(pending.stdout, new RegExp(`${id} .*hold: origin/main would remove 13 of 15 topics`));
  t.regex(pending.stdout, /DELETE zoo\/t0/);
  t.regex(pending.stdout, /A held pull \(hold: …\) is decided whole: approve takes it, reject keeps the topics/);
  t.regex(pending.stdout, /reason: deletes zoo\/t0, zoo\/t1, .* and 5 more/);
  const show = await brv(b, ['review', 'show', id]);
  t.regex(show.stdout, /held for brv branch main: nothing of it is applied yet\.\n\nIt deletes 13 of the 15 topics:\n {2}zoo\/t0\n/);
  t.regex(show.stdout, /\n {2}zoo\/t9\n/);
  const again = await brv(b, ['vc', 'pull']);
  t.is(again.exitCode, 0, again.stderr);
  t.regex(again.stdout, new RegExp(`Still held: origin/main would remove 13 of 15 topics \\(more than 10 topics\\).*Review ${id}\\.`));
  t.regex(again.stdout, /deleted: zoo\/t0, .* and 3 more/);
  const sync = succeeded(await brvJson(b, ['sync']));
  t.like(sync, { merge: { status: 'held', held: { id, opened: false } }, push: { skipped: 'held', refs: [] } });
  const syncText = await brv(b, ['sync']);
  t.is(syncText.exitCode, 0);
  t.regex(syncText.stdout, /Nothing pushed to origin until the review is decided/);
  const merge = succeeded(await brvJson(b, ['vc', 'merge', 'origin/main']));
  t.like(merge, { status: 'held', held: { id, opened: false } }, 'a merge of the remote branch is held too');
  t.is(succeeded(await brvJson(b, ['review', 'pending'])).tasks.length, 1);
  t.is(await git(bare, 'for-each-ref', 'refs/brv/review/'), '', 'a hold is never pushed');
  const push = await brvJson(b, ['vc', 'push']);
  t.is(push.json?.data.error.kind, 'incoming-held');
  t.regex(
    (await brv(b, ['vc', 'status'])).stdout,
    new RegExp(`Held for review ${id}: origin/main would remove 13 of 15 topics \\(more than 10 topics\\)\\. Decide`),
  );
  const doctor = await brvJson(b, ['doctor']);
  t.true((doctor.json?.data.checks as Array<{ name: string; message: string }>).some((c) => c.name === 'sync' && c.message.includes(id)));

  // Reject keeps B's topics (and B's own note), records A's history; the next sync restores them on the remote.
  const rejected = succeeded(await brvJson(b, ['review', 'reject', id]));
  t.is(rejected.totalCount, 13);
  const restored = succeeded(await brvJson(b, ['sync']));
  t.is(restored.merge.status, 'up-to-date');
  t.is(restored.push.refs[0].status, 'ok');
  t.is(succeeded(await brvJson(b, ['review', 'pending'])).tasks.length, 0);
  const back = succeeded(await brvJson(a, ['vc', 'pull']));
  t.is(back.merge.status, 'fast-forward');
  t.is(succeeded(await brvJson(a, ['ls'])).topics.length, 15);

  // A empties 12 topics and pushes with code; B runs a plain `git pull` with brv's hooks installed.
  const bin = await tempDir('brv-bin-');
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec node "${CLI}" "$@"\n`);
  await chmod(path.join(bin, 'brv'), 0o755);
  const env = { ...ENV, PATH: `${bin}${path.delimiter}${ENV.PATH}` };
  succeeded(await brvJson(b, ['hooks', 'install'], { env }));
  const emptied = ZOO.slice(0, 12);
  await plantTree(a, {
    ...auth,
    ...full(),
    'local/note.html': (await git(a, 'show', 'refs/brv/heads/main:local/note.html')) + '\n',
    ...Object.fromEntries(emptied.map((p) => [`${p}.html`, emptyHtml(p)])),
  });
  succeeded(await brvJson(a, ['vc', 'push']));
  await writeFile(path.join(a, 'code.txt'), 'v2\n');
  await git(a, 'add', 'code.txt');
  await git(a, 'commit', '-q', '-m', 'code');
  await git(a, 'push', '-q', 'origin', 'main');
  const before = await refTip(b);
  const gitPull = await execa('git', ['pull', '-q', '--no-rebase'], { cwd: b, env, extendEnv: false, reject: false });
  t.is(gitPull.exitCode, 0, gitPull.stderr);
  t.is(await refTip(b), before, 'the hook held it');
  t.regex(gitPull.stderr, /brv: Held: origin\/main would remove 12 of 15 topics/);
  t.regex(gitPull.stderr, /brv: {3}emptied: zoo\/t0, .* and 2 more/);
  t.regex(succeeded(await brvJson(b, ['read', 'zoo/t5'])).content, /Zebras rule number 5/);

  // A pushes more while it is held: the newer tip replaces the hold (one review, not two).
  const earlier = succeeded(await brvJson(b, ['review', 'pending'])).tasks[0].taskId as string;
  await plantTree(a, { 'local/note.html': topicHtml('local/note', 'Only B knows this.') });
  succeeded(await brvJson(a, ['vc', 'push']));
  const newer = succeeded(await brvJson(b, ['vc', 'pull']));
  t.like(newer.merge, { status: 'held', held: { opened: true, topics: 15 } });
  t.is(newer.merge.removed.deleted.length, 14);
  const hold = newer.merge.held.id as string;
  t.not(hold, earlier);
  t.deepEqual(
    succeeded(await brvJson(b, ['review', 'pending'])).tasks.map((task: { taskId: string }) => task.taskId),
    [hold],
  );

  // Approve lands it: B now has exactly A's tip.
  succeeded(await brvJson(b, ['review', 'approve', hold]));
  t.is(await refTip(b), await refTip(a));
  t.is(succeeded(await brvJson(b, ['review', 'pending'])).tasks.length, 0);

  // Under the limits a removal applies, and sync lists it (text and JSON).
  await plantTree(a, { ...auth, ...full(), 'local/note.html': topicHtml('local/note', 'Only B knows this.') });
  succeeded(await brvJson(a, ['vc', 'push']));
  t.deepEqual(succeeded(await brvJson(b, ['sync'])).merge.removed, { deleted: [], emptied: [] }, 'it only adds');
  const { 'zoo/t11.html': _gone, 'zoo/t12.html': _gone2, ...fewer } = full();
  await plantTree(a, { ...auth, ...fewer, 'local/note.html': topicHtml('local/note', 'Only B knows this.') });
  succeeded(await brvJson(a, ['vc', 'push']));
  const small = await brv(b, ['sync']);
  t.is(small.exitCode, 0, small.stderr);
  t.regex(small.stdout, /Fast-forwarded to origin\/main .*\nIt removes 2 topics:\n {2}deleted: zoo\/t11, zoo\/t12/);
  t.is(await refTip(b), await refTip(a));
});

test('the hold rule: more than the limit, more than the share (of more than one topic), or every topic', (t) => {
  const policy = { hold: true, limit: 10, share: 20 };
  const removing = (n: number, topics: number) => ({ deleted: Array.from({ length: n }, (_, i) => `d/t${i}`), emptied: [], topics });
  t.is(holdRule(removing(0, 3), policy), undefined);
  t.is(holdRule(removing(1, 3), policy), undefined, 'one stale topic of a young tree is ordinary');
  t.is(holdRule(removing(2, 3), policy), 'more than 20 % of the 3 topics');
  t.is(holdRule(removing(1, 1), policy), 'every topic');
  t.is(holdRule(removing(2, 10), policy), undefined, '20 % is not more than 20 %');
  t.is(holdRule(removing(3, 10), policy), 'more than 20 % of the 10 topics');
  t.is(holdRule(removing(10, 10_000), policy), undefined);
  t.is(holdRule(removing(11, 10_000), policy), 'more than 10 topics');
  t.truthy(holdRule(removing(1, 100), { ...policy, limit: 0 }));
  t.is(holdRule(removing(5, 5), { ...policy, hold: false }), undefined);
  t.is(holdRule(removing(9, 10), { ...policy, share: 100 }), undefined);
});
