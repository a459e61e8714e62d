import { BrvError, type ErrorKind } from '../base/errors.js';
import type { GitTransferProgress } from '../git/transfer-progress.js';
import type { GitRepository } from '../git/repository.js';
import { checkForeignTips, type ContextStore } from '../store/context-store.js';
import { branchRef, remoteBranchPrefix, remoteBranchRef } from '../store/layout.js';
import { createMissingBranches, fetchRemote, resolveRemote, trackRemote } from './sync.js';

// A teammate's first day (DESIGN §2.6): a clone whose remote has knowledge adopts the remote's brv
// branch — it never starts a second root — and every status compares the local branch with what
// was fetched, from the refs alone (no network call).

/** Where a brv branch stands against its remote's remote-tracking ref, from local refs only. */
export interface UpstreamState {
  remote: string;
  /** The branch's remote-tracking ref, when it was fetched (by brv or by a plain `git fetch` with brv's refspecs). */
  tracking: string | undefined;
  /** Whether brv has fetched any brv branch from this remote; false in a plain `git clone` nothing fetched into yet. */
  fetched: boolean;
  /** Whether the local brv branch exists. */
  local: boolean;
  /** Local commits the tracking ref lacks (0 without a tracking ref). */
  ahead: number;
  /** Commits of the tracking ref the local branch lacks (all of them when there is no local branch). */
  behind: number;
}

/**
 * The branch against its upstream remote (see resolveRemote), or undefined when there is no remote
 * to compare with. Two ref reads and at most one `rev-list`: cheap enough for every status.
 */
export async function upstreamState(repo: GitRepository, branch: string): Promise<UpstreamState | undefined> {
  const remote = await resolveRemote(repo, branch).catch(() => undefined);
  if (!remote) return undefined;
  const tracking = remoteBranchRef(remote, branch);
  // A plain `git fetch` can point the tracking ref at anything (even a blob): only a commit counts.
  const [localTip, trackingTip] = await Promise.all([repo.resolve(`${branchRef(branch)}^{commit}`), repo.resolve(`${tracking}^{commit}`)]);
  const fetched = trackingTip !== undefined || (await repo.listRefs(remoteBranchPrefix(remote))).length > 0;
  let ahead = 0;
  let behind = 0;
  if (trackingTip && localTip) ({ ahead, behind } = await repo.aheadBehind(localTip, trackingTip));
  else if (trackingTip) behind = await repo.countCommits(trackingTip);
  return { remote, tracking: trackingTip ? tracking : undefined, fetched, local: localTip !== undefined, ahead, behind };
}

/** What adopting the remote's brv branch did (see adoptRemoteBranch). */
export interface AdoptResult {
  remote: string;
  /** The brv branch looked for. */
  branch: string;
  /** Whether brv fetched from the remote (false: the remote-tracking ref was already here, no network call). */
  fetched: boolean;
  /** The commit the local branch now starts at; absent when the remote has no such brv branch. */
  commit?: string;
  /** Local brv branches created from the remote's. */
  createdBranches: string[];
  /** brv's fetch refspecs added to the remote by the fetch (as any brv fetch does). */
  tracked?: string[];
  /** The fetch failed (an unreachable remote, refused credentials …): nothing was adopted, nothing lost. */
  failed?: { kind: ErrorKind; message: string };
  /** The remote's brv branch is not knowledge this brv reads (not a brv commit, an unknown data format): not adopted. */
  refused?: { kind: ErrorKind; message: string };
}

/**
 * In a clone without the brv branch `branch` (a plain `git clone`): starts it at the remote's tip,
 * never as a second root. The remote-tracking ref is used when it is here (a plain `git fetch` with
 * brv's refspecs brought it: no network call); otherwise the remote is fetched (these are setup
 * commands the user ran). Undefined when the branch exists already or there is no remote. A fetch
 * that fails is reported in `failed`, never thrown (a setup command still does its own work).
 */
export async function adoptRemoteBranch(
  store: ContextStore,
  branch: string,
  options: { remote?: string; onTransfer?: (progress: GitTransferProgress) => void; onFetch?: (remote: string) => void } = {},
): Promise<AdoptResult | undefined> {
  const { repo } = store;
  if (await repo.resolve(branchRef(branch))) return undefined;
  // A remote named by the user must exist (remote-not-found); otherwise none is no error.
  const remote = options.remote
    ? await resolveRemote(repo, branch, options.remote)
    : await resolveRemote(repo, branch).catch(() => undefined);
  if (!remote) return undefined;
  let fetched = false;
  let tracked: string[] = [];
  let refusedTip: { kind: ErrorKind; message: string } | undefined;
  if (!(await repo.resolve(`${remoteBranchRef(remote, branch)}^{commit}`))) {
    options.onFetch?.(remote);
    try {
      const result = await fetchRemote(store, remote, { onTransfer: options.onTransfer });
      // A refused tip moved no tracking ref: nothing to adopt, and the note says why.
      const tip = result.refused.find((r) => r.ref === branchRef(branch));
      if (tip) refusedTip = { kind: tip.kind, message: tip.message };
    } catch (error) {
      if (!(error instanceof BrvError) || error.kind === 'internal-error') throw error;
      return { remote, branch, fetched: false, createdBranches: [], failed: { kind: error.kind, message: error.message } };
    }
    fetched = true;
    tracked = await trackRemote(repo, remote);
  }
  // Every remote branch without a local copy, as `brv vc fetch` does; a tip brv cannot read gets none.
  const createdBranches = await createMissingBranches(repo, remote);
  const commit = createdBranches.includes(branch) ? await repo.resolve(branchRef(branch)) : undefined;
  let refused: AdoptResult['refused'] = commit ? undefined : refusedTip;
  const theirs = commit ? undefined : await repo.resolve(remoteBranchRef(remote, branch));
  if (theirs) {
    const problem = (await checkForeignTips(repo, [{ label: `${remoteBranchRef(remote, branch)}`, oid: theirs }])).get(theirs);
    if (problem) refused = { kind: problem.kind, message: problem.message };
  }
  return {
    remote,
    branch,
    fetched,
    ...(commit ? { commit } : {}),
    createdBranches,
    ...(tracked.length > 0 ? { tracked } : {}),
    ...(refused ? { refused } : {}),
  };
}
