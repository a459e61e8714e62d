import test from 'ava';
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isBrvError } from '../../src/base/errors.js';
import { GitRepository } from '../../src/git/repository.js';
import { integrateIncoming } from '../../src/vc/removal.js';
import { requireTrustConfigured, untrustedCommits } from '../../src/vc/trust.js';
import { ENV, git, makeRepo, refTip, tempDir } from '../helpers/repo.js';
import { plantTree } from '../helpers/plant.js';
import { testProcesses } from '../helpers/processes.js';
import { internals, openBrv } from '../helpers/service.js';

// The trust policy's verdicts (src/vc/trust.ts), on commits made with real ssh keys and plumbing:
// one `git log` checks the whole range.

async function sshKey(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file], { env: ENV, extendEnv: false });
  return file;
}

/** A commit of the empty tree on `parent`, by `author`, signed with `key` (unsigned without one). */
async function commit(repo: string, parent: string | undefined, message: string, author: string, key?: string): Promise<string> {
  const [name, email] = author.split('|') as [string, string];
  const args = [
    '-c',
    'gpg.format=ssh',
    ...(key ? ['-c', `user.signingKey=${key}`] : []),
    'commit-tree',
    ...(key ? ['-S'] : []),
    '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    ...(parent ? ['-p', parent] : []),
    '-m',
    message,
  ];
  const env = { ...ENV, GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email };
  return (await execa('git', args, { cwd: repo, env, extendEnv: false })).stdout.trim();
}

test('each commit new to the branch is judged: unsigned, unknown key, an allowed key under another name, a bad signature', async (t) => {
  const repo = await makeRepo({ commit: false });
  const keys = await tempDir('brv-keys-');
  const [ada, bob, mallory] = await Promise.all([sshKey(keys, 'ada'), sshKey(keys, 'bob'), sshKey(keys, 'mallory')]);
  const allowed = path.join(keys, 'allowed_signers');
  const line = async (who: string, key: string) => `${who} ${(await readFile(`${key}.pub`, 'utf8')).trim()}`;
  await writeFile(allowed, `${await line('ada@example.com', ada)}\n${await line('bob@example.com', bob)}\n`);
  await git(repo, 'config', 'gpg.ssh.allowedSignersFile', allowed);
  await git(repo, 'config', 'user.name', 'Ada');
  await git(repo, 'config', 'user.email', 'ada@example.com');

  const ADA = 'Ada|ada@example.com';
  const good = await commit(repo, undefined, 'good', ADA, ada);
  const unsigned = await commit(repo, good, 'unsigned', ADA);
  const unknown = await commit(repo, unsigned, 'unknown key', ADA, mallory);
  const forged = await commit(repo, unknown, 'bob as ada', ADA, bob);
  const bobs = await commit(repo, forged, 'bob as bob', 'Bob|bob@example.com', bob);
  // A signed commit whose message was changed afterwards: the signature no longer matches.
  const signed = await commit(repo, bobs, 'original', ADA, ada);
  const raw = (await git(repo, 'cat-file', 'commit', signed)).replace(/\noriginal$/, '\ntampered') + '\n';
  const tampered = (
    await execa('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: repo, env: ENV, extendEnv: false, input: raw })
  ).stdout;

  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  t.deepEqual(await untrustedCommits(g, good, undefined), [], 'a good signature by an allowed key under its own name');
  const verdicts = await untrustedCommits(g, tampered, good);
  t.deepEqual(
    verdicts.map((v) => [v.commit, v.why]),
    [
      [tampered, 'bad signature'],
      [forged, 'signed by bob@example.com, but the author is ada@example.com'],
      [unknown, 'signed by a key not in the allowed signers file (or outside its validity)'],
      [unsigned, 'unsigned'],
    ],
  );
  t.like(verdicts[1], { author: 'Ada <ada@example.com>', signer: 'bob@example.com' });
  t.regex(verdicts[2]!.key ?? '', /^SHA256:/);

  // An allowed-signers file that is not there: a typed error, never a verdict.
  await git(repo, 'config', 'gpg.ssh.allowedSignersFile', path.join(keys, 'missing'));
  const error = await t.throwsAsync(requireTrustConfigured(g));
  t.true(isBrvError(error) && error.kind === 'trust-not-configured', String(error));
});

test('with no local branch to keep, untrusted knowledge is refused (typed); with no allowed-signers file, nothing is taken', async (t) => {
  const repo = await makeRepo();
  const incoming = await plantTree(
    repo,
    { 'a/b.html': '<bv-topic path="a/b" title="B"><bv-rule id="r1">Unsigned.</bv-rule></bv-topic>' },
    {
      ref: 'refs/brv/remotes/origin/heads/main',
    },
  );
  const keys = await tempDir('brv-keys-');
  await writeFile(path.join(keys, 'allowed_signers'), '');
  await git(repo, 'config', 'brv.sync.requireSigned', 'true');
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  const { store } = internals(brv);
  const options = { source: 'origin/main', subject: 'merge: origin/main into main' };

  const unconfigured = await t.throwsAsync(integrateIncoming(store, 'main', incoming, options));
  t.true(isBrvError(unconfigured) && unconfigured.kind === 'trust-not-configured', String(unconfigured));

  await git(repo, 'config', 'gpg.ssh.allowedSignersFile', path.join(keys, 'allowed_signers'));
  const refused = await t.throwsAsync(integrateIncoming(store, 'main', incoming, options));
  t.true(isBrvError(refused) && refused.kind === 'untrusted-knowledge', String(refused));
  t.regex(refused!.message, /Ada Author <ada@example\.com>: unsigned/);
  t.is(await refTip(repo), undefined, 'no local branch was made');
});

test('a commit git cannot sign is a typed signing-failed, and no ref moves', async (t) => {
  const repo = await makeRepo();
  await git(repo, 'config', 'commit.gpgSign', 'true');
  await git(repo, 'config', 'gpg.format', 'ssh');
  await git(repo, 'config', 'user.signingKey', path.join(await tempDir('brv-keys-'), 'no-such-key'));
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const error = await t.throwsAsync(g.commitTree(await g.emptyTree(), [], 'x\n'));
  t.true(isBrvError(error) && error.kind === 'signing-failed', String(error));
  // Throwaway commits (merge sides) are never signed.
  t.regex(await g.commitTree(await g.emptyTree(), [], 'x\n', { sign: false }), /^[0-9a-f]{40}$/);
});

test('an open untrusted hold answers a read again without re-checking (reuseOpenHold); a pull checks again and takes it once the key is allowed', async (t) => {
  const repo = await makeRepo();
  const topic = '<bv-topic path="a/b" title="B"><bv-rule id="r1">Local.</bv-rule></bv-topic>';
  const local = await plantTree(repo, { 'a/b.html': topic });
  const planted = await plantTree(repo, { 'a/b.html': topic.replace('Local.', 'Incoming.') }, { ref: 'refs/brv/incoming-test' });
  const keys = await tempDir('brv-keys-');
  const carol = await sshKey(keys, 'carol');
  const tree = await git(repo, 'rev-parse', `${planted}^{tree}`);
  const incoming = (
    await execa(
      'git',
      ['-c', 'gpg.format=ssh', '-c', `user.signingKey=${carol}`, 'commit-tree', '-S', tree, '-p', local, '-m', 'signed by carol'],
      { cwd: repo, env: ENV, extendEnv: false },
    )
  ).stdout.trim();
  const allowed = path.join(keys, 'allowed_signers');
  await writeFile(allowed, '');
  await git(repo, 'config', 'brv.sync.requireSigned', 'true');
  await git(repo, 'config', 'gpg.ssh.allowedSignersFile', allowed);
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  const { store } = internals(brv);
  const options = { source: 'origin/main', subject: 'merge: origin/main into main' };

  const first = await integrateIncoming(store, 'main', incoming, options);
  t.is(first.status, 'held');
  t.like(first.held, { kind: 'untrusted', opened: true });
  // Carol's key joins the team's list.
  await writeFile(allowed, `ada@example.com ${(await readFile(`${carol}.pub`, 'utf8')).trim()}\n`);
  const read = await integrateIncoming(store, 'main', incoming, { ...options, reuseOpenHold: true });
  t.is(read.status, 'held', 'a read reuses the verdict');
  t.like(read.held, { id: first.held!.id, opened: false, kind: 'untrusted' });
  t.like(read.held!.untrusted![0], { commit: incoming.slice(0, 12), author: 'Ada Author <ada@example.com>' });
  t.is(await refTip(repo), local);
  const pulled = await integrateIncoming(store, 'main', incoming, options);
  t.is(pulled.status, 'fast-forward');
  t.is(await refTip(repo), incoming);
  t.is(await git(repo, 'for-each-ref', 'refs/brv/review/'), '', 'the hold closed, settled');
});
