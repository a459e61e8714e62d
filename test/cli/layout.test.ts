import test from 'ava';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, brvJson, git } from '../helpers/repo.js';
import { brvRefs, put, rule, succeeded, twoClones } from '../helpers/knowledge.js';

// Hosts that accept only branches and tags (issue 32, point 6): the `branches` layout keeps knowledge
// on ordinary branches brv/<branch> and brv-review/<id> of such a remote, chosen per remote.

/** A bare remote whose `update` hook refuses every ref outside refs/heads/ and refs/tags/, as such hosts do. */
async function branchesOnly(bare: string): Promise<void> {
  const hook = path.join(bare, 'hooks', 'update');
  await writeFile(
    hook,
    '#!/bin/sh\ncase "$1" in refs/heads/*|refs/tags/*) exit 0 ;; esac\necho "this host accepts branches and tags only, not $1" >&2\nexit 1\n',
  );
  await chmod(hook, 0o755);
}

/** Every ref of a repository, as "oid ref" lines. */
async function allRefs(repo: string): Promise<string[]> {
  return (await git(repo, 'for-each-ref', '--format=%(objectname) %(refname)')).split('\n').filter(Boolean);
}

const BRANCHES_REFSPECS = [
  '+refs/heads/brv/*:refs/brv/remotes/origin/heads/*',
  '+refs/heads/brv-review/*:refs/brv/remotes/origin/review/*',
];
const REFS_REFSPECS = ['+refs/brv/heads/*:refs/brv/remotes/origin/heads/*', '+refs/brv/review/*:refs/brv/remotes/origin/review/*'];

test('a host that refuses refs/brv/*: push-refused names the branches layout; with it two clones share knowledge and reviews', async (t) => {
  const { root, bare, a, b } = await twoClones();
  await branchesOnly(bare);
  succeeded(await brvJson(a, ['init', '--track', 'origin']));
  await put(a, 'security/auth', rule('Use RS256.'));

  // The default layout: refused, with the host's words and the way out.
  for (const args of [['vc', 'push', 'origin'], ['sync']]) {
    const refused = await brvJson(a, args);
    t.is(refused.json?.data.error.kind, 'push-refused', args.join(' '));
    t.regex(refused.json?.data.error.message, /accepts branches and tags only/, `${args.join(' ')}: the host's words`);
    t.regex(refused.json?.data.error.message, /brv vc remote set-layout origin branches/, `${args.join(' ')}: names the option`);
  }
  const text = await brv(a, ['vc', 'push', 'origin']);
  t.regex(text.stderr, /brv vc remote set-layout origin branches/);

  // Switch: config per remote, the tracked refspecs follow (the old ones would clash in git fetch).
  const switched = succeeded(await brvJson(a, ['vc', 'remote', 'set-layout', 'origin', 'branches']));
  t.like(switched, { action: 'set-layout', name: 'origin', layout: 'branches', previous: 'refs' });
  t.is(await git(a, 'config', 'remote.origin.brvLayout'), 'branches');
  const fetchSpecs = (await git(a, 'config', '--get-all', 'remote.origin.fetch')).split('\n');
  t.deepEqual(fetchSpecs, ['+refs/heads/*:refs/remotes/origin/*', ...BRANCHES_REFSPECS]);
  t.deepEqual(
    succeeded(await brvJson(a, ['vc', 'remote'])).remotes.map((r: { name: string; layout: string }) => [r.name, r.layout]),
    [['origin', 'branches']],
  );
  t.regex((await brv(a, ['vc', 'remote'])).stdout, /origin\t.*knowledge on branches/);

  // Push: knowledge and a review on ordinary branches; nothing under refs/brv/ on the remote.
  const high = await put(a, 'ops/prod', rule('Deploys need two approvals.'), { meta: { impact: 'high', reason: 'policy' } });
  const pushed = succeeded(await brvJson(a, ['vc', 'push', '-u']));
  t.true(pushed.upstreamSet);
  t.like(
    pushed.refs.find((r: { ref: string }) => r.ref === 'refs/brv/heads/main'),
    { status: 'ok', remoteRef: 'refs/heads/brv/main' },
  );
  t.deepEqual(await brvRefs(bare), []);
  const tip = await git(a, 'rev-parse', 'refs/brv/heads/main');
  t.is(await git(bare, 'rev-parse', 'refs/heads/brv/main'), tip);
  t.is(
    await git(bare, 'rev-parse', `refs/heads/brv-review/${high.review.id}`),
    high.commit ?? (await git(a, 'rev-parse', `refs/brv/review/${high.review.id}`)),
  );
  t.is(await git(a, 'rev-parse', 'refs/brv/remotes/origin/heads/main'), tip, 'remote-tracking refs stay where they always are');

  // brv vc clone finds the layout by itself: knowledge, the review, the config.
  const cloned = succeeded(await brvJson(root, ['vc', 'clone', bare, 'b']));
  t.like(cloned, { layout: 'branches', branches: ['main'], reviews: [high.review.id] });
  t.is(await git(b, 'config', 'remote.origin.brvLayout'), 'branches');
  t.deepEqual(succeeded(await brvJson(b, ['ls'])).topics.sort(), ['ops/prod', 'security/auth']);
  t.deepEqual((await git(b, 'config', '--get-all', 'remote.origin.fetch')).split('\n').slice(1), BRANCHES_REFSPECS);

  // Both ways through sync; the review decided in b is closed on the remote and then in a.
  await put(b, 'db/migrations', rule('Never edit an applied migration.'));
  succeeded(await brvJson(b, ['review', 'approve', high.review.id]));
  succeeded(await brvJson(b, ['sync']));
  t.false(
    (await allRefs(bare)).some((r) => r.includes('brv-review/')),
    'the decided review is gone from the remote',
  );
  await put(a, 'api/errors', rule('Return problem+json.'));
  // A push behind the remote's branch is a non-fast-forward (a race to retry), not a refusal.
  t.is((await brvJson(a, ['vc', 'push'])).json?.data.error.kind, 'non-fast-forward');
  const synced = succeeded(await brvJson(a, ['sync']));
  t.is(synced.merge.status, 'merged');
  t.deepEqual(synced.fetch.reviews.closed, [high.review.id]);
  succeeded(await brvJson(b, ['sync']));
  for (const clone of [a, b])
    t.deepEqual(succeeded(await brvJson(clone, ['ls'])).topics.sort(), ['api/errors', 'db/migrations', 'ops/prod', 'security/auth']);
  t.is(await git(b, 'rev-parse', 'refs/brv/heads/main'), await git(a, 'rev-parse', 'refs/brv/heads/main'));

  // A plain git fetch with the tracked refspecs brings knowledge (and, through git's default refspec,
  // the branches into refs/remotes/origin/brv/ too: the trade-off the README states).
  await put(b, 'ops/oncall', rule('Page the secondary after 15 minutes.'));
  succeeded(await brvJson(b, ['vc', 'push']));
  await git(a, 'fetch', '-q', 'origin');
  const bTip = await git(b, 'rev-parse', 'refs/brv/heads/main');
  t.is(await git(a, 'rev-parse', 'refs/brv/remotes/origin/heads/main'), bTip);
  t.is(await git(a, 'rev-parse', 'refs/remotes/origin/brv/main'), bTip);
  t.deepEqual(await brvRefs(bare), []);
  await git(bare, 'fsck', '--strict');
});

test('vc clone --layout, vc remote add --layout, init --track --layout, found by the first fetch of a plain clone; a bad layout value is a typed error', async (t) => {
  const { root, bare, a } = await twoClones();
  await branchesOnly(bare);
  succeeded(await brvJson(a, ['init']));
  await put(a, 'security/auth', rule('Use RS256.'));
  // init --track --layout sets both at once.
  const init = succeeded(await brvJson(a, ['init', '--track', 'origin', '--layout', 'branches']));
  t.like(init.tracked, { remote: 'origin', layout: 'branches', added: BRANCHES_REFSPECS });
  succeeded(await brvJson(a, ['vc', 'push']));

  // vc remote add --layout: a second remote on the same host.
  const added = succeeded(await brvJson(a, ['vc', 'remote', 'add', 'mirror', bare, '--layout', 'branches']));
  t.like(added, { name: 'mirror', layout: 'branches' });
  t.deepEqual(
    added.tracked,
    BRANCHES_REFSPECS.map((r) => r.replace('/origin/', '/mirror/')),
  );
  t.like(succeeded(await brvJson(a, ['vc', 'fetch', 'mirror'])), { branches: [{ branch: 'main' }], refused: [] });

  // An explicit layout wins over detection, both ways.
  const explicit = succeeded(await brvJson(root, ['vc', 'clone', '--layout', 'branches', bare, 'c']));
  t.like(explicit, { layout: 'branches', branches: ['main'] });
  const asRefs = succeeded(await brvJson(root, ['vc', 'clone', '--layout', 'refs', bare, 'd']));
  t.like(asRefs, { layout: 'refs', branches: [] });
  t.deepEqual((await git(path.join(root, 'd'), 'config', '--get-all', 'remote.origin.fetch')).split('\n').slice(1), REFS_REFSPECS);

  // A plain git clone: the first brv vc fetch finds the layout, says so, and brings the knowledge.
  const plain = path.join(root, 'e');
  await git(root, 'clone', '-q', bare, plain);
  const found = succeeded(await brvJson(plain, ['vc', 'fetch']));
  t.like(found, { layoutFound: 'branches', branches: [{ branch: 'main' }], createdBranches: ['main'] });
  t.is(await git(plain, 'config', 'remote.origin.brvLayout'), 'branches');
  t.deepEqual(succeeded(await brvJson(plain, ['ls'])).topics, ['security/auth']);

  // Back to refs: the refspecs follow again and the old layout's tracking refs are dropped.
  const back = succeeded(await brvJson(a, ['vc', 'remote', 'set-layout', 'mirror', 'refs']));
  t.like(back, { layout: 'refs', previous: 'branches' });
  t.deepEqual(
    back.tracked.removed,
    BRANCHES_REFSPECS.map((r) => r.replace('/origin/', '/mirror/')),
  );
  t.false((await brvRefs(a)).some((r) => r.includes('refs/brv/remotes/mirror/')));

  // A value brv does not know is never read as the default: typed, says how to fix it.
  await git(a, 'config', 'remote.origin.brvLayout', 'brnaches');
  const bad = await brvJson(a, ['vc', 'push']);
  t.is(bad.json?.data.error.kind, 'invalid-setting-value');
  t.regex(bad.json?.data.error.message, /brv vc remote set-layout origin/);
  const usage = await brv(a, ['vc', 'remote', 'set-layout', 'origin', 'tags']);
  t.is(usage.exitCode, 2);
  succeeded(await brvJson(a, ['vc', 'remote', 'set-layout', 'origin', 'branches']));
  t.like(succeeded(await brvJson(a, ['vc', 'push'])), { remote: 'origin' });
});
