import { isBrvError } from '../base/errors.js';
import { fetchMissingBlobs } from '../git/partial-clone.js';
import { readRefFile } from '../git/ref-files.js';
import { checkForeignTips, tipRevisions, type ContextStore } from '../store/context-store.js';
import { branchRef, remoteBranchRef } from '../store/layout.js';
import type { KnowledgeArrival } from './arrival-state.js';
import { integrateIncoming } from './removal.js';
import { mirrorReviews, resolveRemote, seenReviews } from './sync.js';

/** What the slow path found, and whether the next read may take it from local state. */
export interface SlowImport {
  remember: boolean;
  remote: string | null;
  local: string | null;
  tracking: string | null;
  outcome: KnowledgeArrival;
}

/**
 * The read-time import when something moved since the last read (or nothing is remembered): git is
 * asked. Loaded only then (src/vc/arrival.ts is the cheap part every read runs).
 */
export async function importSlow(
  store: ContextStore,
  branch: string,
  knownRemote: string | null | undefined,
  agent: string | undefined,
): Promise<SlowImport> {
  const { repo } = store;
  const { commonDir, objectFormat } = repo.location;
  let remote = knownRemote;
  if (remote === undefined) {
    try {
      remote = await resolveRemote(repo, branch);
    } catch (error) {
      if (!isBrvError(error)) throw error;
      remote = null; // no remote, or several and no upstream: nothing is tracked
    }
  }
  if (remote === null) return { remember: true, remote, local: null, tracking: null, outcome: { state: 'current', branch } };
  const refValue = async (ref: string) => {
    const fromFile = readRefFile(commonDir, ref, objectFormat);
    return fromFile !== undefined ? fromFile : ((await repo.resolve(ref)) ?? null);
  };
  const [local, tracking] = await Promise.all([refValue(branchRef(branch)), refValue(remoteBranchRef(remote, branch))]);
  const found = (outcome: KnowledgeArrival, remember = true, now = local): SlowImport => ({
    remember,
    remote,
    local: now,
    tracking,
    outcome,
  });
  if (tracking === null || tracking === local) return found({ state: 'current', branch, remote });
  const source = `${remote}/${branch}`;
  try {
    // In a partial clone a plain `git fetch` brought the tip without blobs: its whole tree comes in one
    // request now, rather than a lazy fetch for the format check below and a batch for the read after.
    // (A tip that is not a commit fails here as git's error and is refused by the check.)
    await fetchMissingBlobs(repo, [`${tracking}^{tree}`], { from: remote }).catch((error: unknown) => {
      if (isBrvError(error)) throw error;
    });
    // A tip a plain `git fetch` (or `git update-ref`) put there met no check: refused before any git reads it as history.
    const problem = (await checkForeignTips(repo, [{ label: `${remoteBranchRef(remote, branch)} (${source})`, oid: tracking }])).get(
      tracking,
    );
    if (problem) return found({ state: 'refused', branch, remote, commit: tracking, kind: problem.kind, message: problem.message });
    if (local !== null && (await repo.isAncestor(tracking, local))) return found({ state: 'current', branch, remote });
    if (local !== null && !(await repo.isAncestor(local, tracking))) {
      const { ahead, behind } = await repo.aheadBehind(local, tracking);
      return found({ state: 'diverged', branch, remote, ahead, behind, fix: 'brv sync' });
    }
    // Reviews the fetch brought (or that vanished from the remote) are mirrored, as `brv vc pull` does.
    await mirrorReviews(store, remote, await seenReviews(store, remote));
    const result = await integrateIncoming(store, branch, tracking, {
      subject: `merge: ${source} into ${branch}`,
      source,
      agent,
      fastForwardOnly: true,
      // A trust hold already open for this tip is the answer: signatures are not verified again on every read.
      reuseOpenHold: true,
    });
    if (result.status === 'fast-forward') {
      // What discovery resolved for the tip is stale now: the read reads the new tip.
      for (const revision of tipRevisions(branch)) repo.takePrefetched(revision);
      return found({ state: 'fast-forwarded', branch, remote, from: local ?? undefined, to: result.commit }, true, result.commit);
    }
    if (result.status === 'held' && result.held)
      return found({ state: 'held', branch, remote, review: result.held.id, rule: result.held.rule, incoming: tracking });
    if (result.status === 'diverged') {
      // Someone wrote to the branch meanwhile: told now, found again (and counted) on the next read.
      return found({ state: 'diverged', branch, remote, ahead: 0, behind: 0, fix: 'brv sync' }, false, result.commit);
    }
    return found({ state: 'current', branch, remote }, false, result.commit);
  } catch (error) {
    if (!isBrvError(error)) throw error;
    return found({ state: 'failed', branch, remote, kind: error.kind, message: error.message }, false);
  }
}
