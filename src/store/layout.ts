import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../errors.js';

export const DEFAULT_BRANCH = 'main';
export const FORMAT_PATH = '.brv/format';
export const FORMAT_VERSION = '1';

export function branchRef(branch: string): string {
  return `refs/brv/heads/${branch}`;
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
