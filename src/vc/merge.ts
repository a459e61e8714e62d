import { BrvError } from '../base/errors.js';
import { mergeCommits, mergeTreesWithBase, type MergeConflict, type TreeMerge } from '../git/merge-tree.js';
import { BlobTooLargeError, type RefUpdate } from '../git/repository.js';
import type { ContextStore, OpenedReview, Tip } from '../store/context-store.js';
import { editTree, type TreeEdit } from '../store/tree-edit.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import { topicPathFromBlobPath } from '../topic/path.js';

/** A side of a topic merge that is a blob over the stored-topic limit (never read). */
const OVERSIZED = Symbol('oversized');

export interface MergeResult {
  /**
   * `held`: `inspect` held the change, the branch did not move. `diverged`: only with
   * `fastForwardOnly`, the histories diverged and nothing was merged (the branch did not move).
   */
  status: 'up-to-date' | 'fast-forward' | 'merged' | 'held' | 'diverged';
  /** The branch tip after the merge. */
  commit: string;
  /** Topics git could not merge line by line and brv merged section by section. */
  merged: string[];
  /** Topics where both sides changed the same section: both versions are kept, marked, for review. */
  conflicts: string[];
  review?: OpenedReview;
}

/**
 * Merges a commit into a brv branch: fast-forward when possible, otherwise `git merge-tree` and, for
 * each topic git could not merge, a section-level three-way merge. Never fails because of content
 * and never loses an edit: a modify/delete keeps the modified topic; true conflicts keep both
 * versions inside the topic and open a review. The branch moves by compare-and-swap.
 */
export async function mergeIntoBranch(
  store: ContextStore,
  branch: string,
  theirs: string,
  options: {
    subject: string;
    theirsLabel: string;
    agent?: string;
    /**
     * Called (inside the compare-and-swap, so again when it retries) with the local tip and the tree
     * the branch would have after the fast-forward or merge; `hold` stops with status `held`, the
     * branch unmoved. Not called when there is no local tip or nothing to merge.
     */
    inspect?: (ours: Tip, tree: string) => Promise<'hold' | 'go'>;
    /** Other refs moved in the same transaction as the branch (not on up-to-date or held). */
    alsoUpdate?: RefUpdate[];
    /**
     * Never merge: when the histories diverged (also when they came to diverge in a race while the
     * compare-and-swap retried) stop with status `diverged`, the branch unmoved. For the read-time
     * import of fetched knowledge (src/vc/arrival.ts), which must never merge.
     */
    fastForwardOnly?: boolean;
  },
): Promise<MergeResult> {
  const { repo } = store;
  await repo.requireModernGit();
  // Their side may come from anywhere (a remote-tracking ref a plain `git fetch` moved): refuse a
  // commit this brv cannot read before the branch moves to it or merges it.
  await store.requireForeignTip(options.theirsLabel, theirs);
  const outcome = await store.commit<Omit<MergeResult, 'commit' | 'review'>>(branch, async (snapshot) => {
    const tip = snapshot.commit;
    const alsoUpdate = options.alsoUpdate ?? [];
    const fastForward = { moveTo: theirs, alsoUpdate, result: { status: 'fast-forward' as const, merged: [], conflicts: [] } };
    if (!tip) return fastForward;
    if (tip.oid === theirs || (await repo.isAncestor(theirs, tip.oid)))
      return { stop: { status: 'up-to-date', merged: [], conflicts: [] } };
    const held = { stop: { status: 'held' as const, merged: [], conflicts: [] } };
    if (await repo.isAncestor(tip.oid, theirs)) {
      if (options.inspect && (await options.inspect(tip, (await repo.readCommit(theirs))!.tree)) === 'hold') return held;
      return fastForward;
    }
    if (options.fastForwardOnly) return { stop: { status: 'diverged' as const, merged: [], conflicts: [] } };

    const { result, oversized } = await mergeKeepingOversizedUnread(store, tip, theirs);
    const resolution = await resolveConflicts(store, result.conflicts, { ours: branch, theirs: options.theirsLabel });
    const { edits, merged } = resolution;
    const conflicts = [...new Set([...resolution.conflicts, ...oversized])];
    if (options.inspect) {
      const tree = edits.length > 0 ? ((await editTree(repo, result.tree, edits)) ?? (await repo.emptyTree())) : result.tree;
      if ((await options.inspect(tip, tree)) === 'hold') return held;
    }
    return {
      write: {
        alsoUpdate,
        tree: result.tree,
        edits,
        extraParents: [theirs],
        subject: options.subject,
        meta: { op: 'merge', type: 'MERGE', conflicts, agent: options.agent },
      },
      result: { status: 'merged', merged, conflicts },
    };
  });
  const commit = outcome.commit ?? outcome.snapshot.commit?.oid;
  if (!commit) throw new BrvError('merge-failed', 'The merge produced no commit.');
  return { ...outcome.result, commit, ...(outcome.review ? { review: outcome.review } : {}) };
}

/**
 * `git merge-tree` merges the two versions of a path both sides changed itself, in memory (a 600 MB
 * blob took git 1.2 GB) before brv sees a conflict. So, with one merge base, the paths both sides
 * changed are sized first (one batch-check); where a version is over the stored-topic limit, both
 * sides are given the readable version (ours when both are over) and git merges the rest; those
 * paths are returned, for the review. Otherwise (no such path, several merge bases): merge-tree as is.
 */
async function mergeKeepingOversizedUnread(
  store: ContextStore,
  tip: { oid: string; tree: string },
  theirs: string,
): Promise<{ result: TreeMerge; oversized: string[] }> {
  const { repo } = store;
  const [{ stdout: bases }, theirsCommit] = await Promise.all([
    repo.git(['merge-base', '--all', tip.oid, theirs], { okExitCodes: [1] }),
    repo.readCommit(theirs),
  ]);
  const baseOids = bases.split('\n').filter(Boolean);
  const base = baseOids.length === 1 ? await repo.readCommit(baseOids[0]!) : undefined;
  if (!base || !theirsCommit) return { result: await mergeCommits(repo, tip.oid, theirs), oversized: [] };
  const [oursChanges, theirsChanges] = await Promise.all([
    repo.diffTrees(base.tree, tip.tree),
    repo.diffTrees(base.tree, theirsCommit.tree),
  ]);
  const theirsByPath = new Map(theirsChanges.map((c) => [c.path, c]));
  // Both sides changed it and neither removed it: the paths git would merge line by line.
  const both = oursChanges.flatMap((ours) => {
    const other = theirsByPath.get(ours.path);
    return other && ours.status !== 'D' && other.status !== 'D' && ours.newOid !== other.newOid ? [{ ours, theirs: other }] : [];
  });
  const sizes = await repo.blobSizes(
    both.flatMap(({ ours, theirs }) => [ours.newOid, theirs.newOid, ...(ours.status === 'M' ? [ours.oldOid] : [])]),
  );
  const over = (oid: string) => (sizes.get(oid) ?? 0) > MAX_STORED_TOPIC_BYTES;
  const edits: TreeEdit[] = [];
  for (const { ours, theirs } of both) {
    if (!over(ours.newOid) && !over(theirs.newOid) && !(ours.status === 'M' && over(ours.oldOid))) continue;
    // The readable side, unread: ours unless only ours is over the limit.
    edits.push({ path: ours.path, blob: over(ours.newOid) && !over(theirs.newOid) ? theirs.newOid : ours.newOid });
  }
  if (edits.length === 0) return { result: await mergeCommits(repo, tip.oid, theirs), oversized: [] };
  const [oursTree, theirsTree] = await Promise.all([editTree(repo, tip.tree, edits), editTree(repo, theirsCommit.tree, edits)]);
  const result = await mergeTreesWithBase(repo, { commit: base.oid, tree: base.tree }, oursTree!, theirsTree!);
  return { result, oversized: edits.map((e) => topicPathFromBlobPath(e.path) ?? e.path) };
}

export interface Resolution {
  edits: TreeEdit[];
  /** Topics merged section by section without a true conflict. */
  merged: string[];
  /** Topics that keep both versions (or a modify/delete), for a reviewer. */
  conflicts: string[];
}

/** Turns every path `git merge-tree` left conflicted into a tree edit (see resolveConflict). */
export async function resolveConflicts(
  store: ContextStore,
  conflicts: readonly MergeConflict[],
  labels: { ours: string; theirs: string },
): Promise<Resolution> {
  const edits: TreeEdit[] = [];
  const merged: string[] = [];
  const conflicted: string[] = [];
  // Sizes first (one batch-check, no content): a side over the stored-topic limit is never asked for.
  const sizes = await store.repo.blobSizes(conflicts.flatMap((c) => [c.base, c.ours, c.theirs].filter((oid) => oid !== undefined)));
  const oversized = new Set([...sizes].filter(([, size]) => size > MAX_STORED_TOPIC_BYTES).map(([oid]) => oid));
  for (const conflict of conflicts) {
    const resolution = await resolveConflict(store, conflict, labels, oversized);
    edits.push(resolution.blob ? { path: conflict.path, blob: resolution.blob } : { path: conflict.path, remove: true });
    const name = topicPathFromBlobPath(conflict.path) ?? conflict.path;
    (resolution.conflicted ? conflicted : merged).push(name);
  }
  return { edits, merged, conflicts: conflicted };
}

async function resolveConflict(
  store: ContextStore,
  conflict: MergeConflict,
  labels: { ours: string; theirs: string },
  oversized: ReadonlySet<string>,
): Promise<{ blob: string | undefined; conflicted: boolean }> {
  const { repo } = store;
  const { base, ours, theirs } = conflict;
  // Modify/delete: knowledge is never dropped, the modified side wins (and a reviewer is told).
  if (!ours || !theirs) return { blob: ours ?? theirs, conflicted: base !== undefined };
  if (topicPathFromBlobPath(conflict.path) === undefined) return { blob: ours, conflicted: true };
  // Every side is bounded by the stored-topic limit before it is read (refs can be moved by plain git).
  const read = async (oid: string | undefined): Promise<string | undefined | typeof OVERSIZED> => {
    if (!oid) return undefined;
    if (oversized.has(oid)) return OVERSIZED;
    try {
      return (await repo.readBlob(oid, { maxBytes: MAX_STORED_TOPIC_BYTES }))?.toString('utf8');
    } catch (error) {
      if (error instanceof BlobTooLargeError) return OVERSIZED;
      throw error;
    }
  };
  const [baseRead, oursHtml, theirsHtml] = await Promise.all([read(base), read(ours), read(theirs)]);
  // A side over the limit is never loaded nor merged: the readable side is kept as it is (the only
  // one any brv can read: keeping the huge one would leave the topic unreadable everywhere; when both
  // are over, ours stays), and the topic is listed as a conflict, so a review names it.
  if (oursHtml === OVERSIZED) return { blob: theirsHtml === OVERSIZED ? ours : theirs, conflicted: true };
  if (theirsHtml === OVERSIZED) return { blob: ours, conflicted: true };
  // An oversized base: merged as if both sides had added the topic (sections kept, differences marked).
  const baseHtml = baseRead === OVERSIZED ? undefined : baseRead;
  const { mergeTopicHtml } = await import('../topic/merge.js');
  const result = mergeTopicHtml(baseHtml, oursHtml ?? '', theirsHtml ?? '', labels, topicPathFromBlobPath(conflict.path));
  return { blob: await repo.writeBlob(result.html), conflicted: result.conflicted };
}
