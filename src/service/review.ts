import type { ReviewDecision, ReviewList } from '../review/review.js';
import { setSetting } from '../settings/settings.js';
import type { RepositoryContext } from './context.js';

export type { ReviewDecision, ReviewList } from '../review/review.js';

export interface DecisionRequest {
  /** The review id from `pending` (a unique prefix is enough). */
  id: string;
  /** Only these topics; the rest stay pending. */
  files?: string[];
}

export interface ReviewToggleRequest {
  enabled: boolean;
}

/** Human review of agent changes: what is pending, approve, reject, and turning reviews on or off. */
export class Review {
  constructor(private readonly ctx: RepositoryContext) {}

  async pending(): Promise<ReviewList> {
    const { listReviews } = await import('../review/review.js');
    return listReviews(this.ctx.store, this.ctx.branch);
  }

  /** Keeps a reviewed change (a held change lands on the branch now). */
  async approve(request: DecisionRequest): Promise<ReviewDecision> {
    const { approveReview } = await import('../review/review.js');
    return approveReview(this.ctx.store, this.ctx.branch, request.id, request.files ?? []);
  }

  /** Undoes a reviewed change on the current tip (later, unrelated changes survive). */
  async reject(request: DecisionRequest): Promise<ReviewDecision> {
    const { rejectReview } = await import('../review/review.js');
    return rejectReview(this.ctx.store, this.ctx.branch, request.id, request.files ?? []);
  }

  /** Opens reviews again, or stops opening them in this repository (git config brv.review.enabled). */
  async setEnabled(request: ReviewToggleRequest): Promise<ReviewToggleRequest> {
    await setSetting(this.ctx.repo, 'review.enabled', request.enabled ? 'true' : 'false');
    return { enabled: request.enabled };
  }
}
