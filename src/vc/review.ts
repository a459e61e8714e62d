import { BrvError, isBrvError } from '../base/errors.js';
import { mergeCommits, mergeTreesWithBase } from '../git/merge-tree.js';
import type { ContextStore, OpenedReview } from '../store/context-store.js';
import { branchRef, REVIEW_PREFIX, reviewRef } from '../store/layout.js';
import { editTree, type TreeEdit } from '../store/tree-edit.js';
import { parseCommitMessage, printableLine, type CommitMeta } from '../store/trailers.js';
import { normalizeTopicPath, topicBlobPath, topicPathFromBlobPath } from '../topic/path.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import { resolveConflicts } from './merge.js';
import { hasConflictNote, resolveTopicConflicts, topicConflicts, type ConflictSide, type TopicConflict } from './conflicts.js';

/** One changed file of a reviewed commit, in ByteRover's `review pending` shape. */
export interface ReviewOperation {
  path: string;
  filePath: string;
  type: string;
  impact?: string;
  reason?: string;
  summary?: string;
  previousSummary?: string;
}

export interface PendingReview {
  taskId: string;
  commit: string;
  subject: string;
  /** Waiting on its review ref: not on the branch until approved. */
  gated: boolean;
  /** The reviewed commit is in the current brv branch's history (decisions apply here). */
  onBranch: boolean;
  /** When the reviewed change was recorded (its commit's committer date, ISO 8601). */
  time: string;
  /** Who recorded it: the commit's git author. */
  author?: { name: string; email: string };
  /** The agent that made it (`Brv-Agent`: `claude-code`, `webui`, `tui`…). */
  agent?: string;
  /** The curate session it came from (`Brv-Session`). */
  session?: string;
  /** The model that wrote it, for a self-driven curate or a dream (`Brv-Model`: `provider/model`). */
  model?: string;
  /** The impact its writer declared (`Brv-Impact`). */
  impact?: string;
  operations: ReviewOperation[];
}

/** Which reviews to list: each given field must match (see `filterReviews`). */
export interface ReviewFilter {
  /** The agent, exactly (case ignored). */
  agent?: string;
  /** Part of the author's name or email (case ignored). */
  author?: string;
  /** The declared impact, exactly (case ignored). */
  impact?: string;
  /** Recorded on or after this day (`YYYY-MM-DD`), time (ISO 8601) or this long ago (`30m`, `12h`, `7d`, `2w`). */
  since?: string;
  /** Made by this model (part of `provider/model`, case ignored). */
  model?: string;
  /** From this curate session (a prefix is enough). */
  session?: string;
}

const AGO: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `since` as an instant (ms), or `invalid-date` naming the forms it takes. */
export function sinceInstant(since: string, now = Date.now()): number {
  const value = since.trim();
  const ago = /^(\d{1,6})([mhdw])$/.exec(value);
  if (ago) return now - Number(ago[1]) * AGO[ago[2]!]!;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const time = day ? Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : Date.parse(value);
  // Date.UTC rolls 2026-13-45 over into 2027: a day must read back as itself.
  const valid = day ? new Date(time).toISOString().slice(0, 10) === value : /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(time);
  if (!valid)
    throw new BrvError(
      'invalid-date',
      `--since takes a day (YYYY-MM-DD), a time (2026-12-06T08:00Z) or how long ago (30m, 12h, 7d, 2w), not "${since}".`,
    );
  return time;
}

/** The reviews of `list` that match every field of `filter` (an empty filter keeps all). */
export function filterReviews(list: ReviewList, filter: ReviewFilter, now = Date.now()): ReviewList {
  const lower = (value: string | undefined) => value?.trim().toLowerCase() || undefined;
  const agent = lower(filter.agent);
  const author = lower(filter.author);
  const impact = lower(filter.impact);
  const model = lower(filter.model);
  const session = lower(filter.session);
  const since = filter.since?.trim() ? sinceInstant(filter.since, now) : undefined;
  const tasks = list.tasks.filter(
    (task) =>
      (agent === undefined || task.agent?.toLowerCase() === agent) &&
      (author === undefined || `${task.author?.name ?? ''} <${task.author?.email ?? ''}>`.toLowerCase().includes(author)) &&
      (impact === undefined || (task.impact ?? task.operations[0]?.impact)?.toLowerCase() === impact) &&
      (model === undefined || (task.model?.toLowerCase().includes(model) ?? false)) &&
      (session === undefined || (task.session?.toLowerCase().startsWith(session) ?? false)) &&
      (since === undefined || Date.parse(task.time) >= since),
  );
  return { pendingCount: tasks.reduce((n, t) => n + t.operations.length, 0), tasks };
}

export interface ReviewList {
  pendingCount: number;
  tasks: PendingReview[];
}

export interface ReviewDecision {
  decision: 'approved' | 'rejected';
  taskId: string;
  files: Array<{ path: string; reverted: boolean }>;
  totalCount: number;
  /** The commit that records the decision on the branch. */
  commit: string | undefined;
  /** Files of the review still undecided (the review stays open while there are any). */
  remaining: string[];
  /**
   * Topics a reject could not undo cleanly, because a later change edited the same sections: both
   * versions are kept, marked in the topic, and `review` (a merge review) is open to resolve them
   * with `brv review resolve`. Empty when the decision applied cleanly.
   */
  conflicts: string[];
  /** The merge review the conflicts opened (absent when there are none, or reviews are disabled). */
  review?: OpenedReview;
}

const STATUS_TYPE: Record<string, string> = { A: 'ADD', M: 'UPDATE', D: 'DELETE' };

/** Every open review, oldest first (by when its change was recorded), with the files still awaiting a decision. */
export async function listReviews(store: ContextStore, branch: string): Promise<ReviewList> {
  const refs = await store.repo.listRefs(REVIEW_PREFIX);
  const tasks: PendingReview[] = [];
  for (const { ref, oid } of refs) {
    const review = await loadReview(store, branch, ref.slice(REVIEW_PREFIX.length), oid);
    if (review && review.operations.length > 0) tasks.push(review);
  }
  tasks.sort((a, b) => a.time.localeCompare(b.time));
  return { pendingCount: tasks.reduce((n, t) => n + t.operations.length, 0), tasks };
}

export async function approveReview(
  store: ContextStore,
  branch: string,
  id: string,
  files: readonly string[] = [],
  options: { keepBoth?: boolean } = {},
): Promise<ReviewDecision> {
  return decide(store, branch, id, 'approved', files, options.keepBoth ?? false);
}

export async function rejectReview(
  store: ContextStore,
  branch: string,
  id: string,
  files: readonly string[] = [],
): Promise<ReviewDecision> {
  return decide(store, branch, id, 'rejected', files);
}

async function decide(
  store: ContextStore,
  branch: string,
  rawId: string,
  decision: 'approved' | 'rejected',
  files: readonly string[],
  keepBoth = false,
): Promise<ReviewDecision> {
  const { repo } = store;
  await repo.requireModernGit();
  const id = await findReviewId(store, rawId);
  const ref = reviewRef(id);
  let selected: string[] = [];
  let remaining: string[] = [];
  let reverted = new Set<string>();
  let conflicts: string[] = [];
  const outcome = await store.commit<string>(branch, async (snapshot) => {
    const reviewOid = await repo.resolve(ref);
    if (!reviewOid)
      throw new BrvError('review-not-found', `Review ${id} is no longer open (decided elsewhere?). List reviews with brv review pending.`);
    const review = await loadReview(store, branch, id, reviewOid);
    if (!review || review.operations.length === 0) throw new BrvError('review-not-found', `Review ${id} has nothing left to decide.`);
    const pending = review.operations.map((o) => o.filePath);
    selected = files.length === 0 ? pending : files.map((f) => toFilePath(f));
    const unknown = selected.filter((f) => !pending.includes(f));
    if (unknown.length > 0) {
      throw new BrvError(
        'file-not-in-review',
        `Review ${id} has no pending change to ${unknown.join(', ')}. Its files: ${pending.join(', ')}.`,
      );
    }
    remaining = pending.filter((f) => !selected.includes(f));
    const commit = (await repo.readCommit(reviewOid))!;
    const tip = snapshot.commit;
    if (!tip) throw new BrvError('not-initialized', `brv branch ${branch} does not exist.`);
    if (!review.gated && !review.onBranch) {
      throw new BrvError(
        'review-not-on-branch',
        `Review ${id} is about a commit that is not on brv branch ${branch}. Check out the branch it was made on (or merge it) and decide there.`,
      );
    }

    if (decision === 'approved' && !keepBoth && !review.gated) {
      // A merge's topics keep both versions, marked, until someone picks: approving must not bless the markers unseen.
      const unresolved: string[] = [];
      for (const op of review.operations) {
        if (op.type !== 'MERGE' || !selected.includes(op.filePath)) continue;
        const html = (await store.readFile(snapshot, op.filePath, { maxBytes: MAX_STORED_TOPIC_BYTES }))?.toString('utf8');
        if (html !== undefined && hasConflictNote(html)) unresolved.push(op.path);
      }
      if (unresolved.length > 0) {
        throw new BrvError(
          'unresolved-conflicts',
          `Review ${id}: ${unresolved.join(', ')} still ${unresolved.length === 1 ? 'carries' : 'carry'} merge conflict notes. ` +
            `See them with brv review show ${id}, resolve with brv review resolve ${id} <topic> --ours|--theirs|--both|--edit, ` +
            `or approve with --keep-both to keep both versions as they are.`,
        );
      }
    }

    let edits: TreeEdit[] = [];
    let tree: string | undefined;
    let extraParents: string[] = [];
    reverted = new Set();
    conflicts = [];
    if (decision === 'approved' && review.gated) {
      // Land the held change: merge it into the current tip (it was written on an older tip).
      const merged = await mergeCommits(repo, tip.oid, commit.oid);
      const resolved = await resolveConflicts(store, merged.conflicts, { ours: branch, theirs: `review ${id}` });
      if (remaining.length === 0) {
        tree = merged.tree;
        edits = resolved.edits;
        extraParents = [commit.oid];
      } else {
        const mergedTree = await editTreeFrom(store, merged.tree, resolved.edits);
        edits = await pickFiles(store, mergedTree, selected);
      }
    } else if (decision === 'rejected' && !review.gated) {
      // Three-way revert onto the current tip: undo exactly this commit, keep everything since.
      const parent = commit.parents[0] ? await repo.readCommit(commit.parents[0]) : undefined;
      const parentTree = parent?.tree ?? (await store.repo.emptyTree());
      const revert = await mergeTreesWithBase(repo, { commit: commit.oid, tree: commit.tree }, tip.tree, parentTree);
      const resolved = await resolveConflicts(store, revert.conflicts, { ours: branch, theirs: `revert of ${id}` });
      const revertTree = await editTreeFrom(store, revert.tree, resolved.edits);
      edits = await pickFiles(store, revertTree, selected);
      // A later change edited what this one changed: the revert keeps both versions, marked (or the
      // later modification of a topic this change added), and the commit opens a merge review for them.
      const names = new Set(selected.map((file) => topicPathFromBlobPath(file) ?? file));
      conflicts = resolved.conflicts.filter((name) => names.has(name));
      // The oids only (one batch-check): a blob, however large, is never loaded.
      const current = await repo.objectInfo(edits.map((edit) => `${tip.tree}:${edit.path}`));
      edits.forEach((edit, i) => {
        const name = topicPathFromBlobPath(edit.path) ?? edit.path;
        if (('remove' in edit ? undefined : edit.blob) !== current[i]?.oid && !conflicts.includes(name)) reverted.add(edit.path);
      });
    }
    const meta: CommitMeta = {
      op: decision === 'approved' ? 'review-approve' : 'review-reject',
      review: id,
      files: selected,
      ...(conflicts.length > 0 ? { conflicts } : {}),
    };
    return {
      write: {
        edits,
        tree,
        extraParents,
        allowEmpty: true,
        subject: `review: ${decision === 'approved' ? 'approve' : 'reject'} ${id} — ${review.subject}`,
        meta,
        alsoUpdate: remaining.length === 0 ? [{ ref, newOid: undefined, oldOid: reviewOid }] : [],
      },
      result: id,
    };
  });
  return {
    decision,
    taskId: id,
    files: selected.map((f) => ({ path: f, reverted: reverted.has(f) })),
    totalCount: selected.length,
    commit: outcome.commit,
    remaining,
    conflicts,
    ...(outcome.review ? { review: outcome.review } : {}),
  };
}

/** Accepts a full id, a unique prefix of one, or the reviewed commit's id. */
async function findReviewId(store: ContextStore, raw: string): Promise<string> {
  const wanted = raw.trim().toLowerCase();
  if (!/^[0-9a-f]{4,64}$/.test(wanted))
    throw new BrvError('invalid-review-id', `"${raw}" is not a review id (hex, as brv review pending lists them).`);
  const ids = (await store.repo.listRefs(REVIEW_PREFIX)).map((r) => r.ref.slice(REVIEW_PREFIX.length));
  const matches = ids.filter((id) => id.startsWith(wanted) || wanted.startsWith(id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new BrvError('ambiguous-review-id', `"${raw}" matches several reviews: ${matches.join(', ')}.`);
  throw new BrvError('review-not-found', `No open review ${raw}. List them with brv review pending.`);
}

async function loadReview(store: ContextStore, branch: string, id: string, oid: string): Promise<PendingReview | undefined> {
  const { repo } = store;
  const commit = await repo.readCommit(oid);
  if (!commit) return undefined;
  const raw = await repo.readObject(commit.oid);
  const header = raw ? (raw.data.toString('utf8').split('\n\n')[0] ?? '') : '';
  const seconds = /^committer .* (\d+) [+-]\d{4}$/m.exec(header)?.[1];
  const time = new Date(Number(seconds ?? 0) * 1000).toISOString();
  const signed = /^author (.*?) <([^>\n]*)> \d+ [+-]\d{4}$/m.exec(header);
  const { subject, meta } = parseCommitMessage(commit.message);
  const who = {
    ...(signed ? { author: { name: printableLine(signed[1]!), email: printableLine(signed[2]!) } } : {}),
    ...(meta.agent ? { agent: meta.agent } : {}),
    ...(meta.session ? { session: meta.session } : {}),
    ...(meta.model ? { model: meta.model } : {}),
    ...(meta.impact ? { impact: meta.impact } : {}),
  };
  const tip = await repo.resolve(branchRef(branch));
  const onBranch = tip !== undefined && (await repo.isAncestor(oid, tip));
  const gated = meta.gate === 'held' && !onBranch;
  const decided = tip && onBranch ? await decidedFiles(store, oid, tip, id) : new Set<string>();
  const details = {
    ...(meta.impact ? { impact: meta.impact } : {}),
    ...(meta.reason ? { reason: meta.reason } : {}),
    ...(meta.summary ? { summary: meta.summary } : {}),
    ...(meta.previousSummary ? { previousSummary: meta.previousSummary } : {}),
  };
  let operations: ReviewOperation[];
  if (meta.conflicts?.length) {
    // A merge: the topics that kept two versions (or survived a modify/delete), changed or not.
    operations = meta.conflicts.map((path) => ({ path, filePath: `${path}.html`, type: 'MERGE', ...details }));
  } else {
    const parentTree = commit.parents[0] ? (await repo.readCommit(commit.parents[0]))?.tree : undefined;
    const changes = await repo.diffTrees(parentTree ?? (await store.repo.emptyTree()), commit.tree);
    operations = changes
      .filter((c) => topicPathFromBlobPath(c.path) !== undefined)
      .map((c) => ({
        path: topicPathFromBlobPath(c.path)!,
        filePath: c.path,
        type: c.status === 'D' ? 'DELETE' : (meta.type ?? STATUS_TYPE[c.status]!),
        ...details,
        ...proposalReason(meta.proposals, c.path),
      }));
  }
  operations = operations.filter((o) => !decided.has(o.filePath));
  return { taskId: id, commit: oid, subject, gated, onBranch, time, ...who, operations };
}

/** A dream commit's own reason for one file (its Brv-Proposal trailer), instead of the commit's. */
function proposalReason(proposals: readonly string[] | undefined, file: string): { reason?: string } {
  const line = proposals?.find((p) => p.split(' ')[1] === `${file}:`);
  return line ? { reason: line } : {};
}

/** Files of review `id` already decided by partial decisions recorded after the reviewed commit. */
async function decidedFiles(store: ContextStore, reviewed: string, tip: string, id: string): Promise<Set<string>> {
  const { stdout } = await store.repo.git(['log', '--format=%B%x1e', `--grep=^Brv-Review: ${id}$`, `${reviewed}..${tip}`, '--']);
  const decided = new Set<string>();
  for (const body of stdout.split('\x1e')) {
    const { meta } = parseCommitMessage(body.trim());
    if (meta.review === id) for (const file of meta.files ?? []) decided.add(file);
  }
  return decided;
}

function toFilePath(file: string): string {
  const trimmed = file.replace(/^\/+/, '');
  const normalized = normalizeTopicPath(trimmed);
  if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
  return topicBlobPath(normalized.path);
}

async function pickFiles(store: ContextStore, tree: string, files: readonly string[]): Promise<TreeEdit[]> {
  // Oids and types from the object headers (one batch-check): a blob, however large, is never loaded.
  const found = await store.repo.objectInfo(files.map((file) => `${tree}:${file}`));
  return files.map((file, i) => (found[i]?.type === 'blob' ? { path: file, blob: found[i]!.oid } : { path: file, remove: true }));
}

async function editTreeFrom(store: ContextStore, tree: string, edits: TreeEdit[]): Promise<string> {
  if (edits.length === 0) return tree;
  return (await editTree(store.repo, tree, edits)) ?? (await store.repo.emptyTree());
}

/** A merge review's topics and the conflicts each still carries on the branch tip. */
export interface ReviewConflicts {
  taskId: string;
  subject: string;
  /** `problem`: the topic is a blob over the stored-topic limit, never read, so its conflicts are unknown. */
  topics: Array<{ path: string; filePath: string; conflicts: TopicConflict[]; problem?: { kind: 'too-large'; message: string } }>;
}

export interface ConflictResolution {
  taskId: string;
  path: string;
  side: ConflictSide;
  /** The conflicts resolved by this call (as the topic's note named them). */
  resolved: string[];
  /** The topic's conflicts still unresolved. */
  remaining: string[];
  commit: string | undefined;
}

async function openReview(store: ContextStore, branch: string, rawId: string): Promise<PendingReview> {
  const id = await findReviewId(store, rawId);
  const oid = await store.repo.resolve(reviewRef(id));
  const review = oid ? await loadReview(store, branch, id, oid) : undefined;
  if (!review || review.operations.length === 0) throw new BrvError('review-not-found', `Review ${id} has nothing left to decide.`);
  return review;
}

async function tipTopic(store: ContextStore, branch: string, filePath: string): Promise<string | undefined> {
  const snapshot = await store.snapshot(branch);
  return (await store.readFile(snapshot, filePath, { maxBytes: MAX_STORED_TOPIC_BYTES }))?.toString('utf8');
}

/** What `brv review show` lists: for each topic of the review, the conflicts still marked in it. */
export async function reviewConflicts(store: ContextStore, branch: string, rawId: string): Promise<ReviewConflicts> {
  const review = await openReview(store, branch, rawId);
  const topics: ReviewConflicts['topics'] = [];
  for (const op of review.operations) {
    let html: string | undefined;
    try {
      html = review.gated ? undefined : await tipTopic(store, branch, op.filePath);
    } catch (error) {
      // One topic over the stored-topic limit (never read) is reported in its place; the others still answer.
      if (!isBrvError(error) || error.kind !== 'too-large') throw error;
      topics.push({ path: op.path, filePath: op.filePath, conflicts: [], problem: { kind: 'too-large', message: error.message } });
      continue;
    }
    topics.push({ path: op.path, filePath: op.filePath, conflicts: html === undefined ? [] : topicConflicts(html) });
  }
  return { taskId: review.taskId, subject: review.subject, topics };
}

/**
 * Resolves the conflicts a merge left in one topic of a review (one of them with `section`) by keeping
 * ours, theirs or both copies: one commit on the branch (`Brv-Op: review-resolve`, `Brv-Review: <id>`),
 * made by compare-and-swap. The review stays open: approve it once its topics are resolved.
 */
export async function resolveReviewConflict(
  store: ContextStore,
  branch: string,
  request: { id: string; topic: string; side: ConflictSide; section?: string; agent?: string },
): Promise<ConflictResolution> {
  const review = await openReview(store, branch, request.id);
  const filePath = toFilePath(request.topic);
  const op = review.operations.find((o) => o.filePath === filePath);
  if (!op) {
    throw new BrvError(
      'file-not-in-review',
      `Review ${review.taskId} has no pending change to ${filePath}. Its files: ${review.operations.map((o) => o.filePath).join(', ')}.`,
    );
  }
  let outcome: { resolved: string[]; remaining: string[] } = { resolved: [], remaining: [] };
  const written = await store.commit<typeof outcome>(branch, async (snapshot) => {
    const blob = await store.readFile(snapshot, filePath, { maxBytes: MAX_STORED_TOPIC_BYTES });
    if (!blob) throw new BrvError('no-conflict', `${op.path} is not on brv branch ${branch}: there is nothing to resolve.`);
    const result = resolveTopicConflicts(blob.toString('utf8'), request.side, request.section);
    outcome = { resolved: result.resolved, remaining: result.remaining };
    return {
      write: {
        edits: [{ path: filePath, blob: await store.repo.writeBlob(result.html) }],
        subject: `review: resolve ${op.path} (${request.side}: ${result.resolved.join(', ')}) — ${review.taskId}`,
        meta: { op: 'review-resolve', type: 'UPDATE', review: review.taskId, agent: request.agent },
      },
      result: outcome,
    };
  });
  return { taskId: review.taskId, path: op.path, side: request.side, ...written.result, commit: written.commit };
}
