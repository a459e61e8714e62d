import { BrvError } from '../errors.js';
import { fetchRefspecs as fetchGitRefspecs, listRemotes, pushRefspecs, requireRemote, type PushedRef } from '../git/remote.js';
import type { GitRepository } from '../git/repository.js';
import type { ContextStore } from '../store/context-store.js';
import {
  branchRef,
  BRANCH_PREFIX,
  fetchRefspecs,
  localStateDir,
  remoteBranchRef,
  remoteReviewPrefix,
  REVIEW_PREFIX,
} from '../store/layout.js';
import { readLocalFile, writeLocalFile } from '../store/local-file.js';
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
 * branches), then mirrors review decisions (see mirrorReviews).
 */
export async function fetchRemote(store: ContextStore, remote: string): Promise<FetchResult> {
  const { repo } = store;
  const seen = await seenReviews(store, remote);
  await fetchGitRefspecs(repo, remote, fetchRefspecs(remote));
  const reviews = await mirrorReviews(store, remote, seen);
  const prefix = `refs/brv/remotes/${remote}/heads/`;
  const branches = (await repo.listRefs(prefix)).map((r) => ({ branch: r.ref.slice(prefix.length), commit: r.oid }));
  return { remote, branches, reviews };
}

/**
 * Makes local reviews follow the remote's: a review that appeared on the remote since brv last
 * looked (a teammate opened it) is opened here; one that disappeared (a teammate decided it) is
 * closed here. "Since brv last looked" is remembered in local state, so reviews fetched by a plain
 * `git fetch` (with `brv init --track`) are mirrored too, by the next brv fetch or the git hooks.
 * `before` comes from seenReviews.
 */
export async function mirrorReviews(
  store: ContextStore,
  remote: string,
  before: ReadonlySet<string>,
): Promise<{ opened: string[]; closed: string[] }> {
  const { repo } = store;
  const tracked = await repo.listRefs(remoteReviewPrefix(remote));
  const local = new Map((await repo.listRefs(REVIEW_PREFIX)).map((r) => [r.ref.slice(REVIEW_PREFIX.length), r.oid]));
  const updates = [];
  const opened: string[] = [];
  const closed: string[] = [];
  const now = new Set<string>();
  for (const { ref, oid } of tracked) {
    const id = ref.slice(remoteReviewPrefix(remote).length);
    now.add(id);
    if (!before.has(id) && !local.has(id)) {
      updates.push({ ref: `${REVIEW_PREFIX}${id}`, newOid: oid, oldOid: undefined });
      opened.push(id);
    }
  }
  for (const id of before) {
    const oid = local.get(id);
    if (!now.has(id) && oid) {
      updates.push({ ref: `${REVIEW_PREFIX}${id}`, newOid: undefined, oldOid: oid });
      closed.push(id);
    }
  }
  if (updates.length > 0) await repo.updateRefs(updates, `brv fetch ${remote}: reviews`);
  await writeSeenReviews(store, remote, now);
  return { opened, closed };
}

function seenReviewsFile(store: ContextStore, remote: string): string {
  return localStateDir(store.repo.location.commonDir, 'sync', `${remote}.reviews`);
}

const SEEN_HEADER = '# brv seen-reviews v1';
const MAX_SEEN_BYTES = 16 * 1024 * 1024;

/**
 * The ids of a seen-reviews file, or undefined when it is damaged. Written as a header, one id a line
 * and `# end <count>`, so a truncated file is told from a complete one; files of earlier brv versions
 * (ids only) are still read when every line is an id.
 */
export function parseSeenReviews(text: string): Set<string> | undefined {
  if (!text.endsWith('\n')) return undefined;
  if (text === '\n') return new Set(); // no reviews, as earlier versions wrote it
  const lines = text.slice(0, -1).split('\n');
  const isId = (line: string) => line !== '' && !line.startsWith('#') && !/[\u0000-\u0020\u007f\ufffd]/.test(line);
  if (lines[0] !== SEEN_HEADER) return lines.every(isId) ? new Set(lines) : undefined;
  const ids = lines.slice(1, -1);
  return lines.at(-1) === `# end ${ids.length}` && ids.every(isId) ? new Set(ids) : undefined;
}

/** The remote's reviews as brv last saw them (see mirrorReviews). */
export async function seenReviews(store: ContextStore, remote: string): Promise<Set<string>> {
  try {
    const bytes = await readLocalFile(seenReviewsFile(store, remote), MAX_SEEN_BYTES);
    const seen = bytes && parseSeenReviews(bytes.toString('utf8'));
    if (seen) return seen;
  } catch {
    // Not a regular file (a FIFO, a link, a directory): as damaged as unparseable content.
  }
  // No record (or a damaged one, rewritten after this fetch): what the remote-tracking refs hold
  // now is what brv last saw.
  return new Set(await reviewIds(store.repo, remoteReviewPrefix(remote)));
}

async function writeSeenReviews(store: ContextStore, remote: string, ids: ReadonlySet<string>): Promise<void> {
  const sorted = [...ids].sort();
  const text = [SEEN_HEADER, ...sorted, `# end ${sorted.length}`].join('\n') + '\n';
  await writeLocalFile(seenReviewsFile(store, remote), text, { repair: localStateDir(store.repo.location.commonDir) });
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
 * Pushes the branch and the review refs, never forced. Only reviews opened here since brv last saw
 * the remote are pushed (so a review a teammate already decided is not brought back), and reviews
 * decided here (seen on the remote, gone locally) are deleted there.
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
  const local = new Map((await repo.listRefs(REVIEW_PREFIX)).map((r) => [r.ref.slice(REVIEW_PREFIX.length), r.oid]));
  const seen = await seenReviews(store, remote);
  const opened = [...local.keys()].filter((id) => !seen.has(id));
  const decided = [...seen].filter((id) => !local.has(id));
  const refspecs = [`${branchRef(branch)}:${branchRef(branch)}`];
  for (const id of opened) refspecs.push(`${REVIEW_PREFIX}${id}:${REVIEW_PREFIX}${id}`);
  for (const id of decided) refspecs.push(`:${REVIEW_PREFIX}${id}`);
  const refs = await pushRefspecs(repo, remote, refspecs);
  const rejected = refs.find((r) => r.ref === branchRef(branch) && r.status === 'rejected');
  if (!rejected) {
    // Keep our view of the remote current without another fetch.
    const tracking = (ref: string) => repo.resolve(ref);
    const updates = [
      {
        ref: remoteBranchRef(remote, branch),
        newOid: await repo.resolve(branchRef(branch)),
        oldOid: await tracking(remoteBranchRef(remote, branch)),
      },
    ];
    for (const id of opened)
      updates.push({
        ref: `${remoteReviewPrefix(remote)}${id}`,
        newOid: local.get(id),
        oldOid: await tracking(`${remoteReviewPrefix(remote)}${id}`),
      });
    for (const id of decided)
      updates.push({
        ref: `${remoteReviewPrefix(remote)}${id}`,
        newOid: undefined,
        oldOid: await tracking(`${remoteReviewPrefix(remote)}${id}`),
      });
    await repo
      .updateRefs(
        updates.filter((u) => u.newOid !== u.oldOid),
        `brv push ${remote}`,
      )
      .catch(() => {});
    await writeSeenReviews(store, remote, new Set([...[...seen].filter((id) => !decided.includes(id)), ...opened]));
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
