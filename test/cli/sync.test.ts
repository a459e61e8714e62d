import test from 'ava';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, brvJson, git, showTopic, tempDir } from '../helpers/repo.js';
import { brvRefs, put, rule, sharedClones, succeeded, twoClones } from '../helpers/knowledge.js';

test('push, clone and sync through a bare remote: knowledge travels, code push/pull unchanged', async (t) => {
  const { a, b, bare } = await sharedClones();
  t.is(await showTopic(b, 'security/auth.html'), await showTopic(a, 'security/auth.html'));
  t.deepEqual(
    await brvRefs(bare),
    (await brvRefs(a)).filter((r) => r.includes('refs/brv/heads/')),
  );
  // Each clone learns something different; sync twice and both have everything.
  await put(a, 'api/errors', rule('Return problem+json.'));
  await put(b, 'db/migrations', rule('Never edit an applied migration.'));
  const syncA = succeeded(await brvJson(a, ['sync']));
  t.is(syncA.push.refs[0].status, 'ok');
  const syncB = succeeded(await brvJson(b, ['sync']));
  t.is(syncB.merge.status, 'merged');
  succeeded(await brvJson(a, ['sync']));
  for (const clone of [a, b]) {
    const ls = succeeded(await brvJson(clone, ['ls']));
    t.deepEqual(ls.topics.sort(), ['api/errors', 'db/migrations', 'security/auth']);
  }
  t.is(await git(a, 'rev-parse', 'refs/brv/heads/main'), await git(b, 'rev-parse', 'refs/brv/heads/main'));
  // A plain git push pushes code only; a plain git fetch (init --track) brings knowledge.
  await writeFile(path.join(a, 'code.txt'), 'x\n');
  await git(a, 'add', '.');
  await git(a, 'commit', '-q', '-m', 'more code');
  await put(a, 'api/errors', rule('Return problem+json with a type URI.'));
  const before = await brvRefs(bare);
  await git(a, 'push', '-q', 'origin', 'main');
  t.deepEqual(await brvRefs(bare), before, 'git push did not push brv refs');
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q', 'origin');
  t.is(await git(b, 'rev-parse', 'refs/brv/remotes/origin/heads/main'), await git(a, 'rev-parse', 'refs/brv/heads/main'));
  await git(b, 'pull', '-q', '--ff-only', 'origin', 'main');
  t.is(await git(b, 'rev-parse', 'HEAD'), await git(a, 'rev-parse', 'HEAD'));
  t.is(await git(b, 'status', '--porcelain'), '');
  await git(bare, 'fsck', '--strict');
});

test('vc push refuses a non-fast-forward with a typed error; pull then push succeeds', async (t) => {
  const { a, b } = await sharedClones();
  await put(a, 'x/one', rule('one'));
  succeeded(await brvJson(a, ['vc', 'push']));
  await put(b, 'x/two', rule('two'));
  const refused = await brvJson(b, ['vc', 'push']);
  t.is(refused.exitCode, 1);
  t.is(refused.json?.data.error.kind, 'non-fast-forward');
  const pull = succeeded(await brvJson(b, ['vc', 'pull']));
  t.is(pull.merge.status, 'merged');
  succeeded(await brvJson(b, ['vc', 'push']));
  const status = succeeded(await brvJson(b, ['vc', 'status']));
  t.like(status, { branch: 'main', remote: 'origin', ahead: 0, behind: 0 });
});

test('concurrent syncs from two clones: every topic lands, history stays connected', async (t) => {
  const { a, b, bare } = await sharedClones();
  const rounds = 4;
  const work = async (clone: string, name: string) => {
    for (let i = 0; i < rounds; i++) {
      await put(clone, `${name}/t${i}`, rule(`${name} fact ${i}`));
      succeeded(await brvJson(clone, ['sync']));
    }
  };
  await Promise.all([work(a, 'alpha'), work(b, 'beta')]);
  succeeded(await brvJson(a, ['sync']));
  succeeded(await brvJson(b, ['sync']));
  const topics = succeeded(await brvJson(b, ['ls'])).topics as string[];
  for (let i = 0; i < rounds; i++) t.true(topics.includes(`alpha/t${i}`) && topics.includes(`beta/t${i}`), `round ${i}`);
  t.is(await git(a, 'rev-parse', 'refs/brv/heads/main'), await git(bare, 'rev-parse', 'refs/brv/heads/main'));
  await git(bare, 'fsck', '--strict');
});

test('file:// URLs and ssh transport (through GIT_SSH_COMMAND) work, because git does the transport', async (t) => {
  const fileEnv = await sharedClones((bare) => `file://${bare}`);
  t.truthy(await showTopic(fileEnv.b, 'security/auth.html'));

  const bin = await tempDir('brv-ssh-');
  const fakeSsh = path.join(bin, 'ssh');
  // A stand-in for ssh: run the remote command locally (git passes host, then the command).
  await writeFile(fakeSsh, '#!/bin/sh\nshift\nexec sh -c "$*"\n');
  await chmod(fakeSsh, 0o755);
  const env = { GIT_SSH_COMMAND: fakeSsh, GIT_SSH_VARIANT: 'simple' };
  const root = await tempDir('brv-sshrepo-');
  await git(root, 'init', '-q', '--bare', '-b', 'main', 'remote.git');
  await git(root, 'init', '-q', '-b', 'main', 'a');
  const a = path.join(root, 'a');
  await writeFile(path.join(a, 'f'), 'x');
  await git(a, 'add', '.');
  await git(a, 'commit', '-q', '-m', 'c');
  await git(a, 'remote', 'add', 'origin', `example.com:${path.join(root, 'remote.git')}`);
  t.is((await brvJson(a, ['init'], { env })).exitCode, 0);
  await put(a, 'ops/deploy', rule('Deploy on Tuesdays.'));
  t.is((await brvJson(a, ['vc', 'push', '-u'], { env })).exitCode, 0);
  const clone = await brvJson(root, ['vc', 'clone', `example.com:${path.join(root, 'remote.git')}`, 'b'], { env });
  t.is(clone.exitCode, 0, clone.stdout + clone.stderr);
  t.deepEqual(clone.json?.data.branches, ['main']);
  t.truthy(await showTopic(path.join(root, 'b'), 'ops/deploy.html'));
});

test('unreachable remotes and missing remotes are typed errors', async (t) => {
  const { a } = await twoClones();
  succeeded(await brvJson(a, ['init']));
  const none = await brvJson(a, ['vc', 'push', 'nowhere']);
  t.is(none.json?.data.error.kind, 'no-remote');
  succeeded(await brvJson(a, ['vc', 'remote', 'add', 'broken', '/does/not/exist.git']));
  const unreachable = await brvJson(a, ['vc', 'fetch', 'broken']);
  t.is(unreachable.exitCode, 1);
  t.is(unreachable.json?.data.error.kind, 'remote-not-found');
  const dup = await brvJson(a, ['vc', 'remote', 'add', 'broken', '/x']);
  t.is(dup.json?.data.error.kind, 'remote-exists');
  const list = succeeded(await brvJson(a, ['vc', 'remote']));
  t.deepEqual(
    list.remotes.map((r: { name: string }) => r.name),
    ['origin', 'broken'],
  );
  succeeded(await brvJson(a, ['vc', 'remote', 'set-url', 'broken', '/elsewhere.git']));
  succeeded(await brvJson(a, ['vc', 'remote', 'remove', 'broken']));
  const usage = await brv(a, ['vc', 'remote', 'add']);
  t.is(usage.exitCode, 2);
});

test('reviews travel with sync: opened in one clone, decided in the other, closed in both', async (t) => {
  const { a, b, bare } = await sharedClones();
  const high = await put(a, 'ops/prod', rule('Deploys need two approvals.'), { meta: { impact: 'high', reason: 'policy' } });
  t.truthy(high.review);
  succeeded(await brvJson(a, ['sync']));
  t.true((await brvRefs(bare)).some((r) => r.endsWith(`refs/brv/review/${high.review.id}`)));
  const fetched = succeeded(await brvJson(b, ['vc', 'fetch']));
  t.deepEqual(fetched.reviews.opened, [high.review.id]);
  succeeded(await brvJson(b, ['vc', 'pull']));
  const pending = succeeded(await brvJson(b, ['review', 'pending']));
  t.is(pending.tasks[0].taskId, high.review.id);
  succeeded(await brvJson(b, ['review', 'approve', high.review.id]));
  succeeded(await brvJson(b, ['sync']));
  t.false((await brvRefs(bare)).some((r) => r.includes('refs/brv/review/')));
  // A plain `git fetch --prune` (A ran init --track) moves A's remote-tracking refs behind brv's back.
  // Merging and pushing from there must not bring the decided review back to the remote ...
  await git(a, 'fetch', '-q', '--prune', 'origin');
  succeeded(await brvJson(a, ['vc', 'merge', 'origin/main']));
  succeeded(await brvJson(a, ['vc', 'push']));
  t.false(
    (await brvRefs(bare)).some((r) => r.includes('refs/brv/review/')),
    'not resurrected',
  );
  // ... and brv still knows the review was on the remote when it last looked, so it closes it here.
  const closed = succeeded(await brvJson(a, ['vc', 'fetch']));
  t.deepEqual(closed.reviews.closed, [high.review.id]);
  t.is(succeeded(await brvJson(a, ['review', 'pending'])).pendingCount, 0);
});

test('a brv branch that exists only on the remote can be checked out and synced', async (t) => {
  const { a, b } = await sharedClones();
  succeeded(await brvJson(a, ['vc', 'checkout', '-b', 'design']));
  await put(a, 'design/tokens', rule('Spacing is a multiple of 4px.'));
  succeeded(await brvJson(a, ['vc', 'push', '-u']));
  succeeded(await brvJson(b, ['vc', 'fetch']));
  const all = succeeded(await brvJson(b, ['vc', 'branch', '-a']));
  t.true(all.branches.some((br: { branch: string }) => br.branch === 'origin/design'));
  succeeded(await brvJson(b, ['vc', 'checkout', 'design']));
  t.deepEqual(succeeded(await brvJson(b, ['ls'])).topics, ['design/tokens', 'security/auth']);
  t.is(await git(b, 'rev-parse', 'refs/brv/heads/design'), await git(a, 'rev-parse', 'refs/brv/heads/design'));
});
