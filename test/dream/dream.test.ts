import test from 'ava';
import { execa } from 'execa';
import path from 'node:path';
import { put } from '../helpers/knowledge.js';
import { brv, brvJson, ENV, git, refTip, showTopic, tempDir } from '../helpers/repo.js';
import { brvRefs, succeeded } from '../helpers/knowledge.js';
import { blob, dreamRepo } from './setup.js';

const pair = (c: { topics: string[] }) => [...c.topics].sort().join(' ');

test('without a model: every kind is found on the fixture; links and removals are proposed as one held commit, merges and overviews need a model', async (t) => {
  const repo = await dreamRepo();
  const tip = (await refTip(repo))!;
  const data = succeeded(await brvJson(repo, ['dream']));
  const types = new Set(data.candidates.map((c: any) => c.type));
  t.deepEqual([...types].sort(), ['link', 'merge', 'prune', 'stale', 'synthesize']);
  for (const c of data.candidates.filter((c: any) => c.type === 'merge' || c.type === 'synthesize')) t.is(c.status, 'needs-model');
  t.false('usage' in data);

  const prune = data.candidates.filter((c: any) => c.type === 'prune');
  const xml = prune.find((c: any) => c.topics[0] === 'legacy/xml_api');
  t.is(xml.status, 'proposed');
  t.is(xml.files[0].state, 'deleted');
  const lint = prune.find((c: any) => c.topics[0] === 'tools/lint');
  t.is(lint.status, 'listed');
  t.is(lint.files[0].state, 'changed');
  const stale = data.candidates.find((c: any) => c.type === 'stale');
  t.deepEqual(stale.topics, ['config/tokens', 'platform/limits']);
  const link = data.candidates.find((c: any) => c.type === 'link' && pair(c) === 'security/jwt security/sessions');
  t.is(link.status, 'proposed');

  // Held: the branch did not move; the review ref holds one commit whose parent is the tip.
  t.is(await refTip(repo), tip);
  const held = (await refTip(repo, `refs/brv/review/${data.review.id}`))!;
  t.is(held, data.review.commit);
  t.is((await git(repo, 'rev-parse', `${held}^`)).trim(), tip);
  const message = await git(repo, 'log', '-1', '--format=%B', held);
  t.regex(message, /^dream: /);
  t.regex(message, /Brv-Op: dream/);
  t.regex(message, /Brv-Gate: held/);
  t.regex(message, /Brv-Proposal: prune legacy\/xml_api\.html: remove — every file it cites is gone/);
  // The linked topics name each other, through the validator's canonical form.
  const jwt = await showTopic(repo, blob('security/jwt'), held);
  t.regex(jwt!, /related="@security\/sessions\.html"/);
  t.regex((await showTopic(repo, blob('security/sessions'), held))!, /related="@security\/jwt\.html"/);
  t.is(await showTopic(repo, blob('legacy/xml_api'), held), undefined);

  // brv review pending lists it with its per-topic operations and reasons.
  const pending = succeeded(await brvJson(repo, ['review', 'pending']));
  const task = pending.tasks.find((x: any) => x.taskId === data.review.id);
  t.true(task.gated);
  const ops = Object.fromEntries(task.operations.map((o: any) => [o.path, o]));
  t.is(ops['legacy/xml_api'].type, 'DELETE');
  t.is(ops['security/jwt'].type, 'UPDATE');
  t.regex(ops['security/jwt'].reason, /^link security\/jwt\.html: update — security\/jwt ↔ security\/sessions: share distinctive terms/);

  // The text output names the review and the commands to decide it.
  const text = await brv(repo, ['dream', '--dry-run']);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /merge .*\[needs a model\]/);
  // What the held review already proposes is not proposed again.
  t.regex(text.stdout, new RegExp(`already proposed in review ${data.review.id}`));
  t.regex(text.stdout, /Nothing would be proposed\./);
});

test('--scope, --kinds and --max bound what is looked at and reported', async (t) => {
  const repo = await dreamRepo();
  const scoped = succeeded(await brvJson(repo, ['dream', '--dry-run', '--scope', 'deploy']));
  t.true(scoped.candidates.length > 0);
  t.true(scoped.candidates.every((c: any) => c.topics.every((p: string) => p.startsWith('deploy/'))));
  t.is(scoped.topics, 3);
  const kinds = succeeded(await brvJson(repo, ['dream', '--dry-run', '--kinds', 'prune,stale']));
  t.deepEqual([...new Set(kinds.candidates.map((c: any) => c.type))].sort(), ['prune', 'stale']);
  const max = succeeded(await brvJson(repo, ['dream', '--dry-run', '--max', '2']));
  t.is(max.candidates.length, 2);
  t.true(max.notes.some((n: string) => /the 2 strongest are shown/.test(n)));
  const bad = await brvJson(repo, ['dream', '--kinds', 'link,explode']);
  t.is(bad.exitCode, 2);
  t.is(bad.json?.data.error.kind, 'usage');
});

test('--dry-run writes nothing: no commit, no review ref', async (t) => {
  const repo = await dreamRepo();
  const before = await brvRefs(repo);
  const data = succeeded(await brvJson(repo, ['dream', '--dry-run']));
  t.true(data.proposals.length > 0);
  t.true(data.dryRun);
  t.false('review' in data);
  t.deepEqual(await brvRefs(repo), before);
});

test('approve lands the held proposals after an unrelated curate moved the branch; reverting that commit later undoes them', async (t) => {
  const repo = await dreamRepo();
  const data = succeeded(await brvJson(repo, ['dream', '--kinds', 'link,prune']));
  const before = await refTip(repo);
  await put(repo, 'notes/unrelated', '<bv-rule id="r1">Something else entirely.</bv-rule>');
  t.not(await refTip(repo), before);
  const approved = succeeded(await brvJson(repo, ['review', 'approve', data.review.id]));
  t.is(approved.decision, 'approved');
  t.is(await refTip(repo, `refs/brv/review/${data.review.id}`), undefined);
  t.regex((await showTopic(repo, blob('security/jwt')))!, /related="@security\/sessions\.html"/);
  t.is(await showTopic(repo, blob('legacy/xml_api')), undefined);
  t.truthy(await showTopic(repo, blob('notes/unrelated')));
  t.deepEqual(succeeded(await brvJson(repo, ['review', 'pending'])).tasks, []);

  // The dream commit is an ordinary commit of the branch's history: git revert undoes exactly it.
  const dir = path.join(await tempDir('brv-revert-'), 'wt');
  await git(repo, 'worktree', 'add', '-q', '--detach', dir, 'refs/brv/heads/main');
  await execa('git', ['revert', '--no-edit', data.review.commit], { cwd: dir, env: ENV, extendEnv: false });
  await git(dir, 'update-ref', 'refs/brv/heads/main', 'HEAD');
  t.truthy(await showTopic(repo, blob('legacy/xml_api')));
  t.notRegex((await showTopic(repo, blob('security/jwt')))!, /related=/);
  t.truthy(await showTopic(repo, blob('notes/unrelated')));
});

test('reject discards the proposals: the branch tree is as before and the review is gone', async (t) => {
  const repo = await dreamRepo();
  const tree = await git(repo, 'rev-parse', 'refs/brv/heads/main^{tree}');
  const data = succeeded(await brvJson(repo, ['dream']));
  const rejected = succeeded(await brvJson(repo, ['review', 'reject', data.review.id]));
  t.is(rejected.decision, 'rejected');
  t.is(await refTip(repo, `refs/brv/review/${data.review.id}`), undefined);
  t.is(await git(repo, 'rev-parse', 'refs/brv/heads/main^{tree}'), tree);
});

test('review.enabled false does not let dream write the branch: its proposals are still held', async (t) => {
  const repo = await dreamRepo();
  await git(repo, 'config', 'brv.review.enabled', 'false');
  const tip = await refTip(repo);
  const data = succeeded(await brvJson(repo, ['dream', '--kinds', 'prune']));
  t.is(await refTip(repo), tip);
  t.is(await refTip(repo, `refs/brv/review/${data.review.id}`), data.review.commit);
});

test('nothing to propose: no commit, and the output says so', async (t) => {
  const repo = await dreamRepo(
    {
      'a/one': '<bv-topic path="a/one" title="One"><bv-rule id="r1">Alpha beta gamma.</bv-rule></bv-topic>',
      'b/two': '<bv-topic path="b/two" title="Two"><bv-rule id="r1">Delta epsilon zeta.</bv-rule></bv-topic>',
    },
    {},
  );
  const before = await brvRefs(repo);
  const run = await brv(repo, ['dream']);
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stdout, /0 candidates, 0 proposals/);
  t.regex(run.stdout, /Nothing to consolidate: no commit was made\./);
  t.deepEqual(await brvRefs(repo), before);
  const json = succeeded(await brvJson(repo, ['dream']));
  t.deepEqual(json.proposals, []);
  t.false('review' in json);
});

test('--help explains the kinds, the held review and how to decide it', async (t) => {
  const dir = await tempDir();
  const help = await brv(dir, ['dream', '--help']);
  t.is(help.exitCode, 0);
  for (const text of [
    '--scope',
    '--kinds',
    '--max',
    '--dry-run',
    'link,merge,prune,stale,synthesize',
    'held on a review ref',
    'brv review approve <id>',
  ])
    t.true(help.stdout.includes(text), text);
  t.regex((await brv(dir, ['--help'])).stdout, /brv dream/);
});

test('a second run does not propose again what a pending dream review holds; progress goes to stderr', async (t) => {
  const repo = await dreamRepo();
  const first = succeeded(await brvJson(repo, ['dream', '--kinds', 'prune,link']));
  const run = await brv(repo, ['dream', '--kinds', 'prune,link'], { env: { BRV_PROGRESS: 'always' } });
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stderr, /Reading topics \d+\/\d+/);
  t.regex(run.stdout, new RegExp(`already proposed in review ${first.review.id}`));
  t.regex(run.stdout, /Nothing proposed: no commit was made\./);
  t.is((await git(repo, 'for-each-ref', 'refs/brv/review/')).trim().split('\n').length, 1);
});
