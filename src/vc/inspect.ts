import { BrvError } from '../base/errors.js';
import { fetchMissingBlobs } from '../git/partial-clone.js';
import { BlobTooLargeError, type CommitInfo, type TreeChange } from '../git/repository.js';
import type { ContextStore } from '../store/context-store.js';
import { parseCommitMessage, type CommitMeta } from '../store/trailers.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import { topicPathFromBlobPath } from '../topic/path.js';

export interface TopicChange {
  status: 'added' | 'removed' | 'changed';
  path: string;
  filePath: string;
  /** A unified diff of the topic rendered as markdown (what an agent reads), for changed topics. */
  diff?: string;
  /**
   * Why there is no diff although one was asked for: a side of the change is a blob over the
   * stored-topic limit (`too-large`), which is never read. The other changes still have theirs.
   */
  problem?: TopicChangeProblem;
}

export interface TopicChangeProblem {
  kind: 'too-large';
  message: string;
}

export interface DiffResult {
  from: string | undefined;
  to: string;
  changes: TopicChange[];
}

export interface ShowResult {
  commit: string;
  parents: string[];
  author: string;
  time: string;
  subject: string;
  meta: Partial<CommitMeta>;
  changes: TopicChange[];
}

const STATUS: Record<string, TopicChange['status']> = { A: 'added', D: 'removed', M: 'changed' };

/**
 * Topic-level differences between two brv commits (added, removed, changed topics), with a readable
 * diff of each changed topic's rendered markdown when `patch` is set.
 */
export async function diffCommits(
  store: ContextStore,
  from: CommitInfo | undefined,
  to: CommitInfo,
  options: { patch?: boolean; paths?: readonly string[] } = {},
): Promise<DiffResult> {
  const { repo } = store;
  if (!from && to.parents.length > 0) {
    // A shallow clone's oldest commit (or a parent lost otherwise): diffing it against nothing would
    // report every topic as added by it.
    throw new BrvError(
      'not-found',
      `The parent of brv commit ${to.oid.slice(0, 10)} is not in this clone (a shallow clone's history stops there), so what that commit changed cannot be shown. ` +
        'Compare two commits that are here (brv vc diff <a>..<b>), or fetch the whole history (git fetch --unshallow).',
      { commit: to.oid, parent: to.parents[0] },
    );
  }
  const fromTree = from?.tree ?? (await repo.emptyTree());
  const raw = (await repo.diffTrees(fromTree, to.tree)).filter((change) => {
    const topicPath = topicPathFromBlobPath(change.path);
    return topicPath !== undefined && (!options.paths || options.paths.some((p) => topicPath === p || topicPath.startsWith(`${p}/`)));
  });
  // Sizes first, for every blob a patch would read (one batch-check, no content): a blob over the
  // limit is never asked for, so not even git streams it (the reader's own bound is the backstop).
  const sides = (change: TreeChange) => [
    change.status === 'A' ? undefined : change.oldOid,
    change.status === 'D' ? undefined : change.newOid,
  ];
  // A partial clone's missing blobs of both sides come in one request, not one lazy fetch per blob.
  if (options.patch && raw.length > 0) await fetchMissingBlobs(repo, [fromTree, to.tree]);
  const sizes = options.patch ? await repo.blobSizes(raw.flatMap((change) => sides(change).filter((oid) => oid !== undefined))) : undefined;
  const changes: TopicChange[] = [];
  for (const change of raw) {
    const topicPath = topicPathFromBlobPath(change.path)!;
    const entry: TopicChange = { status: STATUS[change.status]!, path: topicPath, filePath: change.path };
    if (options.patch) {
      const [oldOid, newOid] = sides(change);
      const over = [oldOid, newOid].find((oid) => oid !== undefined && (sizes!.get(oid) ?? 0) > MAX_STORED_TOPIC_BYTES);
      const patch = over
        ? new BlobTooLargeError(over, sizes!.get(over)!, MAX_STORED_TOPIC_BYTES)
        : await topicPatch(store, change.path, oldOid, newOid);
      if (typeof patch === 'string') entry.diff = patch;
      else entry.problem = tooLargeProblem(topicPath, patch, patch.oid === change.newOid);
    }
    changes.push(entry);
  }
  return { from: from?.oid, to: to.oid, changes };
}

export async function showCommit(
  store: ContextStore,
  commit: CommitInfo,
  options: { patch?: boolean; paths?: readonly string[] } = {},
): Promise<ShowResult> {
  const { stdout } = await store.repo.git(['show', '-s', '--format=%an <%ae>%x1f%aI', commit.oid]);
  const [author, time] = stdout.trim().split('\x1f');
  const parent = commit.parents[0] ? await store.repo.readCommit(commit.parents[0]) : undefined;
  const { subject, meta } = parseCommitMessage(commit.message);
  const { changes } = await diffCommits(store, parent, commit, options);
  return { commit: commit.oid, parents: commit.parents, author: author ?? '', time: time ?? '', subject, meta, changes };
}

function tooLargeProblem(topicPath: string, blob: BlobTooLargeError, after: boolean): TopicChangeProblem {
  return {
    kind: 'too-large',
    message:
      `${topicPath} is ${blob.size} bytes ${after ? 'after' : 'before'} this change; topics are at most ${blob.limit} bytes, ` +
      `so brv does not read it (it was not written by brv${after ? ': remove it with brv rm' : ''}).`,
  };
}

/**
 * The unified diff of a topic's rendered markdown, or the blob over the stored-topic limit that kept
 * it from being made: sizes come from the object headers, and an oversized blob is never held.
 */
async function topicPatch(
  store: ContextStore,
  filePath: string,
  oldOid: string | undefined,
  newOid: string | undefined,
): Promise<string | BlobTooLargeError> {
  const [{ renderStoredTopic }, { createTwoFilesPatch }] = await Promise.all([import('../topic/stored.js'), import('diff')]);
  const render = async (oid: string | undefined) => {
    if (!oid) return '';
    const blob = await store.repo.readBlob(oid, { maxBytes: MAX_STORED_TOPIC_BYTES });
    return blob ? renderStoredTopic(blob.toString('utf8')) : '';
  };
  let before: string;
  let after: string;
  try {
    [before, after] = await Promise.all([render(oldOid), render(newOid)]);
  } catch (error) {
    if (error instanceof BlobTooLargeError) return error;
    throw error;
  }
  const patch = createTwoFilesPatch(oldOid ? `a/${filePath}` : '/dev/null', newOid ? `b/${filePath}` : '/dev/null', before, after, '', '', {
    context: 3,
  });
  // Drop the "====" banner line jsdiff puts first; keep the ---/+++ header and hunks.
  return patch.replace(/^=+\n/, '');
}
