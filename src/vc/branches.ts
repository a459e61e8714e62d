import { BrvError } from '../base/errors.js';
import type { CommitInfo } from '../git/repository.js';
import type { ContextStore } from '../store/context-store.js';
import { branchRef, parseRemoteBranchRef, remoteBranchRef, REMOTES_PREFIX, validateBranchName } from '../store/layout.js';

export interface BranchInfo {
  /** `<name>`, or `<remote>/<name>` for a remote-tracking branch. */
  branch: string;
  commit: string;
  /** The branch this worktree is on. */
  current: boolean;
  /** The remote of a remote-tracking branch. */
  remote: string | undefined;
}

/** The local brv branches and, with `all`, the remote-tracking ones. */
export async function listBranches(store: ContextStore, current: string, all: boolean): Promise<BranchInfo[]> {
  const local = (await store.listBranches()).map((b) => ({ ...b, current: b.branch === current, remote: undefined }));
  if (!all) return local;
  const remote: BranchInfo[] = [];
  for (const { ref, oid } of await store.repo.listRefs(REMOTES_PREFIX)) {
    const tracked = parseRemoteBranchRef(ref);
    if (tracked) remote.push({ branch: `${tracked.remote}/${tracked.branch}`, commit: oid, current: false, remote: tracked.remote });
  }
  return [...local, ...remote];
}

/** Deletes a brv branch other than `current`; one with knowledge `current` lacks only with `force`. */
export async function deleteBranch(store: ContextStore, current: string, name: string, force: boolean): Promise<string> {
  validateBranchName(name);
  if (name === current) throw new BrvError('branch-in-use', `brv branch ${name} is checked out here. Check out another branch first.`);
  const tip = await store.repo.resolve(branchRef(name));
  if (!tip) throw new BrvError('branch-not-found', `No brv branch named ${name}.`);
  const here = await store.repo.resolve(branchRef(current));
  if (!force && (!here || !(await store.repo.isAncestor(tip, here)))) {
    throw new BrvError(
      'branch-not-merged',
      `brv branch ${name} has knowledge not merged into ${current}. Merge it, or delete with --force.`,
    );
  }
  await store.deleteBranch(name, tip);
  return tip;
}

/** The tip of a branch to merge: a local brv branch, else `<remote>/<branch>`'s remote-tracking tip. */
export async function resolveMergeSource(store: ContextStore, current: string, source: string): Promise<string> {
  // "<branch>" or "<remote>/<branch>": both are valid branch names, so one check covers them.
  validateBranchName(source);
  let theirs = await store.repo.resolve(branchRef(source));
  if (!theirs && source.includes('/')) {
    const slash = source.indexOf('/');
    theirs = await store.repo.resolve(remoteBranchRef(source.slice(0, slash), source.slice(slash + 1)));
  }
  if (!theirs) throw new BrvError('branch-not-found', `No brv branch named ${source}. List them with brv vc branch -a.`);
  if (source === current) throw new BrvError('invalid-merge', `Cannot merge brv branch ${source} into itself.`);
  return theirs;
}

/**
 * The two ends of a topic diff: no range = the tip's last commit; `rev` = rev..tip; `a..b` (or
 * `a...b`), an empty side meaning the branch tip.
 */
export async function resolveRange(
  store: ContextStore,
  branch: string,
  tip: CommitInfo,
  range: string | undefined,
): Promise<{ from: CommitInfo | undefined; to: CommitInfo }> {
  if (!range) return { from: tip.parents[0] ? await store.repo.readCommit(tip.parents[0]) : undefined, to: tip };
  if (!range.includes('..')) return { from: await store.resolveCommit(branch, range), to: tip };
  const [left, right] = range.split(/\.\.\.?/);
  return {
    from: await store.resolveCommit(branch, left || branch),
    to: await store.resolveCommit(branch, right || branch),
  };
}
