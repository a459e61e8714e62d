import type { ConflictResolution, ReviewConflicts, ReviewDecision, ReviewFilter, ReviewList } from '../vc/review.js';
import type { TopicChangeProblem } from '../vc/inspect.js';
import { setSetting } from '../settings/settings.js';
import type { HoldDetails } from '../vc/removal.js';
import type { RepositoryContext } from './context.js';
import type { History } from './vc.js';
import type { Actor } from './host.js';
import type { Knowledge } from './knowledge.js';

export type { ConflictResolution, ReviewConflicts, ReviewDecision, ReviewFilter, ReviewList } from '../vc/review.js';

/** `brv review show`: a review's topics and conflicts; `hold` for a held incoming change (src/vc/removal.ts). */
export type ReviewShow = ReviewConflicts & { hold?: HoldDetails };

export interface DecisionRequest {
  /** The review id from `pending` (a unique prefix is enough). */
  id: string;
  /** Only these topics; the rest stay pending. */
  files?: string[];
  /** Approve a merge review even though its topics still carry conflict notes (both versions stay, marked). */
  keepBoth?: boolean;
}

export interface ConflictsRequest {
  /** The review id (a unique prefix is enough). */
  id: string;
}

export interface ResolveRequest {
  id: string;
  /** A topic of the review (`security/auth`). */
  topic: string;
  /** Keep our copy, theirs, or both (markers removed). */
  side: 'ours' | 'theirs' | 'both';
  /** One conflict as `show` names it (`bv-rule#r1`, `title`); every conflict of the topic without. */
  section?: string;
}

export interface ReviewToggleRequest {
  enabled: boolean;
}

/** A pending review's operation with what it changes. */
export type ReviewOperationWithDiff = ReviewList['tasks'][number]['operations'][number] & {
  /**
   * The unified diff of the topic's rendered markdown (a new topic: all of it as added lines);
   * null when there is none to show (a removal, or a review past `maxWithDiffs`).
   */
  diff: string | null;
  /** Why `diff` is null for this topic: it is a blob over the stored-topic limit, never read (`too-large`). */
  problem?: TopicChangeProblem;
  /**
   * A merge's topic: `diff` is what approving keeps, the topic before the merge against the branch now
   * (conflicts resolved since included), not the merge commit's own diff; `unchanged` when they are the same.
   */
  landing?: 'diff' | 'unchanged';
};

export interface ReviewListWithDiffs extends Omit<ReviewList, 'tasks'> {
  tasks: Array<Omit<ReviewList['tasks'][number], 'operations'> & { operations: ReviewOperationWithDiff[] }>;
}

export interface PendingWithDiffsRequest extends ReviewFilter {
  /** Reviews given their diffs, oldest first (the rest are listed with `diff: null`); default 50. */
  maxWithDiffs?: number;
}

/** Human review of agent changes: what is pending, approve, reject, and turning reviews on or off. */
export class Review {
  constructor(
    private readonly ctx: RepositoryContext,
    private readonly history: History,
    private readonly knowledge: Knowledge,
  ) {}

  /** Open reviews, oldest first; with a filter, only those made by that author, agent, model, session, impact or since then. */
  async pending(filter: ReviewFilter = {}): Promise<ReviewList> {
    const { listReviews, filterReviews } = await import('../vc/review.js');
    return filterReviews(await listReviews(this.ctx.store, this.ctx.branch), filter);
  }

  /** `pending()`, each operation with the diff a person reviews (the dashboard's inbox, the TUI's /review). */
  async pendingWithDiffs(request: PendingWithDiffsRequest = {}): Promise<ReviewListWithDiffs> {
    const { maxWithDiffs, ...filter } = request;
    const list = await this.pending(filter);
    const max = maxWithDiffs ?? 50;
    const tasks = await Promise.all(
      list.tasks.map(async (task, i) => {
        const shown = i < max ? await this.history.show({ spec: task.commit, patch: true }).catch(() => undefined) : undefined;
        const changes = shown?.kind === 'commit' ? shown.commit.changes : [];
        const before = task.onBranch && !task.gated && shown?.kind === 'commit' ? shown.commit.parents[0] : undefined;
        const operations = await Promise.all(
          task.operations.map(async (op): Promise<ReviewOperationWithDiff> => {
            if (op.type === 'MERGE' && before) {
              // What lands is the branch now: a conflict resolved since (ours, theirs, an edit) shows as resolved.
              const now = await this.history.topicDiff({ path: op.path, from: before }).catch(() => undefined);
              if (now)
                return now.status === 'unchanged'
                  ? { ...op, diff: null, landing: 'unchanged' }
                  : { ...op, diff: now.diff, landing: 'diff' };
            }
            const change = changes.find((c) => c.filePath === op.filePath || c.path === op.path);
            // A topic over the stored-topic limit is never read: its problem instead of a diff, the others as usual.
            if (change?.problem) return { ...op, diff: null, problem: change.problem };
            let diff: string | null = change?.diff ?? null;
            if (change?.status === 'added') {
              const read = await this.knowledge.read({ path: op.path, at: task.commit }).catch(() => undefined);
              diff = read
                ? read.content
                    .replace(/\n$/, '')
                    .split('\n')
                    .map((line) => `+${line}`)
                    .join('\n')
                : null;
            }
            return { ...op, diff };
          }),
        );
        return { ...task, operations };
      }),
    );
    return { ...list, tasks };
  }

  /** Keeps a reviewed change (a held change lands on the branch now). */
  async approve(request: DecisionRequest): Promise<ReviewDecision> {
    const held = await this.decideHold(request, 'approved');
    if (held) return held;
    const { approveReview } = await import('../vc/review.js');
    return approveReview(this.ctx.store, this.ctx.branch, request.id, request.files ?? [], { keepBoth: request.keepBoth ?? false });
  }

  /** Undoes a reviewed change on the current tip (later, unrelated changes survive). */
  async reject(request: DecisionRequest): Promise<ReviewDecision> {
    const held = await this.decideHold(request, 'rejected');
    if (held) return held;
    const { rejectReview } = await import('../vc/review.js');
    return rejectReview(this.ctx.store, this.ctx.branch, request.id, request.files ?? []);
  }

  /**
   * A held incoming change (a pull or sync that removes many topics, src/vc/removal.ts) is decided
   * whole: approve lands it, reject keeps the topics it removes. Undefined for any other review.
   */
  private async decideHold(request: DecisionRequest, decision: 'approved' | 'rejected'): Promise<ReviewDecision | undefined> {
    const { findHold, decideHold } = await import('../vc/removal.js');
    const hold = await findHold(this.ctx.store, request.id);
    return hold && decideHold(this.ctx.store, this.ctx.branch, hold, decision, { files: request.files });
  }

  /** Opens reviews again, or stops opening them in this repository (git config brv.review.enabled). */
  async setEnabled(request: ReviewToggleRequest): Promise<ReviewToggleRequest> {
    await setSetting(this.ctx.repo, 'review.enabled', request.enabled ? 'true' : 'false');
    return { enabled: request.enabled };
  }

  /**
   * A merge review's topics with the conflicts each still carries (`brv review show`); for a held
   * incoming change, also where it comes from and every topic it would delete or empty (`hold`).
   */
  async conflicts(request: ConflictsRequest): Promise<ReviewShow> {
    const [{ reviewConflicts }, { findHold, holdDetails }] = await Promise.all([import('../vc/review.js'), import('../vc/removal.js')]);
    const result = await reviewConflicts(this.ctx.store, this.ctx.branch, request.id);
    const hold = await findHold(this.ctx.store, request.id);
    return hold ? { ...result, hold: await holdDetails(this.ctx.store, hold) } : result;
  }

  /** Resolves a topic's merge conflicts (or one of them) by keeping ours, theirs or both; one commit, the review stays open. */
  async resolve(request: ResolveRequest, actor: Actor): Promise<ConflictResolution> {
    const { resolveReviewConflict } = await import('../vc/review.js');
    return resolveReviewConflict(this.ctx.store, this.ctx.branch, { ...request, agent: actor.agent });
  }
}
