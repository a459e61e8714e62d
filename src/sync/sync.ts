import { BrvError } from '../errors.js';
import { fetchRefspecs as fetchGitRefspecs, listRemotes, pushRefspecs, requireRemote, type PushedRef } from '../git/remote.js';
import type { GitRepository } from '../git/repository.js';
import type { ContextStore } from '../store/context-store.js';
import { branchRef, BRANCH_PREFIX, fetchRefspecs, remoteBranchRef, remoteReviewPrefix, REVIEW_PREFIX } from '../store/layout.js';
import { mergeIntoBranch, type MergeResult } from '../vc/merge.js';

export interface FetchResult {
  remote: string;
  /** Remote brv branches now known, with their tips. */
  branches: Array<{ branch: string; commit: string }>;
  reviews: { opened: string[]; closed: string[] };
}

export interface PushResult {
  remote: string;
  branch: string;
  refs: PushedRef[];
  upstreamSet: boolean;
}

export interface SyncResult {
  remote: string;
  branch: string;
  fetch: FetchResult;
  merge: MergeResult | undefined;
  push: PushResult;
  attempts: number;
}

const MAX_SYNC_ATTEMPTS = 5;

/** The git config key naming the remote a brv branch syncs with (set by push -u). */
export function upstreamKey(branch: string): string {
  return `brvbranch.${branch}.remote`;
}

/** The remote to use: the one named, the branch's upstream, `origin`, or the only remote there is. */
export async function resolveRemote(repo: GitRepository, branch: string, explicit?: string): Promise<string> {
  if (explicit) return (await requireRemote(repo, explicit)).name;
  const remotes = await listRemotes(repo);
  const upstream = await repo.configGet(upstreamKey(branch));
  if (upstream && remotes.some((r) => r.name === upstream)) return upstream;
  if (remotes.some((r) => r.name === 'origin')) return 'origin';
  if (remotes.length === 1) return remotes[0]!.name;
  if (remotes.length === 0)
    throw new BrvError('no-remote', 'This repository has no git remote. Add one with brv vc remote add origin <url>.');
  throw new BrvError(
    'no-upstream',
    `Several remotes and no upstream for brv branch ${branch}: name one, or set it with brv vc push -u <remote>.`,
  );
}

/**
 * Fetches a remote's brv branches and reviews into `refs/brv/remotes/<remote>/…` (never into local
 * branches), then mirrors review decisions: a review a teammate opened appears locally, one a
 * teammate decided (gone from the remote since our last fetch) disappears locally.
 */
export async function fetchRemote(store: ContextStore, remote: string): Promise<FetchResult> {
  const { repo } = store;
  const trackedBefore = new Set(await reviewIds(repo, remoteReviewPrefix(remote)));
  await fetchGitRefspecs(repo, remote, fetchRefspecs(remote));
  const trackedAfter = await repo.listRefs(remoteReviewPrefix(remote));
  const local = new Map((await repo.listRefs(REVIEW_PREFIX)).map((r) => [r.ref.slice(REVIEW_PREFIX.length), r.oid]));
  const updates = [];
  const opened: string[] = [];
  const closed: string[] = [];
  const afterIds = new Set<string>();
  for (const { ref, oid } of trackedAfter) {
    const id = ref.slice(remoteReviewPrefix(remote).length);
    afterIds.add(id);
    if (!trackedBefore.has(id) && !local.has(id)) {
      updates.push({ ref: `${REVIEW_PREFIX}${id}`, newOid: oid, oldOid: undefined });
      opened.push(id);
    }
  }
  for (const id of trackedBefore) {
    const oid = local.get(id);
    if (!afterIds.has(id) && oid) {
      updates.push({ ref: `${REVIEW_PREFIX}${id}`, newOid: undefined, oldOid: oid });
      closed.push(id);
    }
  }
  if (updates.length > 0) await repo.updateRefs(updates, `brv fetch ${remote}: reviews`);
  const prefix = `refs/brv/remotes/${remote}/heads/`;
  const branches = (await repo.listRefs(prefix)).map((r) => ({ branch: r.ref.slice(prefix.length), commit: r.oid }));
  return { remote, branches, reviews: { opened, closed } };
}

/** Merges the remote-tracking copy of `branch` (if any) into the local branch. */
export async function integrateRemote(
  store: ContextStore,
  branch: string,
  remote: string,
  agent?: string,
): Promise<MergeResult | undefined> {
  const theirs = await store.repo.resolve(remoteBranchRef(remote, branch));
  if (!theirs) return undefined;
  return mergeIntoBranch(store, branch, theirs, {
    subject: `merge: ${remote}/${branch} into ${branch}`,
    theirsLabel: `${remote}/${branch}`,
    agent,
  });
}

/**
 * Pushes the branch and the review refs, never forced. Reviews decided here (gone locally, still on
 * the remote as of the last fetch) are deleted there.
 */
export async function pushBranch(
  store: ContextStore,
  branch: string,
  remote: string,
  options: { setUpstream?: boolean } = {},
): Promise<PushResult> {
  const { repo } = store;
  if (!(await repo.resolve(branchRef(branch)))) {
    throw new BrvError('not-initialized', `brv branch ${branch} has no commits to push. Run brv init or curate first.`);
  }
  const local = new Set(await reviewIds(repo, REVIEW_PREFIX));
  const tracked = await reviewIds(repo, remoteReviewPrefix(remote));
  const refspecs = [`${branchRef(branch)}:${branchRef(branch)}`];
  for (const id of local) refspecs.push(`${REVIEW_PREFIX}${id}:${REVIEW_PREFIX}${id}`);
  for (const id of tracked) if (!local.has(id)) refspecs.push(`:${REVIEW_PREFIX}${id}`);
  const refs = await pushRefspecs(repo, remote, refspecs);
  const rejected = refs.find((r) => r.ref === branchRef(branch) && r.status === 'rejected');
  if (!rejected) {
    // Keep our view of the remote current without another fetch.
    const tip = await repo.resolve(branchRef(branch));
    const updates = [{ ref: remoteBranchRef(remote, branch), newOid: tip, oldOid: await repo.resolve(remoteBranchRef(remote, branch)) }];
    for (const id of local)
      updates.push({
        ref: `${remoteReviewPrefix(remote)}${id}`,
        newOid: await repo.resolve(`${REVIEW_PREFIX}${id}`),
        oldOid: await repo.resolve(`${remoteReviewPrefix(remote)}${id}`),
      });
    for (const id of tracked)
      if (!local.has(id))
        updates.push({
          ref: `${remoteReviewPrefix(remote)}${id}`,
          newOid: undefined,
          oldOid: await repo.resolve(`${remoteReviewPrefix(remote)}${id}`),
        });
    await repo
      .updateRefs(
        updates.filter((u) => u.newOid !== u.oldOid),
        `brv push ${remote}`,
      )
      .catch(() => {});
  }
  let upstreamSet = false;
  if (options.setUpstream && !rejected) {
    await repo.configSet(upstreamKey(branch), remote);
    upstreamSet = true;
  }
  return { remote, branch, refs, upstreamSet };
}

/** Fetch, integrate, push — retried when someone pushed in between. Never fails because of content. */
export async function syncBranch(store: ContextStore, branch: string, remote: string, agent?: string): Promise<SyncResult> {
  let merge: MergeResult | undefined;
  for (let attempt = 1; ; attempt++) {
    const fetch = await fetchRemote(store, remote);
    merge = (await integrateRemote(store, branch, remote, agent)) ?? merge;
    const hasLocal = await store.repo.resolve(branchRef(branch));
    const push: PushResult = hasLocal ? await pushBranch(store, branch, remote) : { remote, branch, refs: [], upstreamSet: false };
    const rejected = push.refs.some((r) => r.ref === branchRef(branch) && r.status === 'rejected');
    if (!rejected) return { remote, branch, fetch, merge, push, attempts: attempt };
    if (attempt >= MAX_SYNC_ATTEMPTS) {
      throw new BrvError(
        'sync-contention',
        `The remote ${remote} kept moving: gave up after ${attempt} fetch-merge-push rounds. Run brv sync again.`,
      );
    }
  }
}

/** Adds brv's fetch refspecs to a remote so a plain `git fetch` also brings knowledge. */
export async function trackRemote(repo: GitRepository, remote: string): Promise<string[]> {
  await requireRemote(repo, remote);
  const existing = await repo.configGetAll(`remote.${remote}.fetch`);
  const added: string[] = [];
  for (const refspec of fetchRefspecs(remote)) {
    if (existing.includes(refspec)) continue;
    await repo.configSet(`remote.${remote}.fetch`, refspec, { add: true });
    added.push(refspec);
  }
  return added;
}

/** After a clone or a first fetch: local brv branches for remote ones that have no local copy yet. */
export async function createMissingBranches(repo: GitRepository, remote: string): Promise<string[]> {
  const prefix = `refs/brv/remotes/${remote}/heads/`;
  const local = new Set((await repo.listRefs(BRANCH_PREFIX)).map((r) => r.ref));
  const created: string[] = [];
  const updates = [];
  for (const { ref, oid } of await repo.listRefs(prefix)) {
    const branch = ref.slice(prefix.length);
    if (local.has(branchRef(branch))) continue;
    updates.push({ ref: branchRef(branch), newOid: oid, oldOid: undefined });
    created.push(branch);
  }
  if (updates.length > 0) await repo.updateRefs(updates, `brv clone: branches from ${remote}`);
  return created;
}

async function reviewIds(repo: GitRepository, prefix: string): Promise<string[]> {
  return (await repo.listRefs(prefix)).map((r) => r.ref.slice(prefix.length));
}
