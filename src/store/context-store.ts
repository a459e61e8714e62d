import { isCalendarDay } from '../base/dates.js';
import { BrvError } from '../base/errors.js';
import { RefMovedError, type CommitInfo, type GitRepository, type RefUpdate, type TreeBlob } from '../git/repository.js';
import { GitCommandError } from '../git/run.js';
import { BRANCH_PREFIX, branchRef, FORMAT_PATH, FORMAT_VERSION, reviewRef, validateBranchName } from './layout.js';
import { editTree, type TreeEdit } from './tree-edit.js';
import { formatCommitMessage, type CommitMeta } from './trailers.js';
import { mark } from '../base/trace.js';
import { caseFoldKey } from '../topic/path.js';

/** A brv branch as read at one moment: its tip commit and tree (both absent before the first write). */
export interface Snapshot {
  branch: string;
  ref: string;
  commit: Tip | undefined;
}

/** The commit a snapshot was read from: all the store needs of it. */
export interface Tip {
  oid: string;
  tree: string;
}

/** What a brv branch tip looks like when resolved with the repository (see `tipRevisions`). */
export function tipRevisions(branch: string): [commit: string, tree: string, format: string] {
  const ref = branchRef(branch);
  return [ref, `${ref}^{tree}`, `${ref}:${FORMAT_PATH}`];
}

export interface PlannedCommit {
  edits: TreeEdit[];
  subject: string;
  meta: CommitMeta;
  /** Apply the edits to this tree instead of the tip's (a merge result). */
  tree?: string;
  /** Parents after the tip (the other side of a merge). */
  extraParents?: string[];
  /** Record the commit even if the tree does not change (a review decision). */
  allowEmpty?: boolean;
  /** Other refs moved in the same transaction (a review ref deleted by its decision). */
  alsoUpdate?: RefUpdate[];
  /**
   * A person must see this change whatever impact it declares (a model's write that removes content):
   * it opens a review as a high-impact one does, held under review.gate.
   */
  needsReview?: boolean;
}

/**
 * What `plan` decides after looking at the current tip: write these edits, move the branch to an
 * existing commit (a fast-forward), or stop with a value.
 */
export type Plan<T> = { write: PlannedCommit; result: T } | { moveTo: string; result: T; alsoUpdate?: RefUpdate[] } | { stop: T };

/** A review opened by a commit (see ReviewPolicy). */
export interface OpenedReview {
  id: string;
  ref: string;
  /** The change waits on the review ref and is not on the branch until approved. */
  gated: boolean;
}

export interface CommitOutcome<T> {
  result: T;
  /** The new tip (or the gated commit), or undefined when the plan stopped or changed nothing. */
  commit: string | undefined;
  snapshot: Snapshot;
  review?: OpenedReview;
}

/**
 * Which commits need a human look (DESIGN §2.5): high impact, deletions and merges with topic
 * conflicts. `enabled` false opens none; `gate` true holds high-impact changes on their review ref
 * until approved. The service reads them from the settings (`review.enabled`, `review.gate`) and
 * gives the store a reader: the store does not know where a policy comes from.
 */
export interface ReviewPolicy {
  enabled: boolean;
  gate: boolean;
}

const MAX_ATTEMPTS = 60;

/** The most `.brv/format` bytes read: a version number is a few (a larger blob is not one). */
const MAX_FORMAT_BYTES = 64;

/** The context tree of one repository, on `refs/brv/heads/*`. */
export class ContextStore {
  private reviewPolicy: Promise<ReviewPolicy> | undefined;

  constructor(
    readonly repo: GitRepository,
    /** Reads the review policy: called once per store, and only when a commit could open a review. */
    private readonly readPolicy: () => Promise<ReviewPolicy>,
  ) {}

  private policy(): Promise<ReviewPolicy> {
    this.reviewPolicy ??= this.readPolicy();
    return this.reviewPolicy;
  }

  async snapshot(branch: string): Promise<Snapshot> {
    const ref = branchRef(branch);
    const [commitRev, treeRev, formatRev] = tipRevisions(branch);
    const oid = this.repo.takePrefetched(commitRev);
    const tree = this.repo.takePrefetched(treeRev);
    const format = this.repo.takePrefetched(formatRev);
    if (oid && tree && format) {
      // Resolved by the discovery process: no object reader needed unless the format is unusual.
      if (format !== knownFormatBlob(this.repo.location.objectFormat)) await this.checkFormat(tree);
      return { branch, ref, commit: { oid, tree } };
    }
    const commit = await this.repo.readRefCommit(ref);
    if (commit) await this.checkFormat(commit.tree);
    return { branch, ref, commit: commit && { oid: commit.oid, tree: commit.tree } };
  }

  /**
   * The context tree as it was at `rev`: a brv branch name (`main`, `main~3`), a brv commit or tag, or
   * a date (`2026-11-01`, `2026-11-01T12:00`, `"2 days ago"`) meaning the last commit of `branch` then.
   */
  async snapshotAt(branch: string, rev: string): Promise<Snapshot> {
    const commit = await this.resolveCommit(branch, rev);
    return { branch, ref: branchRef(branch), commit: { oid: commit.oid, tree: commit.tree } };
  }

  /**
   * A brv commit named the way people name them: a brv branch (`main`, `main~3`), `review/<id>`, a
   * commit id or tag, or a date (the last commit of `branch` then). Refuses commits that are not brv's.
   */
  async resolveCommit(branch: string, rev: string): Promise<CommitInfo> {
    let commit: CommitInfo | undefined;
    if (looksLikeDate(rev)) {
      // git reads any date somehow (2026-13-45 is a day in 2027): one that names no day is refused.
      if (/^\d{4}-/.test(rev) && !isCalendarDay(rev.slice(0, 10)))
        throw new BrvError('invalid-date', `${rev} is not a date: ${rev.slice(0, 10)} is no day of the calendar.`);
      const { stdout } = await this.repo.git(['rev-list', '-1', `--before=${rev}`, branchRef(branch), '--'], { okExitCodes: [128] });
      if (stdout.trim()) commit = await this.repo.readCommit(stdout.trim());
      if (!commit) throw new BrvError('not-found', `brv branch ${branch} has no commit before ${rev}.`);
    } else {
      if (/^-|[\s\0]/.test(rev)) throw new BrvError('invalid-revision', `"${rev}" is not a revision.`);
      // HEAD (and @) is this worktree's brv branch, not git's code HEAD: `vc show HEAD~1`, `read --at HEAD`.
      const head = /^(?:HEAD|@)(?=$|[~^])/.exec(rev);
      const named = head ? `${branchRef(branch)}${rev.slice(head[0].length)}` : rev;
      for (const candidate of head ? [named] : [`refs/brv/heads/${rev}`, `refs/brv/${rev}`, rev]) {
        commit = await this.repo.readCommit(candidate);
        if (commit) break;
      }
      if (!commit) throw new BrvError('not-found', `No brv commit, branch or tag named "${rev}".`);
    }
    if ((await this.repo.readObjectWithin(`${commit.tree}:${FORMAT_PATH}`, MAX_FORMAT_BYTES))?.type !== 'blob') {
      throw new BrvError('not-a-brv-commit', `${rev} (${commit.oid.slice(0, 10)}) is not a brv commit: its tree has no ${FORMAT_PATH}.`);
    }
    await this.checkFormat(commit.tree);
    return commit;
  }

  /** Local brv branches and their tips. */
  async listBranches(): Promise<Array<{ branch: string; commit: string }>> {
    return (await this.repo.listRefs(BRANCH_PREFIX)).map((r) => ({ branch: r.ref.slice(BRANCH_PREFIX.length), commit: r.oid }));
  }

  /** A new brv branch at `commit`; fails if it exists. */
  async createBranch(name: string, commit: string): Promise<void> {
    validateBranchName(name);
    // The start may be a remote-tracking tip nobody validated (a checkout of a remote-only branch).
    await this.requireForeignTip(`The start of brv branch ${name}`, commit);
    try {
      await this.repo.updateRefs([{ ref: branchRef(name), newOid: commit, oldOid: undefined }], `brv branch: create ${name}`);
    } catch (error) {
      if (error instanceof RefMovedError) throw new BrvError('branch-exists', `brv branch ${name} already exists.`);
      throw error;
    }
  }

  async deleteBranch(name: string, expected: string): Promise<void> {
    await this.repo.updateRefs([{ ref: branchRef(name), newOid: undefined, oldOid: expected }], `brv branch: delete ${name}`);
  }

  /**
   * The blob at `path` in a snapshot, or undefined. With `maxBytes`, the size is read from the object
   * header first and a larger blob is refused (`too-large`) without being loaded: refs can be moved
   * by plain git, so a "topic" may be any size.
   */
  async readFile(snapshot: Snapshot, path: string, options: { maxBytes?: number } = {}): Promise<Buffer | undefined> {
    if (!snapshot.commit) return undefined;
    const name = `${snapshot.commit.tree}:${path}`;
    if (options.maxBytes !== undefined) {
      const size = (await this.blobSizesOf(snapshot.commit.tree, path, [name])).get(name);
      if (size === undefined) return undefined;
      if (size > options.maxBytes)
        throw new BrvError(
          'too-large',
          `${path} is ${size} bytes; topics are at most ${options.maxBytes} bytes, so brv does not read it. It was not written by brv: remove it with brv rm.`,
        );
    }
    return this.repo.readBlob(name);
  }

  /**
   * blobSizes, for a blob of `tree` at `path`. In a partial clone git fetches a missing blob as its
   * size is asked; when that fails (the remote cannot be reached), the topic's folder is fetched in
   * one request instead, which fails with the transport's typed error (or succeeds, and the sizes are
   * asked again) rather than git-failed.
   */
  private async blobSizesOf(tree: string, path: string, names: string[]): Promise<Map<string, number>> {
    try {
      return await this.repo.blobSizes(names);
    } catch (error) {
      if (!(error instanceof GitCommandError) || !/promisor remote/i.test(error.stderr)) throw error;
      const slash = path.lastIndexOf('/');
      const folder = slash < 0 ? tree : `${tree}:${path.slice(0, slash)}`;
      await (await import('../git/partial-clone.js')).fetchMissingBlobs(this.repo, [folder]);
      return this.repo.blobSizes(names);
    }
  }

  async pathKind(snapshot: Snapshot, path: string): Promise<'file' | 'folder' | 'none'> {
    if (!snapshot.commit) return 'none';
    // The entry in its parent tree: a blob is never loaded just to learn that it is one (it may be huge).
    const slash = path.lastIndexOf('/');
    const parent = await this.repo.readObject(slash < 0 ? snapshot.commit.tree : `${snapshot.commit.tree}:${path.slice(0, slash)}`);
    if (!parent || parent.type !== 'tree') return 'none';
    const entry = (await this.repo.readTree(parent.oid)).find((e) => e.name === path.slice(slash + 1));
    if (!entry) return 'none';
    return entry.type === 'tree' ? 'folder' : 'file';
  }

  /**
   * The path already in the snapshot that `path` (a blob path, not there itself) differs from only by
   * letter case, in the file's name or in any folder on the way (`api/Auth.html` for `api/auth.html`,
   * `API/x.html` for `api/auth.html`): on a case-insensitive filesystem (macOS, Windows) the two are one
   * file or one folder. Undefined when there is none. Reads only the trees along the path.
   */
  async caseVariant(snapshot: Snapshot, path: string): Promise<string | undefined> {
    if (!snapshot.commit) return undefined;
    const segments = path.split('/');
    let tree = snapshot.commit.tree;
    const spelled: string[] = [];
    for (const segment of segments) {
      const entries = await this.repo.readTree(tree);
      const key = caseFoldKey(segment);
      let exact: (typeof entries)[number] | undefined;
      let variant: (typeof entries)[number] | undefined;
      for (const entry of entries) {
        if (entry.name === segment) exact = entry;
        else if (variant === undefined && caseFoldKey(entry.name) === key) variant = entry;
      }
      if (variant) return [...spelled, variant.name].join('/');
      if (!exact || exact.type !== 'tree') return undefined;
      spelled.push(segment);
      tree = exact.oid;
    }
    return undefined;
  }

  /** Top-level folders of the tree (the domains agents are told to reuse). */
  async listDomains(snapshot: Snapshot): Promise<string[]> {
    if (!snapshot.commit) return [];
    const entries = await this.repo.readTree(snapshot.commit.tree);
    return entries.filter((e) => e.type === 'tree' && !e.name.startsWith('.')).map((e) => e.name);
  }

  /**
   * Every blob of the snapshot's tree with its oid and size (from the object headers: nothing is
   * loaded). In a partial clone, the blobs that are not here are fetched first, in one request (the
   * caller reads them next; git would fetch each one as its size is asked).
   */
  async listBlobs(snapshot: Snapshot): Promise<TreeBlob[]> {
    if (!snapshot.commit) return [];
    await (await import('../git/partial-clone.js')).fetchMissingBlobs(this.repo, [snapshot.commit.tree]);
    return this.repo.listTreeBlobs(snapshot.commit.tree);
  }

  async listFiles(snapshot: Snapshot): Promise<string[]> {
    if (!snapshot.commit) return [];
    return this.repo.listTreePaths(snapshot.commit.tree);
  }

  /**
   * Read the tip, let `plan` decide what to write, commit on top, and move the ref only if nobody
   * else moved it meanwhile (compare-and-swap). On a lost race the whole plan re-runs against the
   * new tip, so checks such as "topic already exists" are never made against stale state.
   */
  async commit<T>(branch: string, plan: (snapshot: Snapshot) => Promise<Plan<T>>): Promise<CommitOutcome<T>> {
    for (let attempt = 1; ; attempt++) {
      const snapshot = await this.snapshot(branch);
      mark('store: tip read');
      const decision = await plan(snapshot);
      if ('stop' in decision) return { result: decision.stop, commit: undefined, snapshot };
      const base = snapshot.commit;
      let commit: string;
      /** The new commit's tree, when it is the tip's edited (what the discovery cache can be told). */
      let edited: { tree: string; paths: string[] } | undefined;
      let review: OpenedReview | undefined;
      if ('moveTo' in decision) {
        commit = decision.moveTo;
      } else {
        const { edits, subject, meta } = decision.write;
        const startTree = decision.write.tree ?? base?.tree;
        const allEdits = startTree ? edits : [{ path: FORMAT_PATH, blob: await this.repo.writeBlob(`${FORMAT_VERSION}\n`) }, ...edits];
        const tree = await editTree(this.repo, startTree, allEdits);
        if (!tree) throw new BrvError('invalid-change', 'A change may not empty the whole context tree.');
        if (base && tree === base.tree && !decision.write.allowEmpty && !decision.write.extraParents?.length) {
          return { result: decision.result, commit: undefined, snapshot };
        }
        mark('store: trees written');
        const parents = [...(base ? [base.oid] : []), ...(decision.write.extraParents ?? [])];
        const opens = await this.reviewFor(meta, decision.write.needsReview === true);
        const recorded = opens?.gated ? { ...meta, gate: 'held' } : meta;
        commit = await this.repo.commitTree(tree, parents, formatCommitMessage(subject, recorded));
        if (base && startTree === base.tree) edited = { tree, paths: allEdits.map((e) => e.path) };
        if (opens) review = { id: reviewId(commit), ref: reviewRef(reviewId(commit)), gated: opens.gated };
      }
      const updates: RefUpdate[] = [...(('write' in decision ? decision.write.alsoUpdate : decision.alsoUpdate) ?? [])];
      if (!review?.gated) updates.push({ ref: snapshot.ref, newOid: commit, oldOid: base?.oid });
      if (review) {
        // The same change made twice (same parent, tree, message and second) is the same commit,
        // so its review may already be open: keep it rather than fail the compare-and-swap.
        const open = (await this.repo.readObject(review.ref))?.oid;
        updates.push({ ref: review.ref, newOid: commit, oldOid: open === commit ? commit : undefined });
      }
      const subject = 'moveTo' in decision ? `fast-forward to ${commit.slice(0, 10)}` : decision.write.subject;
      try {
        await this.repo.updateRefs(updates, `brv ${'moveTo' in decision ? 'merge' : decision.write.meta.op}: ${subject}`);
        mark('store: ref updated');
        // The next command finds this tip without asking git (a write is most often followed by another command).
        if (edited && base && !review?.gated)
          this.repo.rememberTipMoved(snapshot.ref, base.oid, { commit, tree: edited.tree }, edited.paths);
        return { result: decision.result, commit, snapshot, ...(review ? { review } : {}) };
      } catch (error) {
        if (!(error instanceof RefMovedError)) throw error;
        if (attempt >= MAX_ATTEMPTS) {
          throw new BrvError(
            'ref-contention',
            `Gave up after ${attempt} attempts: ${snapshot.ref} kept changing under this write. Try again.`,
          );
        }
        // A plain timer, not node:timers/promises: one module fewer for every command that loads the store.
        await new Promise((resolve) => setTimeout(resolve, Math.min(200, 5 * attempt) + Math.random() * 20 * Math.min(attempt, 5)));
      }
    }
  }

  /** See checkForeignTips. */
  checkForeignTips(tips: ReadonlyArray<{ label: string; oid: string }>): Promise<Map<string, BrvError>> {
    return checkForeignTips(this.repo, tips);
  }

  /** Throws the problem of a commit that came from elsewhere (see checkForeignTips). */
  async requireForeignTip(label: string, oid: string): Promise<void> {
    const problem = (await checkForeignTips(this.repo, [{ label, oid }])).get(oid);
    if (problem) throw problem;
  }

  private async reviewFor(meta: CommitMeta, needsReview: boolean): Promise<{ gated: boolean } | undefined> {
    // brv dream only proposes: its commit is always held for a person, whatever the review settings say.
    if (meta.op === 'dream') return { gated: true };
    const high = meta.impact === 'high' || needsReview;
    const wanted = high || meta.type === 'DELETE' || (meta.conflicts?.length ?? 0) > 0;
    // A decision opens none, but for the conflicts a reject's revert kept marked (someone must pick).
    if (!wanted || (meta.op.startsWith('review-') && !meta.conflicts?.length)) return undefined;
    const policy = await this.policy();
    if (!policy.enabled) return undefined;
    return { gated: policy.gate && high && meta.op === 'curate' };
  }

  private async checkFormat(tree: string): Promise<void> {
    // Bounded like every blob read (plumbing can put anything there): a version is a few bytes.
    const blob = await this.repo.readObjectWithin(`${tree}:${FORMAT_PATH}`, MAX_FORMAT_BYTES);
    if (blob !== undefined && 'oversized' in blob) {
      throw new BrvError(
        'unsupported-format',
        `This context tree's ${FORMAT_PATH} is ${blob.size} bytes, not a brv data format version (this brv reads format ${FORMAT_VERSION}).`,
      );
    }
    const version = blob?.type === 'blob' ? blob.data.toString('utf8').trim() : undefined;
    if (!version) return;
    const major = version.split('.')[0];
    if (major !== FORMAT_VERSION.split('.')[0]) {
      throw new BrvError(
        'unsupported-format',
        `This context tree uses brv data format ${version}; this brv reads format ${FORMAT_VERSION}. Upgrade brv.`,
      );
    }
  }
}

/**
 * Checks commits that came from elsewhere (a remote, a knowledge source, a plain `git fetch`)
 * before any local ref points at them: each must be a commit whose tree holds a `.brv/format`
 * blob this brv reads. Returns the problem for each tip that fails (the others are fine); nothing
 * is trusted about the objects, so sizes are checked before anything is read.
 */
export async function checkForeignTips(
  repo: GitRepository,
  tips: ReadonlyArray<{ label: string; oid: string }>,
): Promise<Map<string, BrvError>> {
  const problems = new Map<string, BrvError>();
  if (tips.length === 0) return problems;
  const names = tips.flatMap((t) => [t.oid, `${t.oid}:${FORMAT_PATH}`]);
  const infos = await repo.objectInfo(names);
  for (const [i, tip] of tips.entries()) {
    const commit = infos[2 * i];
    const format = infos[2 * i + 1];
    const short = tip.oid.slice(0, 10);
    if (!commit || commit.type !== 'commit') {
      problems.set(
        tip.oid,
        new BrvError(
          'not-a-brv-commit',
          `${tip.label} (${short}) is ${commit ? `a ${commit.type}` : 'missing'}, not a brv commit. Nothing was changed here; ask whoever pushed it to put a brv commit back (brv vc push from a clone that has one).`,
        ),
      );
      continue;
    }
    if (!format) {
      problems.set(
        tip.oid,
        new BrvError(
          'not-a-brv-commit',
          `${tip.label} (${short}) is not a brv commit: its tree has no ${FORMAT_PATH}. Nothing was changed here; ask whoever pushed it to push a brv commit instead.`,
        ),
      );
      continue;
    }
    // brv's own "1\n" needs no read; anything else is read only when small enough to be a version.
    const version =
      format.oid === knownFormatBlob(repo.location.objectFormat)
        ? FORMAT_VERSION
        : format.type === 'blob' && format.size <= MAX_FORMAT_BYTES
          ? (await repo.readBlob(format.oid))?.toString('utf8').trim()
          : undefined;
    if (!version || !/^\d{1,9}(\.\d{1,9})*$/.test(version) || version.split('.')[0] !== FORMAT_VERSION.split('.')[0]) {
      const shown = version && /^[\x20-\x7e]{1,20}$/.test(version) ? `brv data format ${version}` : `an unreadable ${FORMAT_PATH}`;
      problems.set(
        tip.oid,
        new BrvError(
          'unsupported-format',
          `${tip.label} (${short}) uses ${shown}; this brv reads format ${FORMAT_VERSION}. Nothing was changed here: upgrade brv if that format is newer, otherwise ask whoever pushed it to fix that branch.`,
        ),
      );
    }
  }
  return problems;
}

/**
 * The blob ids of `.brv/format` as brv writes it ("1\n", `git hash-object`), so that a tip at this
 * format needs no read. Written out rather than hashed: loading node:crypto is ~3 ms of a warm query
 * that otherwise hashes nothing. test/store/context-store.test.ts checks them against git.
 */
export const KNOWN_FORMAT_BLOBS: Readonly<Record<string, { sha1: string; sha256: string }>> = {
  '1': {
    sha1: 'd00491fd7e5bb6fa28c517a0bb32b8b506539d4d',
    sha256: 'b3235bed7e38dc7d6477c31fce618d77cba1f10d7213c9a250d777b98b54e36e',
  },
};

/** The blob id of `.brv/format` at this version; none (a read) for a version without a known id. */
function knownFormatBlob(objectFormat: 'sha1' | 'sha256'): string | undefined {
  return KNOWN_FORMAT_BLOBS[FORMAT_VERSION]?.[objectFormat];
}

/** A review is named after the commit it reviews: short, unique in practice, and the same in every clone. */
function reviewId(commit: string): string {
  return commit.slice(0, 12);
}

function looksLikeDate(rev: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(rev) ||
    /^\d+ (second|minute|hour|day|week|month|year)s? ago$/.test(rev)
  );
}
