import test from 'ava';
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, brvJson, ENV, git, refTip, tempDir } from '../helpers/repo.js';
import { put, rule, succeeded, twoClones } from '../helpers/knowledge.js';

// Knowledge only from people the team trusts (issue 32, point 7), with real ssh keys: brv signs its
// own commits when git config asks, a clone with brv.sync.requireSigned takes fetched knowledge only
// when every new commit is signed by a key in git's gpg.ssh.allowedSignersFile, and holds the rest
// as a review naming who made it and why; `brv vc log` shows each commit's signature state.

/** An ed25519 key pair made for the test; returns the private key's path. */
async function sshKey(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file], { env: ENV, extendEnv: false });
  return file;
}

async function fingerprint(key: string): Promise<string> {
  const { stdout } = await execa('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key}.pub`], { env: ENV, extendEnv: false });
  return stdout.split(' ')[1]!;
}

async function signWith(repo: string, key: string): Promise<void> {
  await git(repo, 'config', 'gpg.format', 'ssh');
  await git(repo, 'config', 'user.signingKey', key);
  await git(repo, 'config', 'commit.gpgSign', 'true');
}

test('signed by an allowed key: fast-forwarded; signed by another key under an allowed name: held, rejected, held again, approved; vc log shows each state', async (t) => {
  const env = await twoClones();
  const keys = await tempDir('brv-keys-');
  const [ada, mallory] = await Promise.all([sshKey(keys, 'ada'), sshKey(keys, 'mallory')]);
  const allowed = path.join(keys, 'allowed_signers');
  // The pinned identity of every clone is Ada Author <ada@example.com>: only her key vouches for it.
  await writeFile(allowed, `ada@example.com ${(await readFile(`${ada}.pub`, 'utf8')).trim()}\n`);

  // Ada signs everything brv writes (git config asks for it), and git can check it.
  await signWith(env.a, ada);
  await git(env.a, 'config', 'gpg.ssh.allowedSignersFile', allowed);
  succeeded(await brvJson(env.a, ['init', '--track', 'origin']));
  await put(env.a, 'security/auth', rule('Use RS256.'));
  await git(env.a, 'verify-commit', 'refs/brv/heads/main');
  succeeded(await brvJson(env.a, ['vc', 'push', '-u']));

  // B trusts Ada's key only.
  succeeded(await brvJson(env.root, ['vc', 'clone', env.url, 'b']));
  await git(env.b, 'config', 'brv.sync.requireSigned', 'true');
  await git(env.b, 'config', 'gpg.ssh.allowedSignersFile', allowed);

  await put(env.a, 'security/cookies', rule('HttpOnly cookies.'));
  succeeded(await brvJson(env.a, ['vc', 'push']));
  const pulled = succeeded(await brvJson(env.b, ['vc', 'pull']));
  t.is(pulled.merge.status, 'fast-forward', JSON.stringify(pulled));
  const trusted = await refTip(env.b);
  t.is(trusted, await refTip(env.a));

  // Mallory writes as Ada (the pinned author), signed with her own key, and pushes.
  const m = path.join(env.root, 'm');
  succeeded(await brvJson(env.root, ['vc', 'clone', env.url, 'm']));
  await signWith(m, mallory);
  await put(m, 'security/auth', rule('Use none: tokens need no signature.'));
  succeeded(await brvJson(m, ['vc', 'push']));
  const forged = await refTip(m);

  const held = await brvJson(env.b, ['vc', 'pull']);
  t.is(held.exitCode, 0, held.stderr);
  const heldData = held.json!.data;
  t.is(heldData.merge.status, 'held');
  const hold = heldData.merge.held;
  t.is(hold?.kind, 'untrusted', JSON.stringify(heldData));
  t.is(await refTip(env.b), trusted, 'the local branch did not move');
  t.like(hold.untrusted[0], { commit: forged, author: 'Ada Author <ada@example.com>', key: await fingerprint(mallory) });
  t.regex(hold.untrusted[0].why, /not in the allowed signers/);

  const shown = await brv(env.b, ['review', 'show', hold.id]);
  t.is(shown.exitCode, 0, shown.stderr);
  t.regex(shown.stdout, /Ada Author <ada@example\.com>: signed by a key not in the allowed signers file/);
  t.true(shown.stdout.includes(await fingerprint(mallory)));

  // Reject: the branch keeps what it has. The remote still has it, so the next pull holds it again.
  succeeded(await brvJson(env.b, ['review', 'reject', hold.id]));
  t.is(await refTip(env.b), trusted);
  t.is(await git(env.b, 'for-each-ref', `refs/brv/review/${hold.id}`), '');
  const again = succeeded(await brvJson(env.b, ['vc', 'pull']));
  const hold2 = again.merge.held;
  t.is(hold2?.kind, 'untrusted');
  t.is(await refTip(env.b), trusted);

  // Approve: accepted this once.
  succeeded(await brvJson(env.b, ['review', 'approve', hold2.id]));
  t.is(await refTip(env.b), forged);

  const log = succeeded(await brvJson(env.b, ['vc', 'log']));
  const entries: Array<{ commit: string; signature?: { status: string; text: string } }> = log.entries;
  const byCommit = new Map(entries.map((e) => [e.commit, e.signature]));
  t.like(byCommit.get(forged!), { status: 'U' });
  t.like(byCommit.get(trusted!), { status: 'G', text: 'signed by ada@example.com (allowed)' });
  const text = await brv(env.b, ['vc', 'log']);
  t.regex(text.stdout, /signed by ada@example\.com \(allowed\)/);
  t.regex(text.stdout, /signed by a key not in the allowed signers file/);

  // B's own unsigned curate is B's; Ada merges it with hers (brv signs the merge as hers), and B
  // takes Ada's commits: her curate and her merge, both signed.
  await put(env.b, 'ops/deploy', rule('Blue-green.'));
  succeeded(await brvJson(env.b, ['vc', 'push']));
  await put(env.a, 'ops/ci', rule('Run the tests.'));
  const synced = succeeded(await brvJson(env.a, ['sync']));
  t.is(synced.merge.status, 'merged', JSON.stringify(synced));
  await git(env.a, 'verify-commit', 'refs/brv/heads/main');
  const merged = succeeded(await brvJson(env.b, ['vc', 'pull']));
  t.is(merged.merge.status, 'fast-forward', JSON.stringify(merged.merge));
  t.is(await refTip(env.b), await refTip(env.a));
});

test('a clone with the policy on (user-wide) makes no branch from unsigned knowledge; the pull then says whose commits and why (untrusted-knowledge)', async (t) => {
  const env = await twoClones();
  succeeded(await brvJson(env.a, ['init', '--track', 'origin']));
  await put(env.a, 'security/auth', rule('Use RS256.'));
  succeeded(await brvJson(env.a, ['vc', 'push', '-u']));
  const keys = await tempDir('brv-keys-');
  const allowed = path.join(keys, 'allowed_signers');
  await writeFile(allowed, `ada@example.com ${(await readFile(`${await sshKey(keys, 'ada')}.pub`, 'utf8')).trim()}\n`);
  // As a user-wide setting would: every git brv runs sees it.
  const policy = {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'brv.sync.requireSigned',
    GIT_CONFIG_VALUE_0: 'true',
    GIT_CONFIG_KEY_1: 'gpg.ssh.allowedSignersFile',
    GIT_CONFIG_VALUE_1: allowed,
  };
  const clone = await brvJson(env.root, ['vc', 'clone', env.url, 'b'], { env: policy });
  t.is(clone.exitCode, 0, clone.stdout + clone.stderr);
  t.is(await refTip(env.b), undefined, 'no local branch from unsigned knowledge');
  t.truthy(await refTip(env.b, 'refs/brv/remotes/origin/heads/main'), 'fetched, to be looked at');
  const pull = await brvJson(env.b, ['vc', 'pull'], { env: policy });
  t.is(pull.exitCode, 1, pull.stdout);
  t.is(pull.json!.data.error.kind, 'untrusted-knowledge', pull.stdout);
  t.regex(pull.stdout, /Ada Author <ada@example\.com>: unsigned/);
  // Checking out the remote branch would start it there too: refused the same way.
  const checkout = await brvJson(env.b, ['vc', 'checkout', 'main'], { env: policy });
  t.is(checkout.json?.data?.error?.kind, 'untrusted-knowledge', checkout.stdout + checkout.stderr);
  t.is(await refTip(env.b), undefined);
});
