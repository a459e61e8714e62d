import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../errors.js';

export const DEFAULT_BRANCH = 'main';
export const FORMAT_PATH = '.brv/format';
export const FORMAT_VERSION = '1';

export const BRANCH_PREFIX = 'refs/brv/heads/';
export const REVIEW_PREFIX = 'refs/brv/review/';

export function branchRef(branch: string): string {
  return `${BRANCH_PREFIX}${branch}`;
}

/** A change awaiting review: the ref points at the reviewed commit. */
export function reviewRef(id: string): string {
  return `${REVIEW_PREFIX}${id}`;
}

/** Where fetch keeps a remote's brv branches and reviews (never under refs/remotes/, never pushed). */
export function remoteBranchRef(remote: string, branch: string): string {
  return `refs/brv/remotes/${remote}/heads/${branch}`;
}

export function remoteReviewPrefix(remote: string): string {
  return `refs/brv/remotes/${remote}/review/`;
}

/** Fetch refspecs for one remote: forced only into brv's own remote-tracking namespace. */
export function fetchRefspecs(remote: string): string[] {
  return [`+${BRANCH_PREFIX}*:refs/brv/remotes/${remote}/heads/*`, `+${REVIEW_PREFIX}*:${remoteReviewPrefix(remote)}*`];
}

/** Read-only knowledge of another repository (`brv source add`). */
export function sourceRef(alias: string, branch = DEFAULT_BRANCH): string {
  return `refs/brv/sources/${alias}/${branch}`;
}

/** Branch names follow git's ref rules, kept to a conservative subset so they are safe everywhere. */
export function validateBranchName(name: string): string {
  const ok =
    /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(name) &&
    !name.includes('..') &&
    !name.includes('//') &&
    !name.endsWith('/') &&
    !name.endsWith('.lock') &&
    !name.endsWith('.') &&
    !name.split('/').some((s) => s.startsWith('.'));
  if (!ok) throw new BrvError('invalid-branch-name', `"${name}" is not a valid brv branch name (letters, digits, ".", "_", "-", "/").`);
  return name;
}

/** Local, never-committed state shared by all worktrees: sessions, indexes, caches. */
export function localStateDir(commonDir: string, ...parts: string[]): string {
  return path.join(commonDir, 'brv', ...parts);
}

export async function ensureLocalStateDir(commonDir: string, ...parts: string[]): Promise<string> {
  const dir = localStateDir(commonDir, ...parts);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** The brv branch this worktree works on (`<git-dir>/brv/HEAD`), `main` when unset. */
export async function currentBranch(gitDir: string): Promise<string> {
  try {
    const name = (await readFile(path.join(gitDir, 'brv', 'HEAD'), 'utf8')).trim();
    return name ? validateBranchName(name) : DEFAULT_BRANCH;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return DEFAULT_BRANCH;
    throw error;
  }
}

/** Switches this worktree's brv branch (written atomically; other worktrees keep theirs). */
export async function setCurrentBranch(gitDir: string, name: string): Promise<void> {
  validateBranchName(name);
  const dir = path.join(gitDir, 'brv');
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `HEAD.${process.pid}.tmp`);
  await writeFile(temp, `${name}\n`);
  await rename(temp, path.join(dir, 'HEAD'));
}
