import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BrvError, type ErrorKind } from '../base/errors.js';
import { fetchMissingBlobs } from '../git/partial-clone.js';
import type { GitTransferProgress } from '../git/transfer-progress.js';
import { fetchRefspecs as fetchGitRefspecs, listRemotes, pushRefspecs, requireRemote, type PushedRef } from '../git/remote.js';
import { RefMovedError, type GitRepository, type RefUpdate } from '../git/repository.js';
import { checkForeignTips, type ContextStore } from '../store/context-store.js';
import {
  branchRef,
  BRANCH_PREFIX,
  BRV_REF_PREFIX,
  DEFAULT_REMOTE_LAYOUT,
  fetchRefspecs,
  INCOMING_PREFIX,
  localNameOf,
  localStateDir,
  plainBranchesLayoutPrefix,
  remoteBranchPrefix,
  remoteBranchRef,
  REMOTE_LAYOUTS,
  remoteNameOf,
  remoteReviewPrefix,
  remoteSide,
  remoteTrackingPrefix,
  REVIEW_PREFIX,
  trackingRefOf,
  type RemoteLayout,
} from '../store/layout.js';
import { readLocalFile, writeLocalFile } from '../store/local-file.js';
import { readSettings } from '../settings/settings.js';
import { integrateIncoming, listHolds, type IncomingResult } from './removal.js';
import { requireTrustConfigured, untrustedCommits } from './trust.js';

export interface FetchResult {
  remote: string;
  /** Remote brv branches now known, with their tips. */
  branches: Array<{ branch: string; commit: string }>;
  reviews: { opened: string[]; closed: string[] };
  /**
   * Remote tips brv refused (not a brv commit, or a data format this brv does not read): their
   * remote-tracking refs did not move, and nothing local points at them.
   */
  refused: RefusedTip[];
  /**
   * Set when this fetch found the remote in the branches layout and chose it for the remote (its
   * layout was not set; refs/brv/* held no brv branch there, but ordinary branches brv/* a plain git
   * fetch brought hold brv commits).
   */
  layoutFound?: RemoteLayout;
}

export interface RefusedTip {
  /** The ref on the remote, e.g. refs/brv/heads/main (refs/heads/brv/main in the branches layout). */
  ref: string;
  commit: string;
  kind: ErrorKind;
  message: string;
}

/** A pushed ref by its brv name; `remoteRef` is the remote's name for it when its layout differs (`branches`). */
export interface PushedBrvRef extends PushedRef {
  remoteRef?: string;
}

export interface PushResult {
  remote: string;
  branch: string;
  refs: PushedBrvRef[];
  upstreamSet: boolean;
  /** Set when nothing was pushed because the incoming change is held for review (see removal.ts). */
  skipped?: 'held';
}

export interface SyncResult {
  remote: string;
  branch: string;
  fetch: FetchResult;
  /** The incoming change: merged, fast-forwarded, up to date, or `held` (then nothing was pushed). */
  merge: IncomingResult | undefined;
  push: PushResult;
  attempts: number;
}

const MAX_SYNC_ATTEMPTS = 8;

/** What a fetch, pull or sync is doing now (for a front end's progress line); `attempt` > 1 when the remote moved meanwhile. */
export interface SyncProgress {
  step: 'fetch' | 'merge' | 'push';
  remote: string;
  branch: string;
  attempt: number;
  /** git's transfer progress within the step (objects received or written); absent on the step's first report. */
  transfer?: GitTransferProgress;
}

/** The git config key naming the remote a brv branch syncs with (set by push -u). */
function upstreamKey(branch: string): string {
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
    `Several remotes and no upstream for brv branch ${branch}: name one (brv sync <remote>), or remember one with git config ${upstreamKey(branch)} <remote>.`,
  );
}

/**
 * Fetches a remote's brv branches and reviews into `refs/brv/remotes/<remote>/…` (never into local
 * branches), then mirrors review decisions (see mirrorReviews).
 *
 * git fetches into a namespace of this process's own (see fetchStaged), so concurrent fetches in
 * one clone never fight over ref locks, and every fetched tip is checked before a remote-tracking
 * ref moves to it: a tip that is not a brv commit or uses a data format this brv does not read is
 * refused (reported in `refused`), its remote-tracking ref keeps its old value.
 */
export async function fetchRemote(
  store: ContextStore,
  remote: string,
  options: { onTransfer?: (progress: GitTransferProgress) => void } = {},
): Promise<FetchResult> {
  const { repo } = store;
  const chosen = await configuredLayout(repo, remote);
  const fetched = await fetchLayout(store, remote, chosen ?? DEFAULT_REMOTE_LAYOUT, options);
  // Not chosen and nothing there: a remote in the branches layout is recognised from what a plain
  // `git clone`/`git fetch` brought (no extra network round trip unless it is).
  if (chosen || fetched.branches.length > 0 || !(await looksLikeBranchesLayout(repo, remote))) return fetched;
  await setRemoteLayout(store, remote, 'branches');
  return { ...(await fetchLayout(store, remote, 'branches', options)), layoutFound: 'branches' };
}

async function fetchLayout(
  store: ContextStore,
  remote: string,
  layout: RemoteLayout,
  options: { onTransfer?: (progress: GitTransferProgress) => void },
): Promise<FetchResult> {
  const { repo } = store;
  const seen = await seenReviews(store, remote);
  const side = remoteSide(layout);
  const refused = await fetchStaged(repo, remote, [side.branches, side.reviews], (remoteRef) => trackingRefOf(layout, remote, remoteRef), {
    onTransfer: options.onTransfer,
  });
  const reviews = await mirrorReviews(store, remote, seen);
  const prefix = remoteBranchPrefix(remote);
  const branches = (await repo.listRefs(prefix)).map((r) => ({ branch: r.ref.slice(prefix.length), commit: r.oid }));
  return { remote, branches, reviews, refused };
}

const MAX_REF_ATTEMPTS = 20;

/**
 * Fetches every ref under `remotePrefixes` from `remote` (a remote name or a URL) into a namespace
 * of this process's own, checks each fetched tip (checkForeignTips), then moves the local refs
 * `localRef(remoteRef)` to the accepted tips in one compare-and-swap transaction (retried when a
 * concurrent fetch moved them first) and deletes local refs whose remote ref is gone. Refused tips
 * move nothing. The staging namespace is removed whatever happens.
 */
export async function fetchStaged(
  repo: GitRepository,
  remote: string,
  remotePrefixes: readonly string[],
  localRef: (remoteRef: string) => string,
  options: { exact?: boolean; onTransfer?: (progress: GitTransferProgress) => void } = {},
): Promise<RefusedTip[]> {
  const staging = `${INCOMING_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}/`;
  // refs/brv/heads/* -> <staging>0/*, refs/brv/review/* -> <staging>1/* (an exact ref maps to <staging>0).
  const refspecs = remotePrefixes.map((p, i) => (options.exact ? `+${p}:${staging}${i}` : `+${p}*:${staging}${i}/*`));
  try {
    await fetchGitRefspecs(repo, remote, refspecs, options.onTransfer);
    const staged = (await repo.listRefs(staging)).map(({ ref, oid }) => {
      const rest = ref.slice(staging.length);
      const slash = rest.indexOf('/');
      const index = Number(slash < 0 ? rest : rest.slice(0, slash));
      const remoteRef = options.exact ? remotePrefixes[index]! : `${remotePrefixes[index]!}${rest.slice(slash + 1)}`;
      return { remoteRef, local: localRef(remoteRef), oid };
    });
    const problems = await checkForeignTips(
      repo,
      [...new Set(staged.map((s) => s.oid))].map((oid) => ({
        label: staged.filter((s) => s.oid === oid).map((s) => `${s.remoteRef} on ${remote}`)[0]!,
        oid,
      })),
    );
    const refused = staged
      .filter((s) => problems.has(s.oid))
      .map((s) => ({ ref: s.remoteRef, commit: s.oid, kind: problems.get(s.oid)!.kind, message: problems.get(s.oid)!.message }));
    const wanted = new Map(staged.filter((s) => !problems.has(s.oid)).map((s) => [s.local, s.oid]));
    const refusedLocal = new Set(staged.filter((s) => problems.has(s.oid)).map((s) => s.local));
    await withRefRetries(async () => {
      const current = new Map<string, string>();
      const localPrefixes = options.exact ? [] : remotePrefixes.map((p) => localRef(p));
      for (const prefix of localPrefixes) for (const { ref, oid } of await repo.listRefs(prefix)) current.set(ref, oid);
      if (options.exact) {
        for (const p of remotePrefixes) {
          const oid = await repo.resolve(localRef(p));
          if (oid) current.set(localRef(p), oid);
        }
      }
      const updates: RefUpdate[] = [];
      for (const [ref, oid] of wanted) if (current.get(ref) !== oid) updates.push({ ref, newOid: oid, oldOid: current.get(ref) });
      // Gone from the remote (as --prune would): gone here too. A refused ref keeps its old value.
      for (const [ref, oid] of current)
        if (!wanted.has(ref) && !refusedLocal.has(ref)) updates.push({ ref, newOid: undefined, oldOid: oid });
      if (updates.length > 0) await repo.updateRefs(updates, `brv fetch ${remote}`);
    });
    // Knowledge a plain `git fetch` brought into a partial clone came without blobs (git applies the
    // clone's filter; brv's own fetch asks for everything): the accepted tips' topics come now, in
    // one request, rather than one lazy fetch per topic when a merge or a read needs them.
    await fetchMissingBlobs(
      repo,
      [...new Set(wanted.values())].map((oid) => `${oid}^{tree}`),
      { from: remote },
    );
    return refused;
  } finally {
    // Ours, and those of brv processes that were killed before they could clean up.
    const leftovers = (await repo.listRefs(INCOMING_PREFIX).catch(() => [])).filter(
      (r) => r.ref.startsWith(staging) || !processAlive(Number(/^(\d+)-/.exec(r.ref.slice(INCOMING_PREFIX.length))?.[1])),
    );
    if (leftovers.length > 0) {
      await repo
        .updateRefs(
          leftovers.map((r) => ({ ref: r.ref, newOid: undefined, oldOid: r.oid })),
          'brv fetch: staging done',
        )
        .catch(() => {});
    }
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs a read-compute-write step on refs again when another process moved them first (a lost
 * compare-and-swap or a ref lock held by a concurrent brv), with a growing, jittered pause.
 */
async function withRefRetries<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof RefMovedError) || attempt >= MAX_REF_ATTEMPTS) throw error;
      await sleep(Math.min(200, 10 * attempt) + Math.random() * 25 * Math.min(attempt, 6));
    }
  }
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
  const now = new Set(tracked.map(({ ref }) => ref.slice(remoteReviewPrefix(remote).length)));
  // A concurrent brv in this clone may open or close the same reviews first: re-read and retry.
  const { opened, closed } = await withRefRetries(() => mirrorReviewsOnce(store, remote, before, tracked));
  await writeSeenReviews(store, remote, now);
  return { opened, closed };
}

async function mirrorReviewsOnce(
  store: ContextStore,
  remote: string,
  before: ReadonlySet<string>,
  tracked: ReadonlyArray<{ ref: string; oid: string }>,
): Promise<{ opened: string[]; closed: string[] }> {
  const { repo } = store;
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
function parseSeenReviews(text: string): Set<string> | undefined {
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

/**
 * Merges the remote-tracking copy of `branch` (if any) into the local branch. With the result of
 * the fetch just made, a refused remote tip for this branch is an error (the branch does not move)
 * rather than a silent "up to date"; mergeIntoBranch checks the tip itself in any case (a plain
 * `git fetch` with `brv init --track` moves remote-tracking refs without brv).
 */
export async function integrateRemote(
  store: ContextStore,
  branch: string,
  remote: string,
  agent?: string,
  fetched?: FetchResult,
): Promise<IncomingResult | undefined> {
  const refusedRef = fetched?.refused.length ? remoteNameOf(await remoteLayout(store.repo, remote), branchRef(branch)) : undefined;
  const refused = fetched?.refused.find((r) => r.ref === refusedRef);
  if (refused) throw new BrvError(refused.kind, refused.message, { remote, branch, commit: refused.commit });
  const theirs = await store.repo.resolve(remoteBranchRef(remote, branch));
  if (!theirs) return undefined;
  // Through the removal guard: a change that removes too many topics is held, not applied.
  return integrateIncoming(store, branch, theirs, {
    subject: `merge: ${remote}/${branch} into ${branch}`,
    source: `${remote}/${branch}`,
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
  options: { setUpstream?: boolean; onTransfer?: (progress: GitTransferProgress) => void } = {},
): Promise<PushResult> {
  const { repo } = store;
  if (!(await repo.resolve(branchRef(branch)))) {
    throw new BrvError('not-initialized', `brv branch ${branch} has no commits to push. Run brv init or curate first.`);
  }
  const local = new Map((await repo.listRefs(REVIEW_PREFIX)).map((r) => [r.ref.slice(REVIEW_PREFIX.length), r.oid]));
  const seen = await seenReviews(store, remote);
  // A held incoming change is this clone's own decision to make: it never goes to the remote.
  const holds = new Set((await listHolds(store)).map((h) => h.id));
  const opened = [...local.keys()].filter((id) => !seen.has(id) && !holds.has(id));
  const decided = [...seen].filter((id) => !local.has(id));
  // The remote's names for them in its layout; results name them as brv does (remoteRef: the remote's name).
  const layout = await remoteLayout(repo, remote);
  const there = (ref: string) => remoteNameOf(layout, ref);
  const refspecs = [`${branchRef(branch)}:${there(branchRef(branch))}`];
  for (const id of opened) refspecs.push(`${REVIEW_PREFIX}${id}:${there(`${REVIEW_PREFIX}${id}`)}`);
  for (const id of decided) refspecs.push(`:${there(`${REVIEW_PREFIX}${id}`)}`);
  const pushed = await pushRefspecs(repo, remote, refspecs, options.onTransfer, layout === 'refs' ? refusedAdvice(remote) : undefined);
  const refs: PushedBrvRef[] = pushed.map((r) =>
    localNameOf(layout, r.ref) === r.ref ? r : { ...r, ref: localNameOf(layout, r.ref), remoteRef: r.ref },
  );
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
export async function syncBranch(
  store: ContextStore,
  branch: string,
  remote: string,
  agent?: string,
  onProgress?: (progress: SyncProgress) => void,
): Promise<SyncResult> {
  let merge: IncomingResult | undefined;
  for (let attempt = 1; ; attempt++) {
    const report = (step: SyncProgress['step']) =>
      onProgress && ((transfer: GitTransferProgress) => onProgress({ step, remote, branch, attempt, transfer }));
    onProgress?.({ step: 'fetch', remote, branch, attempt });
    const fetch = await fetchRemote(store, remote, { onTransfer: report('fetch') });
    onProgress?.({ step: 'merge', remote, branch, attempt });
    merge = (await integrateRemote(store, branch, remote, agent, fetch)) ?? merge;
    // Held: the branch did not take the remote's tip, so a push could only be refused (and retried
    // in vain). Nothing is pushed until the review is decided; local commits wait here.
    if (merge?.status === 'held')
      return { remote, branch, fetch, merge, push: { remote, branch, refs: [], upstreamSet: false, skipped: 'held' }, attempts: attempt };
    const hasLocal = await store.repo.resolve(branchRef(branch));
    if (hasLocal) onProgress?.({ step: 'push', remote, branch, attempt });
    const push: PushResult = hasLocal
      ? await pushBranch(store, branch, remote, { onTransfer: report('push') })
      : { remote, branch, refs: [], upstreamSet: false };
    const rejected = push.refs.some((r) => r.ref === branchRef(branch) && r.status === 'rejected');
    if (!rejected) return { remote, branch, fetch, merge, push, attempts: attempt };
    if (attempt >= MAX_SYNC_ATTEMPTS) {
      throw new BrvError(
        'sync-contention',
        `The remote ${remote} kept moving: gave up after ${attempt} fetch-merge-push rounds. Run brv sync again.`,
      );
    }
    // Someone pushed (or holds the remote ref's lock) in between: back off a little, jittered, so
    // concurrent syncs do not keep colliding in lock-step.
    await sleep(Math.min(400, 40 * attempt) + Math.random() * 60 * attempt);
  }
}

/**
 * What a push refused by the host's policy should suggest on a remote in the default layout: hosts
 * that accept only branches and tags refuse every brv ref, and the branches layout is made for them.
 */
function refusedAdvice(remote: string): string {
  return (
    `If ${remote} accepts only branches and tags (some hosts refuse ${BRV_REF_PREFIX}*), keep knowledge on ordinary branches there: ` +
    `brv vc remote set-layout ${remote} branches (README: "Hosts that refuse ${BRV_REF_PREFIX}*"). Otherwise ask whoever runs it, or push elsewhere.`
  );
}

/** The git config key naming where a remote keeps knowledge; unset means the default layout. */
function layoutKey(remote: string): string {
  return `remote.${remote}.brvLayout`;
}

/** A layout as git config holds it (case and surrounding blanks aside); undefined for anything else. */
function parseLayout(value: string): RemoteLayout | undefined {
  return REMOTE_LAYOUTS.find((l) => l === value.trim().toLowerCase());
}

/**
 * Where `remote` keeps brv's branches and reviews (`remote.<name>.brvLayout`: refs, the default, or
 * branches). A value brv does not know is an error, never read as the default: pushing to the wrong
 * place would split the team's knowledge.
 */
export async function remoteLayout(repo: GitRepository, remote: string): Promise<RemoteLayout> {
  return (await configuredLayout(repo, remote)) ?? DEFAULT_REMOTE_LAYOUT;
}

/** The layout set for `remote`, undefined when none is (see remoteLayout). */
async function configuredLayout(repo: GitRepository, remote: string): Promise<RemoteLayout | undefined> {
  const value = await repo.configGet(layoutKey(remote));
  if (value === undefined) return undefined;
  const layout = parseLayout(value);
  if (layout) return layout;
  throw new BrvError(
    'invalid-setting-value',
    `git config ${layoutKey(remote)} is "${value}", which is not a knowledge layout: refs (the default, under ${BRV_REF_PREFIX}) or branches ` +
      `(ordinary branches brv/<branch>, for hosts that accept only branches and tags). Set it with brv vc remote set-layout ${remote} <refs|branches>.`,
  );
}

/** Every remote whose layout is set (the rest use the default), by remote name; values brv does not know are left out. */
export async function remoteLayouts(repo: GitRepository): Promise<Map<string, RemoteLayout>> {
  const layouts = new Map<string, RemoteLayout>();
  for (const { key, value } of await repo.configList('^remote\\..*\\.brvlayout$')) {
    const layout = parseLayout(value);
    if (layout) layouts.set(key.slice('remote.'.length, -'.brvlayout'.length), layout);
  }
  return layouts;
}

export interface LayoutChange {
  /** The remote. */
  name: string;
  layout: RemoteLayout;
  previous: RemoteLayout | undefined;
  /** brv's fetch refspecs added to and removed from `remote.<name>.fetch` (only when the remote was tracked). */
  tracked: { added: string[]; removed: string[] };
}

/**
 * Chooses where `remote` keeps knowledge. When it changes, the remote-tracking refs of the old
 * layout are dropped (they describe refs the remote no longer serves to brv), the record of the
 * remote's reviews is emptied (so the first push brings the open reviews to the new place and the
 * first fetch closes none), and a tracked remote's fetch refspecs follow. Nothing on the remote changes.
 */
export async function setRemoteLayout(store: ContextStore, remote: string, layout: RemoteLayout): Promise<LayoutChange> {
  const { repo } = store;
  await requireRemote(repo, remote);
  const previous = await remoteLayout(repo, remote).catch(() => undefined);
  // Written even for the default: a layout someone chose is never replaced by one brv finds (fetchRemote).
  await repo.configSet(layoutKey(remote), layout);
  if (previous === layout) return { name: remote, layout, previous, tracked: { added: [], removed: [] } };
  const existing = await repo.configGetAll(`remote.${remote}.fetch`);
  const wasTracked = REMOTE_LAYOUTS.some((l) => fetchRefspecs(remote, l).some((refspec) => existing.includes(refspec)));
  const tracked = wasTracked ? await retrack(repo, remote, layout) : { added: [], removed: [] };
  await withRefRetries(async () => {
    const stale = await repo.listRefs(remoteTrackingPrefix(remote));
    if (stale.length > 0)
      await repo.updateRefs(
        stale.map((r) => ({ ref: r.ref, newOid: undefined, oldOid: r.oid })),
        `brv: ${remote} now keeps knowledge in the ${layout} layout`,
      );
  });
  await writeSeenReviews(store, remote, new Set());
  return { name: remote, layout, previous, tracked };
}

/**
 * Whether a fresh `git clone` shows a remote in the branches layout: git's default refspec brought
 * branches brv/<branch> into refs/remotes/<remote>/brv/, and one of them at least is a brv commit
 * this brv reads. No network: asked after a clone whose default-layout fetch found no brv branch.
 */
async function looksLikeBranchesLayout(repo: GitRepository, remote: string): Promise<boolean> {
  const refs = await repo.listRefs(plainBranchesLayoutPrefix(remote));
  if (refs.length === 0) return false;
  const problems = await checkForeignTips(
    repo,
    refs.map(({ ref, oid }) => ({ label: ref, oid })),
  );
  return refs.some(({ oid }) => !problems.has(oid));
}

/** Adds brv's fetch refspecs (for the remote's layout) to a remote so a plain `git fetch` also brings knowledge. */
export async function trackRemote(repo: GitRepository, remote: string): Promise<string[]> {
  await requireRemote(repo, remote);
  return (await retrack(repo, remote, await remoteLayout(repo, remote))).added;
}

/**
 * Puts `layout`'s refspecs on the remote and takes off those of the other layouts: both would map
 * the remote's refs onto the same remote-tracking refs, and git refuses such a fetch outright.
 */
async function retrack(repo: GitRepository, remote: string, layout: RemoteLayout): Promise<{ added: string[]; removed: string[] }> {
  const key = `remote.${remote}.fetch`;
  const existing = await repo.configGetAll(key);
  const wanted = fetchRefspecs(remote, layout);
  const removed = REMOTE_LAYOUTS.filter((l) => l !== layout)
    .flatMap((l) => fetchRefspecs(remote, l))
    .filter((refspec) => existing.includes(refspec) && !wanted.includes(refspec));
  for (const refspec of removed) await repo.configUnset(key, { valuePattern: `^${refspec.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}$` });
  const added: string[] = [];
  for (const refspec of wanted) {
    if (existing.includes(refspec)) continue;
    await repo.configSet(key, refspec, { add: true });
    added.push(refspec);
  }
  return { added, removed };
}

/** Whether a plain `git fetch <remote>` brings knowledge: the remote's fetch config has brv's refspecs for its layout. */
export async function isTracked(repo: GitRepository, remote: string): Promise<boolean> {
  const existing = await repo.configGetAll(`remote.${remote}.fetch`);
  const layout = await remoteLayout(repo, remote).catch(() => DEFAULT_REMOTE_LAYOUT);
  return fetchRefspecs(remote, layout).every((refspec) => existing.includes(refspec));
}

/**
 * After a clone or a first fetch: local brv branches for remote ones that have no local copy yet.
 * A remote tip that is not a brv commit this brv reads gets no local branch; with the trust policy
 * on (sync.requireSigned), neither does one whose history has a commit the policy does not accept
 * (a pull then says which, see integrateIncoming).
 */
export async function createMissingBranches(repo: GitRepository, remote: string): Promise<string[]> {
  const prefix = remoteBranchPrefix(remote);
  const requireSigned = (await readSettings(repo))['sync.requireSigned'];
  if (requireSigned) await requireTrustConfigured(repo);
  return withRefRetries(async () => {
    const local = new Set((await repo.listRefs(BRANCH_PREFIX)).map((r) => r.ref));
    const candidates = (await repo.listRefs(prefix)).filter(({ ref }) => !local.has(branchRef(ref.slice(prefix.length))));
    const problems = await checkForeignTips(
      repo,
      candidates.map(({ ref, oid }) => ({ label: ref, oid })),
    );
    const created: string[] = [];
    const updates = [];
    for (const { ref, oid } of candidates) {
      if (problems.has(oid)) continue;
      if (requireSigned && (await untrustedCommits(repo, oid, undefined)).length > 0) continue;
      const branch = ref.slice(prefix.length);
      updates.push({ ref: branchRef(branch), newOid: oid, oldOid: undefined });
      created.push(branch);
    }
    if (updates.length > 0) await repo.updateRefs(updates, `brv clone: branches from ${remote}`);
    return created;
  });
}

async function reviewIds(repo: GitRepository, prefix: string): Promise<string[]> {
  return (await repo.listRefs(prefix)).map((r) => r.ref.slice(prefix.length));
}
