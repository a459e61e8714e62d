import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { readLocalFile, writeLocalFile } from './local-file.js';
import { DEFAULT_BRANCH } from '../base/ref-names.js';

export {
  BRANCH_PREFIX,
  BRV_REF_PREFIX,
  branchRef,
  DEFAULT_BRANCH,
  DEFAULT_REMOTE_LAYOUT,
  fetchRefspecs,
  localNameOf,
  INCOMING_PREFIX,
  parseBrvRef,
  parseRemoteBranchRef,
  parseSourceRef,
  plainBranchesLayoutPrefix,
  remoteBranchPrefix,
  remoteBranchRef,
  REMOTE_LAYOUTS,
  remoteNameOf,
  remoteReviewPrefix,
  remoteSide,
  REMOTES_PREFIX,
  remoteTrackingPrefix,
  REVIEW_PREFIX,
  reviewRef,
  SOURCES_PREFIX,
  sourceRef,
  trackingRefOf,
  type BrvRefName,
  type RemoteLayout,
} from '../base/ref-names.js';

export const FORMAT_PATH = '.brv/format';
export const FORMAT_VERSION = '1';

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

/** How to repair this worktree's brv/HEAD: brv cannot rebuild it, only the user knows the branch. */
const HEAD_FIX =
  "set this worktree's brv branch again with brv vc checkout <branch> (git for-each-ref refs/brv/heads lists the branches), or delete the file to work on main";
/** A branch name is at most 100 characters; anything much longer is not a file brv wrote. */
const HEAD_MAX_BYTES = 256;

function corruptHead(file: string, why: string): BrvError {
  return new BrvError('corrupt-local-state', `${file} ${why}; ${HEAD_FIX}.`, { file });
}

/**
 * The branch named by the bytes of a brv/HEAD file. brv always writes `<name>\n` (temp file and
 * rename), so anything else (no final newline: truncated; more than one line, an invalid name,
 * binary garbage, empty) is damage, never read as some other branch.
 */
function parseHead(bytes: Uint8Array, file: string): string {
  const text = Buffer.from(bytes).toString('latin1');
  const match = /^([^\n]*)\n$/.exec(text);
  if (!match) {
    const why =
      text === ''
        ? 'is empty'
        : text.includes('\n')
          ? 'has more than one line'
          : 'does not end with a newline (it is truncated or damaged)';
    throw corruptHead(file, `${why}, so it names no brv branch`);
  }
  try {
    return validateBranchName(match[1]!);
  } catch {
    throw corruptHead(file, 'does not hold a valid brv branch name');
  }
}

/** The brv branch this worktree works on (`<git-dir>/brv/HEAD`), `main` when unset. */
export async function currentBranch(gitDir: string): Promise<string> {
  const dir = path.join(gitDir, 'brv');
  const file = path.join(dir, 'HEAD');
  const bytes = await readLocalFile(file, HEAD_MAX_BYTES, HEAD_FIX);
  if (bytes !== undefined) return parseHead(bytes, file);
  // Missing: unset, unless a file stands where the brv folder should be (then HEAD is lost, not unset).
  const parent = await lstat(dir).catch(() => undefined);
  if (parent && !parent.isDirectory()) throw corruptHead(dir, 'is not a directory');
  return DEFAULT_BRANCH;
}

/** Switches this worktree's brv branch (written atomically; other worktrees keep theirs). */
export async function setCurrentBranch(gitDir: string, name: string): Promise<void> {
  validateBranchName(name);
  const dir = path.join(gitDir, 'brv');
  await writeLocalFile(path.join(dir, 'HEAD'), `${name}\n`, {
    durable: true,
    fix: `remove it, then run brv vc checkout ${name} again`,
  });
}
