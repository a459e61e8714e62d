import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { discoverRepository, type RepositoryLocation } from '../../src/git/discover.js';
import { advanceRememberedTip } from '../../src/git/discovery-cache.js';
import { GitProcesses } from '../../src/git/processes.js';
import { git, makeRepo, makeWorktree, tempDir } from '../helpers/repo.js';

// A repeated discovery in the plain case is answered from what git said last time, checked against
// the files (src/git/discovery-cache.ts). Every case below compares with git's own answer, and counts
// the git processes through a git that logs its subcommand.

const REVISIONS = ['refs/heads/main', 'refs/heads/main^{tree}', 'refs/heads/main:README.md'];

async function loggingGit(): Promise<{ processes: (extra?: Record<string, string>) => GitProcesses; calls: () => Promise<string[]> }> {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = await tempDir();
  const log = path.join(bin, 'calls.log');
  await writeFile(log, '');
  await writeFile(path.join(bin, 'git'), `#!/bin/sh\necho "$1" >> "${log}"\nexec "${realGit}" "$@"\n`, { mode: 0o755 });
  return {
    processes: (extra = {}) => new GitProcesses({ ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, ...extra }),
    calls: async () => {
      const calls = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
      await writeFile(log, '');
      return calls;
    },
  };
}

/** A repository whose main branch has a README (so every revision resolves). */
async function repoWithReadme(): Promise<string> {
  const repo = await makeRepo();
  await writeFile(path.join(repo, 'README.md'), 'hello\n');
  await git(repo, 'add', 'README.md');
  await git(repo, 'commit', '-q', '-m', 'readme');
  return repo;
}

const plain = (l: RepositoryLocation) => ({ ...l, revisions: [...l.revisions] });

test('a second discovery in the same repository, from its top or a sub-directory, starts no git process and says what git said', async (t) => {
  const repo = await repoWithReadme();
  const sub = path.join(repo, 'src', 'deep');
  await mkdir(sub, { recursive: true });
  const { processes, calls } = await loggingGit();
  const first = await discoverRepository(repo, processes(), REVISIONS);
  t.deepEqual(await calls(), ['rev-parse']);
  t.is(first.revisions.size, 3);
  const again = await discoverRepository(repo, processes(), REVISIONS);
  const fromSub = await discoverRepository(sub, processes(), REVISIONS);
  t.deepEqual(await calls(), []);
  t.deepEqual(plain(again), plain(first));
  t.deepEqual(plain(fromSub), plain(first));
});

test('a moved ref is asked of git again (and remembered); a packed ref is read from packed-refs', async (t) => {
  const repo = await repoWithReadme();
  const { processes, calls } = await loggingGit();
  await discoverRepository(repo, processes(), REVISIONS);
  await writeFile(path.join(repo, 'README.md'), 'changed\n');
  await git(repo, 'commit', '-q', '-am', 'change');
  await calls();
  const moved = await discoverRepository(repo, processes(), REVISIONS);
  t.deepEqual(await calls(), ['rev-parse']);
  t.is(moved.revisions.get('refs/heads/main'), (await git(repo, 'rev-parse', 'main')).trim());
  t.is(moved.revisions.get('refs/heads/main:README.md'), (await git(repo, 'rev-parse', 'main:README.md')).trim());

  await git(repo, 'pack-refs', '--all');
  t.false((await git(repo, 'for-each-ref', '--format=%(refname)')).length === 0);
  await calls();
  const packed = await discoverRepository(repo, processes(), REVISIONS);
  t.deepEqual(await calls(), [], 'the ref is read from packed-refs');
  t.deepEqual(plain(packed), plain(moved));
});

test('a tip this process moved is remembered as moved: the next discovery starts no git process and says what git says', async (t) => {
  const repo = await repoWithReadme();
  await writeFile(path.join(repo, 'NOTES.md'), 'one\n');
  await git(repo, 'add', 'NOTES.md');
  await git(repo, 'commit', '-q', '-m', 'notes');
  const gitDir = path.join(repo, '.git');
  const { processes, calls } = await loggingGit();
  await discoverRepository(repo, processes(), REVISIONS);
  const from = (await git(repo, 'rev-parse', 'main')).trim();
  /** A commit of main's tree with NOTES.md changed, as brv's store makes one, and main moved to it. */
  const commitNotes = async (text: string, parent: string) => {
    await writeFile(path.join(repo, 'NOTES.md'), text);
    await git(repo, 'add', 'NOTES.md');
    const tree = (await git(repo, 'write-tree')).trim();
    const commit = (await git(repo, 'commit-tree', tree, '-p', parent, '-m', text.trim())).trim();
    await git(repo, 'update-ref', 'refs/heads/main', commit, parent);
    return { commit, tree };
  };
  const to = await commitNotes('two\n', from);
  await calls();
  // Told from a commit it does not remember: nothing changes, git is asked.
  advanceRememberedTip(gitDir, 'refs/heads/main', to.commit, to, ['NOTES.md']);
  t.like(await discoverRepository(repo, processes(), REVISIONS), { gitDir });
  t.deepEqual(await calls(), ['rev-parse']);

  const next = await commitNotes('three\n', to.commit);
  advanceRememberedTip(gitDir, 'refs/heads/main', to.commit, next, ['NOTES.md']);
  const served = await discoverRepository(repo, processes(), REVISIONS);
  t.deepEqual(await calls(), [], 'served from the advanced answer');
  t.is(served.revisions.get('refs/heads/main'), next.commit);
  t.is(served.revisions.get('refs/heads/main^{tree}'), (await git(repo, 'rev-parse', 'main^{tree}')).trim());
  t.is(served.revisions.get('refs/heads/main:README.md'), (await git(repo, 'rev-parse', 'main:README.md')).trim());

  // The ref moved again by someone else after this process's move: the file is left, git asked.
  const current = (await git(repo, 'rev-parse', 'main')).trim();
  const mine = await commitNotes('four\n', current);
  const theirs = await commitNotes('five\n', mine.commit);
  advanceRememberedTip(gitDir, 'refs/heads/main', current, mine, ['NOTES.md']);
  const asked = await discoverRepository(repo, processes(), REVISIONS);
  t.deepEqual(await calls(), ['rev-parse']);
  t.is(asked.revisions.get('refs/heads/main'), theirs.commit);
});

test('a changed path that a remembered revision names, or one inside it, is not advanced', async (t) => {
  const repo = await repoWithReadme();
  const gitDir = path.join(repo, '.git');
  const { processes, calls } = await loggingGit();
  for (const changed of [['README.md'], ['README.md/x'], ['docs', 'README.md']]) {
    const from = (await git(repo, 'rev-parse', 'main')).trim();
    await discoverRepository(repo, processes(), REVISIONS);
    await writeFile(path.join(repo, 'README.md'), `readme ${changed.join(',')}\n`);
    await git(repo, 'add', 'README.md');
    const tree = (await git(repo, 'write-tree')).trim();
    const commit = (await git(repo, 'commit-tree', tree, '-p', from, '-m', 'readme')).trim();
    await git(repo, 'update-ref', 'refs/heads/main', commit, from);
    await calls();
    advanceRememberedTip(gitDir, 'refs/heads/main', from, { commit, tree }, changed);
    const asked = await discoverRepository(repo, processes(), REVISIONS);
    t.deepEqual(await calls(), ['rev-parse'], `changed ${changed.join(', ')}`);
    t.is(asked.revisions.get('refs/heads/main:README.md'), (await git(repo, 'rev-parse', 'main:README.md')).trim());
  }
});

test('a changed config, other revisions, or discovery variables in the environment ask git', async (t) => {
  const repo = await repoWithReadme();
  const { processes, calls } = await loggingGit();
  await discoverRepository(repo, processes(), REVISIONS);
  await git(repo, 'config', 'brv.test', 'x');
  await calls();
  await discoverRepository(repo, processes(), REVISIONS);
  t.deepEqual(await calls(), ['rev-parse'], 'config changed');
  await discoverRepository(repo, processes(), ['refs/heads/main']);
  t.deepEqual(await calls(), ['rev-parse'], 'other revisions');
  await discoverRepository(repo, processes(), REVISIONS);
  await calls();
  await discoverRepository(repo, processes({ GIT_CEILING_DIRECTORIES: path.dirname(repo) }), REVISIONS);
  t.deepEqual(await calls(), ['rev-parse'], 'GIT_CEILING_DIRECTORIES');
  await discoverRepository(repo, processes(), []);
  t.deepEqual(await calls(), ['rev-parse'], 'no revisions');
});

test('linked worktrees, bare repositories and the inside of .git are always asked of git, and answered as git does', async (t) => {
  const repo = await repoWithReadme();
  const worktree = await makeWorktree(repo);
  const bare = await makeRepo({ bare: true });
  const { processes, calls } = await loggingGit();
  for (const [where, cwd] of [
    ['worktree', worktree],
    ['bare', bare],
    ['inside .git', path.join(repo, '.git', 'refs')],
  ] as const) {
    const first = await discoverRepository(cwd, processes(), REVISIONS);
    await calls();
    const again = await discoverRepository(cwd, processes(), REVISIONS);
    t.true((await calls()).includes('rev-parse'), where);
    t.deepEqual(plain(again), plain(first), where);
  }
  const inside = await discoverRepository(path.join(repo, '.git', 'refs'), processes(), []);
  t.is(inside.workTree, undefined, 'inside .git there is no work tree');
});

test('a damaged or foreign remembered answer is never served: git is asked and the file written again', async (t) => {
  const repo = await repoWithReadme();
  const { processes, calls } = await loggingGit();
  const truth = plain(await discoverRepository(repo, processes(), REVISIONS));
  const file = path.join(repo, '.git', 'brv', 'discovery.json');
  const good = JSON.parse(await readFile(file, 'utf8'));
  const other = await tempDir();
  const damaged = [
    'not json',
    JSON.stringify({ ...good, version: 99 }),
    JSON.stringify({ ...good, workTree: other }),
    JSON.stringify({ ...good, revisions: [['refs/heads/main', 'nothex']] }),
    JSON.stringify({ ...good, revisions: good.revisions.map(([rev]: [string]) => [rev, '0'.repeat(40)]) }),
    JSON.stringify({ ...good, objectFormat: 'md5' }),
  ];
  for (const text of damaged) {
    await writeFile(file, text);
    await calls();
    t.deepEqual(plain(await discoverRepository(repo, processes(), REVISIONS)), truth, text.slice(0, 40));
    t.deepEqual(await calls(), ['rev-parse'], text.slice(0, 40));
    t.deepEqual(JSON.parse(await readFile(file, 'utf8')), good, 'written again');
  }
  // Planted files that are not a small regular file: a link to /dev/zero, a FIFO, 1 MiB of a valid
  // answer padded with spaces. None is read (nothing blocks, nothing large is loaded); git is asked.
  const planted: Array<[string, () => Promise<void>]> = [
    ['a symbolic link to /dev/zero', () => symlink('/dev/zero', file)],
    ['a FIFO', async () => void execFileSync('mkfifo', [file])],
    ['1 MiB', () => writeFile(file, JSON.stringify(good) + ' '.repeat(1024 * 1024))],
  ];
  for (const [what, plant] of planted) {
    await rm(file, { force: true });
    await plant();
    await calls();
    t.deepEqual(plain(await discoverRepository(repo, processes(), REVISIONS)), truth, what);
    t.deepEqual(await calls(), ['rev-parse'], what);
    t.deepEqual(JSON.parse(await readFile(file, 'utf8')), good, `${what}: replaced by git's answer`);
  }
  // With replace refs, what a commit's tree is can change without the ref moving: git's to answer.
  const tip = (await git(repo, 'rev-parse', 'main')).trim();
  await git(repo, 'replace', '--graft', tip);
  await discoverRepository(repo, processes(), REVISIONS);
  await calls();
  await discoverRepository(repo, processes(), REVISIONS);
  t.deepEqual(await calls(), ['rev-parse'], 'replace refs');
  await git(repo, 'replace', '-d', tip);
  await rm(path.join(repo, '.git', 'refs', 'replace'), { recursive: true, force: true });
  // A symbolic loose ref is git's to read.
  await git(repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
  const aliased = ['refs/heads/alias', 'refs/heads/alias^{tree}'];
  await discoverRepository(repo, processes(), aliased);
  await calls();
  await discoverRepository(repo, processes(), aliased);
  t.deepEqual(await calls(), ['rev-parse']);
});

test('a working directory reached through a symbolic link is discovered as git does (the real path)', async (t) => {
  const repo = await repoWithReadme();
  const link = path.join(await tempDir(), 'link');
  await symlink(repo, link);
  const { processes, calls } = await loggingGit();
  const first = plain(await discoverRepository(link, processes(), REVISIONS));
  const again = plain(await discoverRepository(link, processes(), REVISIONS));
  t.deepEqual(await calls(), ['rev-parse']);
  t.deepEqual(again, first);
  t.is(first.workTree, repo);
});
