import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { discoverRepository } from './discover.js';
import { GitCommandError } from './run.js';
import type { GitRepository } from './repository.js';

export interface Worktree {
  path: string;
  gitDir: string;
  head: string | undefined;
  /** The git branch checked out there (refs/heads/ stripped), if any. */
  gitBranch: string | undefined;
  bare: boolean;
}

/** `git worktree add`: a new working tree of this repository (sharing its objects and refs). */
export async function addWorktree(
  repo: GitRepository,
  dir: string,
  options: { gitBranch?: string; commitish?: string } = {},
): Promise<Worktree> {
  for (const value of [options.gitBranch, options.commitish]) {
    if (value !== undefined && (value === '' || value.startsWith('-') || /[\0\n]/.test(value))) {
      throw new BrvError('invalid-revision', `"${value}" is not a branch or commit name.`);
    }
  }
  const args = ['worktree', 'add', '--quiet'];
  if (options.gitBranch) args.push('-b', options.gitBranch);
  args.push('--', dir);
  if (options.commitish) args.push(options.commitish);
  try {
    await repo.git(args, { cwd: repo.location.workTree ?? repo.location.gitDir });
  } catch (error) {
    if (error instanceof GitCommandError) {
      throw new BrvError('worktree-failed', `git worktree add failed: ${error.stderr.trim().split('\n').pop()}`);
    }
    throw error;
  }
  const location = await discoverRepository(dir, repo.processes);
  return { path: path.resolve(dir), gitDir: location.gitDir, head: undefined, gitBranch: options.gitBranch, bare: false };
}

export async function removeWorktree(repo: GitRepository, dir: string, options: { force?: boolean } = {}): Promise<void> {
  try {
    await repo.git(['worktree', 'remove', ...(options.force ? ['--force'] : []), '--', dir], {
      cwd: repo.location.workTree ?? repo.location.gitDir,
    });
  } catch (error) {
    if (error instanceof GitCommandError) {
      throw new BrvError('worktree-failed', `git worktree remove failed: ${error.stderr.trim().split('\n').pop()}`);
    }
    throw error;
  }
}

/** Every worktree of the repository, the main one first. */
export async function listWorktrees(repo: GitRepository): Promise<Worktree[]> {
  const { stdout } = await repo.git(['worktree', 'list', '--porcelain', '-z']);
  const worktrees: Worktree[] = [];
  let current: Partial<Worktree> & { path?: string } = {};
  const flush = () => {
    if (current.path)
      worktrees.push({ path: current.path, gitDir: '', head: current.head, gitBranch: current.gitBranch, bare: current.bare ?? false });
    current = {};
  };
  for (const field of stdout.split('\0')) {
    if (field === '') flush();
    else if (field.startsWith('worktree ')) current.path = field.slice('worktree '.length);
    else if (field.startsWith('HEAD ')) current.head = field.slice(5);
    else if (field.startsWith('branch ')) current.gitBranch = field.slice(7).replace(/^refs\/heads\//, '');
    else if (field === 'bare') current.bare = true;
  }
  flush();
  // The per-worktree git dir: the main one is the common dir; linked ones live under worktrees/.
  for (const worktree of worktrees) {
    worktree.gitDir = worktree.bare
      ? repo.location.commonDir
      : ((await discoverRepository(worktree.path, repo.processes).catch(() => undefined))?.gitDir ?? '');
  }
  return worktrees;
}
