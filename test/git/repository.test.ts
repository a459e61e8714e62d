import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitProcesses } from '../../src/git/processes.js';
import { GitRepository, RefMovedError } from '../../src/git/repository.js';
import { isSupportedGitVersion, parseGitVersion } from '../../src/git/version.js';
import { BLOB_MODE } from '../../src/git/tree.js';
import { git, makeRepo, makeWorktree, tempDir } from '../helpers/repo.js';
import { testProcesses } from '../helpers/processes.js';

test('discovers the repository from a sub-directory', async (t) => {
  const repo = await makeRepo();
  const sub = path.join(repo, 'src', 'deep');
  const g = await GitRepository.open(sub, testProcesses());
  t.teardown(() => g.close());
  t.is(g.location.workTree, repo);
  t.is(g.location.gitDir, path.join(repo, '.git'));
  t.false(g.location.bare);
});

test('a linked worktree has its own git dir and shares the common dir', async (t) => {
  const repo = await makeRepo();
  const worktree = await makeWorktree(repo);
  const g = await GitRepository.open(worktree, testProcesses());
  t.teardown(() => g.close());
  t.is(g.location.commonDir, path.join(repo, '.git'));
  t.not(g.location.gitDir, g.location.commonDir);
  t.is(g.location.workTree, worktree);
});

test('bare repositories are supported', async (t) => {
  const repo = await makeRepo({ bare: true });
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  t.true(g.location.bare);
  t.is(g.location.workTree, undefined);
});

test('outside a repository the error is typed', async (t) => {
  const dir = await tempDir();
  const error = await t.throwsAsync(GitRepository.open(dir, testProcesses()));
  t.is((error as any).kind, 'not-a-git-repository');
  const missing = await t.throwsAsync(GitRepository.open(path.join(dir, 'nope'), testProcesses()));
  t.is((missing as any).kind, 'not-a-git-repository');
});

test('reads blobs and trees through one batch process, and reports missing objects', async (t) => {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const blob = await g.writeBlob('hello\n');
  t.is((await g.readBlob(blob))?.toString(), 'hello\n');
  const tree = await g.writeTree([{ mode: BLOB_MODE, type: 'blob', oid: blob, name: 'a.html' }]);
  const entries = await g.readTree(tree);
  t.deepEqual(entries, [{ mode: BLOB_MODE, type: 'blob', oid: blob, name: 'a.html' }]);
  t.is(await g.readObject('0'.repeat(40)), undefined);
  t.is(await g.readRefCommit('refs/brv/heads/none'), undefined);
  const many = await Promise.all(Array.from({ length: 50 }, (_, i) => g.writeBlob(`b${i}`)));
  const back = await Promise.all(many.map((oid) => g.readBlob(oid)));
  t.deepEqual(
    back.map((b) => b?.toString()),
    many.map((_, i) => `b${i}`),
  );
});

test('ref updates are compare-and-swap', async (t) => {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const tree = await g.writeTree([{ mode: BLOB_MODE, type: 'blob', oid: await g.writeBlob('x'), name: 'x' }]);
  const first = await g.commitTree(tree, [], 'first\n');
  const second = await g.commitTree(tree, [first], 'second\n');
  await g.updateRefs([{ ref: 'refs/brv/heads/main', newOid: first, oldOid: undefined }], 'test');
  // Creating again must fail: the ref exists.
  await t.throwsAsync(g.updateRefs([{ ref: 'refs/brv/heads/main', newOid: second, oldOid: undefined }], 'test'), {
    instanceOf: RefMovedError,
  });
  // Wrong expected old value must fail and leave the ref alone.
  await t.throwsAsync(g.updateRefs([{ ref: 'refs/brv/heads/main', newOid: second, oldOid: second }], 'test'), {
    instanceOf: RefMovedError,
  });
  t.is((await g.readRefCommit('refs/brv/heads/main'))?.oid, first);
  // A transaction applies all updates or none.
  await t.throwsAsync(
    g.updateRefs(
      [
        { ref: 'refs/brv/heads/other', newOid: first, oldOid: undefined },
        { ref: 'refs/brv/heads/main', newOid: second, oldOid: second },
      ],
      'test',
    ),
  );
  t.is(await g.readRefCommit('refs/brv/heads/other'), undefined);
  await g.updateRefs([{ ref: 'refs/brv/heads/main', newOid: second, oldOid: first }], 'test');
  t.is((await g.readRefCommit('refs/brv/heads/main'))?.oid, second);
  t.regex(await git(repo, 'reflog', 'show', 'refs/brv/heads/main'), /test/);
});

test('git version gate', (t) => {
  t.deepEqual(parseGitVersion('git version 2.39.5'), [2, 39, 5]);
  t.deepEqual(parseGitVersion('git version 2.38.0.windows.1'), [2, 38, 0]);
  t.true(isSupportedGitVersion([2, 38, 0]));
  t.true(isSupportedGitVersion([3, 0, 0]));
  t.false(isSupportedGitVersion([2, 37, 9]));
  t.false(isSupportedGitVersion([1, 99, 0]));
});

test('listing a tree asks git for its version only when the listing fails: a git too old for ls-tree --format gets git-too-old', async (t) => {
  const repo = await makeRepo();
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = await tempDir();
  const log = path.join(bin, 'calls.log');
  // A git that records its subcommands, rejects ls-tree --format (as git < 2.36 does) when OLD_GIT is set, and reports 2.30 then.
  await writeFile(
    path.join(bin, 'git'),
    `#!/bin/sh
for a in "$@"; do case "$a" in ls-tree|version|rev-parse|cat-file|hash-object|mktree|commit-tree|update-ref) echo "$a" >> "${log}"; break;; esac; done
if [ -n "$OLD_GIT" ]; then
  case " $* " in *" version "*) echo "git version 2.30.0"; exit 0;; esac
  case " $* " in *" ls-tree "*--format=*) echo "error: unknown option 'format=%(objecttype)'" >&2; echo "usage: git ls-tree [<options>] <tree-ish> [<path>...]" >&2; exit 129;; esac
fi
exec "${realGit}" "$@"
`,
    { mode: 0o755 },
  );
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  const modern = await GitRepository.open(repo, new GitProcesses(env));
  t.teardown(() => modern.close());
  const blob = await modern.writeBlob('<p>x</p>');
  const tree = await modern.writeTree([{ mode: BLOB_MODE, type: 'blob', oid: blob, name: 'a.html' }]);
  await writeFile(log, '');
  t.deepEqual(await modern.listTreeBlobs(tree), [{ oid: blob, size: 8, path: 'a.html' }]);
  t.deepEqual((await readFile(log, 'utf8')).split('\n').filter(Boolean), ['ls-tree'], 'no git version on the way');

  const old = await GitRepository.open(repo, new GitProcesses({ ...env, OLD_GIT: '1' }));
  t.teardown(() => old.close());
  await t.throwsAsync(() => old.listTreeBlobs(tree), { message: /needs git 2\.38\.0 or newer; this is git 2\.30\.0/ });
});

test('an empty repository (no commits) and a sub-directory that is not yet tracked both work', async (t) => {
  const repo = await makeRepo({ commit: false });
  await mkdir(path.join(repo, 'new', 'dir'), { recursive: true });
  const g = await GitRepository.open(path.join(repo, 'new', 'dir'), testProcesses());
  t.teardown(() => g.close());
  t.is(g.location.workTree, repo);
});

test('diffTrees lists added, modified and deleted blobs recursively', async (t) => {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((x) => g.writeBlob(x)));
  const sub1 = await g.writeTree([
    { mode: BLOB_MODE, type: 'blob', oid: a!, name: 'x.html' },
    { mode: BLOB_MODE, type: 'blob', oid: b!, name: 'y.html' },
  ]);
  const sub2 = await g.writeTree([
    { mode: BLOB_MODE, type: 'blob', oid: c!, name: 'x.html' },
    { mode: BLOB_MODE, type: 'blob', oid: a!, name: 'z.html' },
  ]);
  const t1 = await g.writeTree([{ mode: '40000', type: 'tree', oid: sub1, name: 'd' }]);
  const t2 = await g.writeTree([{ mode: '40000', type: 'tree', oid: sub2, name: 'd' }]);
  const changes = await g.diffTrees(t1, t2);
  t.deepEqual(
    changes.map((c) => [c.status, c.path]),
    [
      ['M', 'd/x.html'],
      ['D', 'd/y.html'],
      ['A', 'd/z.html'],
    ],
  );
  t.is(changes[0]!.newOid, c!);
});

test('a large object is read in time linear in its size, between small and missing ones', async (t) => {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(async () => {
    g.close();
    await rm(repo, { recursive: true, force: true });
  });
  const big = Buffer.alloc(48 * 1024 * 1024, 'x');
  big.write('start', 0);
  big.write('end', big.length - 3);
  const [bigOid, small] = [await g.writeBlob(big), await g.writeBlob('small\n')];
  const started = performance.now();
  // Joining the pipe's 64 KiB chunks on each arrival was quadratic: ~10 s here, minutes at 200 MB.
  const [a, b, c, d] = await Promise.all([g.readBlob(small), g.readBlob(bigOid), g.readObject('0'.repeat(40)), g.readBlob(small)]);
  const ms = performance.now() - started;
  t.is(a?.toString(), 'small\n');
  t.true(b?.equals(big));
  t.is(c, undefined);
  t.is(d?.toString(), 'small\n');
  t.true(ms < 4000, `${Math.round(ms)} ms`);
});
