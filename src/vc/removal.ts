import { BrvError } from '../base/errors.js';
import { mergeCommits } from '../git/merge-tree.js';
import { RefMovedError, type GitRepository, type RefUpdate } from '../git/repository.js';
import type { ReviewDecision } from './review.js';
import { readSettings } from '../settings/settings.js';
import type { ContextStore, Tip } from '../store/context-store.js';
import { branchRef, REVIEW_PREFIX, reviewRef } from '../store/layout.js';
import { editTree } from '../store/tree-edit.js';
import { formatCommitMessage, parseCommitMessage } from '../store/trailers.js';
import { topicPathFromBlobPath } from '../topic/path.js';
import { mergeIntoBranch, resolveConflicts, type MergeResult } from './merge.js';
import { refuseUntrusted, requireTrustConfigured, untrustedCommits, untrustedLine, type UntrustedCommit } from './trust.js';

// The removal guard (DESIGN §2.6, issue 31): a pull never silently takes knowledge away. Every path
// that moves a local brv branch to knowledge from elsewhere (brv vc pull, brv sync, the git hooks,
// brv vc merge <remote>/<branch>, and the automatic fast-forward of fetched knowledge when it
// comes) goes through integrateIncoming: an incoming change that deletes or empties more topics than
// the settings allow is held as a review (`refs/brv/review/<id>`, never pushed) instead of applied,
// and what any incoming change removes is always reported. With brv.sync.requireSigned on, an
// incoming change with commits not signed by an allowed key is held the same way (trust.ts).

/** Topics an incoming change takes away from the local tip. */
export interface RemovedTopics {
  /** Topics it deletes. */
  deleted: string[];
  /** Topics it keeps but empties (see isEmptied). */
  emptied: string[];
}

/** What an incoming change removes, and how many topics the local tip had. */
export interface RemovalCount extends RemovedTopics {
  /** Topics on the local tip before the change. */
  topics: number;
  /** The local blob of every removed topic (blob path → oid), so that a rejection can restore them. */
  blobs: Map<string, string>;
}

/** The settings of the guard (sync.holdRemovals, sync.removalLimit, sync.removalShare: src/settings/registry.ts). */
export interface RemovalPolicy {
  hold: boolean;
  /** Held when more than this many topics go (0: any). */
  limit: number;
  /** Held when more than this percentage of the topics go, and more than one topic. */
  share: number;
}

/** A held incoming change: a review whose commit holds what the branch would have become. */
export interface HeldIncoming {
  /** The review id (`brv review show|approve|reject <id>`). */
  id: string;
  /** The hold's commit: the result tree, with the local tip and the incoming tip as parents. */
  commit: string;
  /** The incoming commit that is held. */
  incoming: string;
  /** Where it came from: `origin/main`. */
  source: string;
  /** The rule that held it, in words ("more than 10 topics", "not signed by an allowed key"). */
  rule: string;
  /** Topics on the local tip when it was held. */
  topics: number;
  /** Opened by this call; false when an earlier pull or sync had already held the same change. */
  opened: boolean;
  /** Why it is held: it removes too many topics, or it has commits the trust policy does not accept. */
  kind: HoldKind;
  /** For an `untrusted` hold: each commit held, who made it and why (as far as this call saw them). */
  untrusted?: UntrustedCommit[];
}

export type HoldKind = 'removal' | 'untrusted';

/** An incoming change integrated (or held): the merge, and the topics it removes (or would remove). */
export interface IncomingResult extends MergeResult {
  removed: RemovedTopics;
  /** Set when status is `held`: the branch did not move. */
  held?: HeldIncoming;
}

/** An open hold, as the review refs record it. */
export interface Hold {
  id: string;
  ref: string;
  commit: string;
  /** The local tip it was measured against, and the incoming tip. */
  base: string;
  incoming: string;
  source: string;
  /** The local brv branch it was held from. */
  branch: string;
  /** Its commit's subject without "hold: ": `origin/main would remove 13 of 15 topics (more than 10 topics)`. */
  subject: string;
  /** The rule that held it, as recorded. */
  reason: string;
  kind: HoldKind;
  /** An untrusted hold's commits, as recorded: `<oid> <author>: <why> [key <fingerprint>]`. */
  untrusted: string[];
}

/** Blobs of at most this size are read to tell an emptied topic; a larger one is never counted as emptied. */
const EMPTY_READ_LIMIT = 4096;
/** Fewer letters and digits than this outside markup: the topic says nothing any more. */
const MIN_TEXT = 4;

async function readPolicies(repo: GitRepository): Promise<{ removal: RemovalPolicy; requireSigned: boolean }> {
  const settings = await readSettings(repo);
  return {
    removal: { hold: settings['sync.holdRemovals'], limit: settings['sync.removalLimit'], share: settings['sync.removalShare'] },
    requireSigned: settings['sync.requireSigned'],
  };
}

/**
 * Why a change that removes `count` is held, in words; undefined when it is applied. Held when it
 * removes more than `limit` topics, or more than `share` % of the local topics (and more than one:
 * a teammate deleting one stale topic of a young tree of three is ordinary), or every topic there is.
 */
export function holdRule(count: Pick<RemovalCount, 'deleted' | 'emptied' | 'topics'>, policy: RemovalPolicy): string | undefined {
  const removed = count.deleted.length + count.emptied.length;
  if (!policy.hold || removed === 0) return undefined;
  if (removed > policy.limit)
    return policy.limit === 0 ? 'every removal is held (sync.removalLimit 0)' : `more than ${policy.limit} topics`;
  if (removed > 1 && removed * 100 > policy.share * count.topics) return `more than ${policy.share} % of the ${count.topics} topics`;
  if (removed >= count.topics) return 'every topic';
  return undefined;
}

/**
 * The topics `from` has that `to` deletes or empties. Emptied: the topic's blob changes to a smaller
 * one of at most 4 KiB whose text outside markup (tags, comments, character references; attribute
 * values such as the title do not count) has fewer than 4 letters or digits, while the old one had
 * more. Sizes come from the tree listings; only blobs within that limit are read (untrusted:
 * never more than the limit).
 */
export async function measureRemoval(repo: GitRepository, from: string, to: string): Promise<RemovalCount> {
  const count: RemovalCount = { deleted: [], emptied: [], topics: 0, blobs: new Map() };
  // Only what changed is looked at: one diff, then sizes of the modified blobs (object headers).
  const changes = from === to ? [] : (await repo.diffTrees(from, to)).filter((c) => topicPathFromBlobPath(c.path) !== undefined);
  const modified = changes.filter((c) => c.status === 'M');
  const sizes = modified.length > 0 ? await repo.blobSizes(modified.flatMap((c) => [c.oldOid, c.newOid])) : new Map<string, number>();
  for (const change of changes) {
    const topic = topicPathFromBlobPath(change.path)!;
    if (change.status === 'D') {
      count.deleted.push(topic);
      count.blobs.set(change.path, change.oldOid);
    } else if (change.status === 'M') {
      const oldSize = sizes.get(change.oldOid);
      if (oldSize === undefined) continue; // not a blob before (a submodule entry): no topic here to lose
      const newSize = sizes.get(change.newOid);
      // A blob that is no blob any more (a submodule entry): the topic is gone.
      const emptied =
        newSize === undefined ||
        (newSize < oldSize &&
          newSize <= EMPTY_READ_LIMIT &&
          !hasText(await repo.readBlob(change.newOid)) &&
          (oldSize > EMPTY_READ_LIMIT || hasText(await repo.readBlob(change.oldOid))));
      if (emptied) {
        count.emptied.push(topic);
        count.blobs.set(change.path, change.oldOid);
      }
    }
  }
  // The topics there were: only needed (and listed, names only) when something goes.
  if (count.deleted.length + count.emptied.length > 0)
    count.topics = (await repo.listTreePaths(from)).filter((p) => topicPathFromBlobPath(p) !== undefined).length;
  return count;
}

function hasText(blob: Buffer | undefined): boolean {
  if (!blob) return false;
  const text = blob
    .toString('utf8')
    .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
    .replace(/<[^>]*(>|$)/g, ' ')
    .replace(/&#?\w+;/g, ' ');
  return (text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= MIN_TEXT;
}

/**
 * Moves `branch` to an incoming commit (a fetched remote tip): fast-forward or merge by
 * compare-and-swap, unless a policy holds it: the trust policy (setting sync.requireSigned: a commit it
 * brings has no good signature by an allowed key, see trust.ts), or what it would remove from the
 * local tip passes the settings' limits (holdRule). Then the branch stays where it is and the change
 * is held as a review (one per incoming tip: holding the same tip again reopens nothing). With no
 * local branch there is nothing to hold it against: untrusted knowledge is then refused
 * (`untrusted-knowledge`). Earlier holds from the same source that are settled (their tip is now in
 * the branch) or superseded (a newer incoming tip) are closed.
 */
export async function integrateIncoming(
  store: ContextStore,
  branch: string,
  theirs: string,
  options: {
    source: string;
    subject: string;
    agent?: string;
    /** An untrusted hold already open for this incoming tip and local tip is the answer (no signature checked again): for reads. */
    reuseOpenHold?: boolean;
    /** Fast-forward or nothing (status `diverged`): the read-time import never merges (see mergeIntoBranch). */
    fastForwardOnly?: boolean;
  },
): Promise<IncomingResult> {
  const { removal: policy, requireSigned } = await readPolicies(store.repo);
  // The commits new to the branch, checked once per local tip the merge is tried against.
  const checked = new Map<string, Promise<UntrustedCommit[]>>();
  const untrustedFrom = (local: string | undefined): Promise<UntrustedCommit[]> => {
    const key = local ?? '';
    if (!checked.has(key)) checked.set(key, untrustedCommits(store.repo, theirs, local));
    return checked.get(key)!;
  };
  if (requireSigned) {
    await requireTrustConfigured(store.repo);
    const local = await store.repo.resolve(branchRef(branch));
    // Already held against this very tip (a pull or a read before this one): with reuseOpenHold
    // (the read-time import), the same verdict without asking git to verify every signature again;
    // reads come often and holds wait for a person. pull and sync check again (the allowed signers
    // may have changed since).
    const open = local && options.reuseOpenHold && (await openUntrustedHold(store, branch, theirs, options.source, local));
    if (open) return open;
    if (!local) await refuseUntrusted(store.repo, theirs, options.source, branch);
  }
  let measured: { count: RemovalCount; tip: Tip; tree: string; rule: string | undefined; untrusted?: UntrustedCommit[] } | undefined;
  const result = await mergeIntoBranch(store, branch, theirs, {
    subject: options.subject,
    theirsLabel: options.source,
    agent: options.agent,
    ...(options.fastForwardOnly ? { fastForwardOnly: true } : {}),
    inspect: async (tip, tree) => {
      const untrusted = requireSigned ? await untrustedFrom(tip.oid) : [];
      if (untrusted.length > 0) {
        measured = { count: { deleted: [], emptied: [], topics: 0, blobs: new Map() }, tip, tree, rule: UNTRUSTED_RULE, untrusted };
        return 'hold';
      }
      const count = await measureRemoval(store.repo, tip.tree, tree);
      measured = { count, tip, tree, rule: holdRule(count, policy) };
      return measured.rule ? 'hold' : 'go';
    },
  });
  const removed: RemovedTopics =
    measured && result.status !== 'up-to-date'
      ? { deleted: measured.count.deleted, emptied: measured.count.emptied }
      : { deleted: [], emptied: [] };
  if (result.status === 'held' && measured?.rule) {
    const held = measured.untrusted
      ? await holdIncoming(store, branch, theirs, options.source, { ...measured, rule: measured.rule }, measured.untrusted)
      : await holdIncoming(store, branch, theirs, options.source, { ...measured, rule: measured.rule });
    return { ...result, removed, held };
  }
  await closeHolds(store, branch, options.source, async (hold) => store.repo.isAncestor(hold.incoming, result.commit));
  return { ...result, removed };
}

/** The result of integrating `theirs` again while an untrusted hold of it, measured against `local`, is open. */
async function openUntrustedHold(
  store: ContextStore,
  branch: string,
  theirs: string,
  source: string,
  local: string,
): Promise<IncomingResult | undefined> {
  const hold = (await listHolds(store)).find(
    (h) => h.kind === 'untrusted' && h.branch === branch && h.source === source && h.incoming === theirs && h.base === local,
  );
  if (!hold) return undefined;
  const untrusted = hold.untrusted.map((line): UntrustedCommit => {
    const parsed = /^(\S+) (.*?>): (.*?)(?: \[key (\S+)\])?$/.exec(line);
    return parsed
      ? { commit: parsed[1]!, author: parsed[2]!, why: parsed[3]!, ...(parsed[4] ? { key: parsed[4] } : {}) }
      : { commit: '', author: '', why: line };
  });
  return {
    status: 'held',
    commit: local,
    merged: [],
    conflicts: [],
    removed: { deleted: [], emptied: [] },
    held: {
      id: hold.id,
      commit: hold.commit,
      incoming: theirs,
      source,
      rule: UNTRUSTED_RULE,
      topics: 0,
      opened: false,
      kind: hold.kind,
      untrusted,
    },
  };
}

/** The rule of an untrusted hold, in words. */
const UNTRUSTED_RULE = 'not signed by an allowed key';

/** Every open hold (review refs whose commit is an incoming-hold commit). */
export async function listHolds(store: ContextStore): Promise<Hold[]> {
  const holds: Hold[] = [];
  for (const { ref, oid } of await store.repo.listRefs(REVIEW_PREFIX)) {
    const commit = await store.repo.readCommit(oid);
    if (!commit || commit.parents.length !== 2) continue;
    const { subject, meta } = parseCommitMessage(commit.message);
    // "<source> into <branch>": neither a remote name nor a brv branch name holds a space.
    const into = meta.op === 'incoming-hold' ? /^(\S+) into (\S+)$/.exec(meta.incoming ?? '') : null;
    if (!into) continue;
    const kind: HoldKind = meta.hold === 'untrusted' ? 'untrusted' : 'removal';
    holds.push({
      id: ref.slice(REVIEW_PREFIX.length),
      ref,
      commit: oid,
      base: commit.parents[0]!,
      incoming: commit.parents[1]!,
      source: into[1]!,
      branch: into[2]!,
      subject: subject.replace(/^hold: /, ''),
      reason: meta.reason ?? '',
      kind,
      untrusted: meta.untrusted ?? [],
    });
  }
  return holds;
}

const NAMED = 8;

/** "a, b, c and 4 more". */
function named(topics: readonly string[]): string {
  const shown = topics.slice(0, NAMED).join(', ');
  return topics.length > NAMED ? `${shown} and ${topics.length - NAMED} more` : shown;
}

async function holdIncoming(
  store: ContextStore,
  branch: string,
  theirs: string,
  source: string,
  measured: { count: RemovalCount; tip: Tip; tree: string; rule: string },
  untrusted?: UntrustedCommit[],
): Promise<HeldIncoming> {
  const { repo } = store;
  const { count } = measured;
  const removed = count.deleted.length + count.emptied.length;
  const kind: HoldKind = untrusted ? 'untrusted' : 'removal';
  const held = (hold: Hold, opened: boolean): HeldIncoming => ({
    id: hold.id,
    commit: hold.commit,
    incoming: theirs,
    source,
    rule: measured.rule,
    topics: count.topics,
    opened,
    kind,
    ...(untrusted ? { untrusted } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const mine = (await listHolds(store)).filter((h) => h.source === source && h.branch === branch);
    // The same tip held for another reason (a removal hold before the trust policy was turned on) is superseded too.
    const same = mine.filter((h) => h.incoming === theirs && h.kind === kind).sort((a, b) => a.commit.localeCompare(b.commit));
    const superseded = mine.filter((h) => h.incoming !== theirs || h.kind !== kind);
    // Two syncs holding the same tip at once each made a hold: every one keeps the lowest.
    const keep = same[0];
    const updates: RefUpdate[] = [...superseded, ...same.slice(1)].map((h) => ({ ref: h.ref, newOid: undefined, oldOid: h.commit }));
    let hold = keep;
    if (!hold) {
      const parts = [
        count.deleted.length > 0 ? `deletes ${named(count.deleted)}` : '',
        count.emptied.length > 0 ? `empties ${named(count.emptied)}` : '',
      ].filter(Boolean);
      const message = untrusted
        ? formatCommitMessage(`hold: ${source} has ${untrusted.length} commit(s) ${UNTRUSTED_RULE}`, {
            op: 'incoming-hold',
            gate: 'held',
            incoming: `${source} into ${branch}`,
            hold: 'untrusted',
            reason: untrustedReason(untrusted),
            untrusted: untrusted.slice(0, MAX_RECORDED).map(untrustedLine),
          })
        : formatCommitMessage(`hold: ${source} would remove ${removed} of ${count.topics} topics (${measured.rule})`, {
            op: 'incoming-hold',
            gate: 'held',
            incoming: `${source} into ${branch}`,
            reason: parts.join('; '),
          });
      // Bookkeeping of this clone only (never on a branch, never pushed): not signed.
      const commit = await repo.commitTree(measured.tree, [measured.tip.oid, theirs], message, { sign: false });
      const id = commit.slice(0, 12);
      hold = {
        id,
        ref: reviewRef(id),
        commit,
        base: measured.tip.oid,
        incoming: theirs,
        source,
        branch,
        subject: '',
        reason: '',
        kind,
        untrusted: [],
      };
      updates.push({ ref: hold.ref, newOid: commit, oldOid: undefined });
    }
    try {
      if (updates.length > 0) await repo.updateRefs(updates, `brv: hold ${source} (${measured.rule})`);
      return held(hold, !keep);
    } catch (error) {
      if (!(error instanceof RefMovedError) || attempt >= 5) throw error;
    }
  }
}

/** Commits of an untrusted hold named one by one in its record; the rest are counted. */
const MAX_RECORDED = 20;

/** An untrusted hold's reason: whose commits, and why, in one line ("2 by Mallory <m@x>: unsigned; …"). */
function untrustedReason(untrusted: readonly UntrustedCommit[]): string {
  const groups = new Map<string, number>();
  for (const c of untrusted) {
    const key = `${c.author}${c.signer ? ` (signer ${c.signer})` : ''}: ${c.why}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups].map(([key, n]) => `${n} by ${key}`).join('; ');
}

/** Closes the holds of `source` into `branch` that `settled` says are done (their review refs deleted, by CAS). */
async function closeHolds(store: ContextStore, branch: string, source: string, settled: (hold: Hold) => Promise<boolean>): Promise<void> {
  const updates: RefUpdate[] = [];
  for (const hold of await listHolds(store))
    if (hold.source === source && hold.branch === branch && (await settled(hold)))
      updates.push({ ref: hold.ref, newOid: undefined, oldOid: hold.commit });
  // A concurrent decision closed one first: it is closed either way.
  if (updates.length > 0) await store.repo.updateRefs(updates, `brv: holds from ${source} settled`).catch(() => {});
}

/** The hold a review id (a unique prefix, as `brv review` takes them) names, or undefined for any other review. */
export async function findHold(store: ContextStore, rawId: string): Promise<Hold | undefined> {
  const wanted = rawId.trim().toLowerCase();
  if (!/^[0-9a-f]{4,64}$/.test(wanted)) return undefined;
  const ids = (await store.repo.listRefs(REVIEW_PREFIX)).map((r) => r.ref.slice(REVIEW_PREFIX.length));
  const matches = ids.filter((id) => id.startsWith(wanted) || wanted.startsWith(id));
  if (matches.length !== 1) return undefined;
  return (await listHolds(store)).find((h) => h.id === matches[0]);
}

/** What `brv review show` tells of a hold: where it comes from and every topic it would remove. */
export interface HoldDetails extends RemovedTopics {
  source: string;
  branch: string;
  /** The incoming commit held. */
  incoming: string;
  /** Topics on the local tip it was measured against. */
  topics: number;
  kind: HoldKind;
  /** An untrusted hold's commits: `<oid> <author>: <why> [key <fingerprint>]`, as recorded. */
  untrusted: string[];
  /** Its reason, as recorded. */
  reason: string;
}

export async function holdDetails(store: ContextStore, hold: Hold): Promise<HoldDetails> {
  const [base, held] = await Promise.all([store.repo.readCommit(hold.base), store.repo.readCommit(hold.commit)]);
  const count = base && held ? await measureRemoval(store.repo, base.tree, held.tree) : undefined;
  return {
    source: hold.source,
    branch: hold.branch,
    incoming: hold.incoming,
    topics: count?.topics ?? 0,
    deleted: count?.deleted ?? [],
    emptied: count?.emptied ?? [],
    kind: hold.kind,
    untrusted: hold.untrusted,
    reason: hold.reason,
  };
}

/**
 * Decides a held incoming change, whole. Approve: the branch takes it (fast-forward, or a merge when
 * the branch moved since) and the hold closes in the same transaction. Reject: the incoming history
 * is merged but every topic it would remove is kept as it is here (a merge commit recording the
 * rejection), so the next sync does not hold it again and pushes the topics back to the remote.
 */
export async function decideHold(
  store: ContextStore,
  branch: string,
  hold: Hold,
  decision: 'approved' | 'rejected',
  options: { files?: readonly string[]; agent?: string } = {},
): Promise<ReviewDecision> {
  const { repo } = store;
  if (options.files && options.files.length > 0) {
    throw new BrvError(
      'hold-decided-whole',
      `Review ${hold.id} holds incoming knowledge from ${hold.source}: approve or reject it whole (without --file). ` +
        `To keep some of its topics, approve it and curate them again, or reject it and delete the others.`,
    );
  }
  if (hold.branch !== branch) {
    throw new BrvError(
      'review-not-on-branch',
      `Review ${hold.id} holds knowledge from ${hold.source} for brv branch ${hold.branch}, not ${branch}: check it out (brv vc checkout ${hold.branch}) and decide there.`,
    );
  }
  await repo.requireModernGit();
  const closeRef: RefUpdate = { ref: hold.ref, newOid: undefined, oldOid: hold.commit };
  const baseTree = (await repo.readCommit(hold.base))?.tree;
  const holdTree = (await repo.readCommit(hold.commit))?.tree;
  const listed = baseTree && holdTree ? await measureRemoval(repo, baseTree, holdTree) : undefined;
  if (decision === 'approved') {
    const result = await mergeIntoBranch(store, branch, hold.incoming, {
      subject: `merge: ${hold.source} into ${branch} (approved review ${hold.id})`,
      theirsLabel: hold.source,
      agent: options.agent,
      alsoUpdate: [closeRef],
    });
    if (result.status === 'up-to-date') await repo.updateRefs([closeRef], `brv: hold ${hold.id} settled`).catch(() => {});
    const files = [...(listed?.deleted ?? []), ...(listed?.emptied ?? [])].map((path) => ({ path, reverted: false }));
    return {
      decision,
      taskId: hold.id,
      files,
      totalCount: files.length,
      commit: result.status === 'up-to-date' ? undefined : result.commit,
      remaining: [],
      // `conflicts` is a reject's (what it could not undo); a merge's conflicts open their own review.
      conflicts: [],
      ...(result.review ? { review: result.review } : {}),
    };
  }
  if (hold.kind === 'untrusted') {
    // Keep local: nothing of the untrusted history enters the branch; only the hold closes. The
    // remote still has it, so the next pull holds it again (a new review) until it is signed or gone.
    await repo.updateRefs([closeRef], `brv: hold ${hold.id} rejected`).catch(() => {});
    return { decision, taskId: hold.id, files: [], totalCount: 0, commit: undefined, remaining: [], conflicts: [] };
  }
  let restored: string[] = [];
  const outcome = await store.commit<string[]>(branch, async (snapshot) => {
    const tip = snapshot.commit;
    if (!tip) throw new BrvError('not-initialized', `brv branch ${branch} does not exist.`);
    if (tip.oid === hold.incoming || (await repo.isAncestor(hold.incoming, tip.oid))) {
      // Already in the branch (approved in another worktree, or merged by hand): only the hold closes.
      return { stop: [] };
    }
    let tree: string;
    if (await repo.isAncestor(tip.oid, hold.incoming)) {
      tree = (await repo.readCommit(hold.incoming))!.tree;
    } else {
      const merged = await mergeCommits(repo, tip.oid, hold.incoming);
      const resolved = await resolveConflicts(store, merged.conflicts, { ours: branch, theirs: hold.source });
      tree = resolved.edits.length > 0 ? ((await editTree(repo, merged.tree, resolved.edits)) ?? (await repo.emptyTree())) : merged.tree;
    }
    const count = await measureRemoval(repo, tip.tree, tree);
    restored = [...count.deleted, ...count.emptied];
    return {
      write: {
        tree,
        edits: [...count.blobs].map(([path, blob]) => ({ path, blob })),
        extraParents: [hold.incoming],
        allowEmpty: true,
        subject: `review: reject ${hold.id} — keep ${restored.length} topic(s) ${hold.source} removes`,
        meta: { op: 'review-reject', review: hold.id, files: [...count.blobs.keys()], agent: options.agent },
        alsoUpdate: [closeRef],
      },
      result: restored,
    };
  });
  if (!outcome.commit) await repo.updateRefs([closeRef], `brv: hold ${hold.id} settled`).catch(() => {});
  const files = restored.map((path) => ({ path, reverted: true }));
  return { decision, taskId: hold.id, files, totalCount: files.length, commit: outcome.commit, remaining: [], conflicts: [] };
}
