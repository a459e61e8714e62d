import type {
  ApiFailure,
  BatchBody,
  BatchResponse,
  ConflictsResponse,
  DecisionType,
  ResolveBody,
  ResolveSide,
  SectionConflict,
} from '../api-types.js';
import { list, str, wire } from './json.js';
// The review inbox's logic: which reviews and topics are selected for a batch decision, the batch request and
// its per-item results, a merge review's conflicts as GET /api/reviews/conflicts sends them. Pure: no DOM,
// tested in test/web/client-review-inbox.test.ts.

/** What a selection needs to know of a review: its id and the topics still pending in it. */
export interface SelectableReview {
  id: string;
  operations: ReadonlyArray<{ path: string }>;
}

/**
 * The selection: per review id, the whole review ('all': every topic still pending when the batch is sent) or some
 * of its topics (never empty, never all of them: those collapse to 'all').
 */
export type Selection = ReadonlyMap<string, 'all' | ReadonlySet<string>>;

export const NO_SELECTION: Selection = new Map();

export type Checked = 'all' | 'some' | 'none';

function paths(review: SelectableReview): string[] {
  return review.operations.map((op) => op.path);
}

/** Topics of `review` selected (in the review's order). */
export function selectedTopics(selection: Selection, review: SelectableReview): string[] {
  const entry = selection.get(review.id);
  if (entry === undefined) return [];
  return entry === 'all' ? paths(review) : paths(review).filter((path) => entry.has(path));
}

/** How a review's checkbox shows: checked, indeterminate (some topics) or not. */
export function reviewChecked(selection: Selection, review: SelectableReview): Checked {
  const entry = selection.get(review.id);
  if (entry === undefined) return 'none';
  return entry === 'all' ? 'all' : 'some';
}

export function topicChecked(selection: Selection, review: SelectableReview, path: string): boolean {
  const entry = selection.get(review.id);
  return entry === 'all' || (entry !== undefined && entry.has(path));
}

function withEntry(selection: Selection, id: string, entry: 'all' | ReadonlySet<string> | undefined): Selection {
  const next = new Map(selection);
  if (entry === undefined) next.delete(id);
  else next.set(id, entry);
  return next;
}

/** The review's checkbox: a review not (or partly) selected becomes wholly selected; a selected one not at all. */
export function toggleReview(selection: Selection, review: SelectableReview): Selection {
  return withEntry(selection, review.id, selection.get(review.id) === 'all' ? undefined : 'all');
}

/** One topic's checkbox; all of a review's topics selected read as the whole review, none as not selected. */
export function toggleTopic(selection: Selection, review: SelectableReview, path: string): Selection {
  const all = paths(review);
  if (!all.includes(path)) return selection;
  const chosen = new Set(selectedTopics(selection, review));
  if (chosen.has(path)) chosen.delete(path);
  else chosen.add(path);
  if (chosen.size === 0) return withEntry(selection, review.id, undefined);
  if (all.every((p) => chosen.has(p))) return withEntry(selection, review.id, 'all');
  return withEntry(selection, review.id, chosen);
}

/** Every review, whole. */
export function selectAll(reviews: readonly SelectableReview[]): Selection {
  return new Map(reviews.map((review) => [review.id, 'all' as const]));
}

/** The "select all" checkbox: checked when every review is wholly selected, indeterminate when anything is. */
export function allChecked(selection: Selection, reviews: readonly SelectableReview[]): Checked {
  if (selection.size === 0 || reviews.length === 0) return 'none';
  return reviews.every((review) => selection.get(review.id) === 'all') ? 'all' : 'some';
}

/**
 * The selection against the reviews on screen now (after a live refresh): reviews and topics that left the inbox
 * (decided here or elsewhere) are dropped; what remains selected stays. Returns `selection` itself when nothing
 * changed, so that a refresh does not re-render for nothing.
 */
export function pruneSelection(selection: Selection, reviews: readonly SelectableReview[]): Selection {
  const byId = new Map(reviews.map((review) => [review.id, review]));
  let changed = false;
  const next = new Map<string, 'all' | ReadonlySet<string>>();
  for (const [id, entry] of selection) {
    const review = byId.get(id);
    if (review === undefined || review.operations.length === 0) {
      changed = true;
      continue;
    }
    if (entry === 'all') {
      next.set(id, entry);
      continue;
    }
    const all = paths(review);
    const kept = new Set([...entry].filter((path) => all.includes(path)));
    if (kept.size !== entry.size) changed = true;
    if (kept.size === 0) continue;
    if (all.every((path) => kept.has(path))) {
      changed = true;
      next.set(id, 'all');
    } else next.set(id, kept.size === entry.size ? entry : kept);
  }
  return changed ? next : selection;
}

/** Topic decisions the selection stands for (the count on the batch buttons). */
export function selectedCount(selection: Selection, reviews: readonly SelectableReview[]): number {
  return reviews.reduce((n, review) => n + selectedTopics(selection, review).length, 0);
}

export type { DecisionType };

/** One decision of a batch (without `topics`: the whole review). */
type BatchItem = BatchBody['decisions'][number];

/** The body of POST /api/reviews/batch for the selection, in the inbox's order (at most `max` reviews). */
export function batchRequest(selection: Selection, reviews: readonly SelectableReview[], decision: DecisionType, max = 100): BatchBody {
  const decisions: BatchItem[] = [];
  for (const review of reviews) {
    const entry = selection.get(review.id);
    if (entry === undefined || review.operations.length === 0) continue;
    decisions.push(entry === 'all' ? { id: review.id, decision } : { id: review.id, decision, topics: selectedTopics(selection, review) });
    if (decisions.length === max) break;
  }
  return { decisions };
}

/** A decision of the batch the server refused, with its error. */
export type BatchFailure = ApiFailure & Pick<BatchItem, 'id' | 'decision'>;

export interface BatchOutcome {
  /** Reviews whose decision went through. */
  succeeded: string[];
  failed: BatchFailure[];
}

/** The answer of POST /api/reviews/batch, read defensively: an item without `ok: true` counts as failed. */
export function readBatchResults(raw: unknown, sent: readonly BatchItem[]): BatchOutcome {
  const results = list(wire<BatchResponse>(raw).results);
  const outcome: BatchOutcome = { succeeded: [], failed: [] };
  sent.forEach((item, i) => {
    const result = wire<BatchResponse['results'][number]>(results[i]);
    if (result.ok === true) outcome.succeeded.push(item.id);
    else {
      const error = wire<ApiFailure>(result.error);
      outcome.failed.push({
        id: item.id,
        decision: item.decision,
        kind: str(error.kind) || 'internal-error',
        message: str(error.message) || 'The server gave no result for this decision.',
      });
    }
  });
  return outcome;
}

/**
 * The selection after a batch: the reviews that went through are dropped (they have left the inbox, or what is left
 * of them was not selected), the failed ones stay selected for another try.
 */
export function afterBatch(selection: Selection, outcome: BatchOutcome): Selection {
  const next = new Map(selection);
  for (const id of outcome.succeeded) next.delete(id);
  return next;
}

/** One conflict of a merge review's topic, as the page shows it. */
export interface ConflictView {
  section: string;
  reason: string;
  /** Both sides of a section kept twice (title and summary conflicts have none: their reason names both values). */
  sides: null | {
    /** Display HTML, sanitised by the server (src/web/topic-html.ts). */
    oursHtml: string;
    theirsHtml: string;
    /** The stored HTML of each side, shown as text. */
    oursSource: string;
    theirsSource: string;
  };
}

export interface ConflictTopicView {
  path: string;
  conflicts: ConflictView[];
}

/** GET /api/reviews/conflicts: the topics of the review that still carry conflicts (topics without are left out). */
export function readConflicts(raw: unknown): ConflictTopicView[] {
  return list(wire<ConflictsResponse>(raw).topics)
    .map((value) => {
      const topic = wire<ConflictsResponse['topics'][number]>(value);
      return {
        path: str(topic.path),
        conflicts: list(topic.conflicts).map((value): ConflictView => {
          const conflict = wire<SectionConflict>(value);
          const ours = wire<SectionConflict['oursDisplay']>(conflict.oursDisplay);
          const theirs = wire<SectionConflict['theirsDisplay']>(conflict.theirsDisplay);
          const paired = typeof conflict.ours === 'string' && typeof conflict.theirs === 'string';
          return {
            section: str(conflict.section) || '(unnamed)',
            reason: str(conflict.reason),
            sides: paired
              ? {
                  oursHtml: str(ours.html),
                  theirsHtml: str(theirs.html),
                  oursSource: str(conflict.ours),
                  theirsSource: str(conflict.theirs),
                }
              : null,
          };
        }),
      };
    })
    .filter((topic) => topic.path !== '' && topic.conflicts.length > 0);
}

/** A merge review (its operations are MERGE): its topics may carry conflicts to resolve before approval. */
export function isMergeReview(review: { operations: ReadonlyArray<{ op: string }> }): boolean {
  return review.operations.some((op) => op.op === 'MERGE');
}

/** The body of POST /api/reviews/resolve: whole topics (a side for every conflict of it) or single sections. */
export function resolveBody(id: string, topic: string, side: ResolveSide, section?: string): ResolveBody {
  return section === undefined ? { id, topic, side } : { id, topic, side, section };
}

/** The inbox's filter: who made a change, its impact, how recent (each '' for any). */
export interface InboxFilter {
  /** An agent, exactly. */
  agent: string;
  /** Part of the author's `Name <email>` (case ignored). */
  author: string;
  /** An impact, exactly. */
  impact: string;
  /** How recent: `1h`, `1d`, `7d`, `30d`. */
  since: string;
}

export const NO_FILTER: InboxFilter = { agent: '', author: '', impact: '', since: '' };

/** The "how recent" choices of the filter, in hours. */
const SINCE_HOURS: Readonly<Record<string, number>> = { '1h': 1, '1d': 24, '7d': 24 * 7, '30d': 24 * 30 };

interface FilterableReview {
  author: string;
  agent: string;
  impact: string;
  time: string;
}

/** The reviews that match every field of the filter (all of them for NO_FILTER), in their order. */
export function filterInbox<R extends FilterableReview>(reviews: readonly R[], filter: InboxFilter, now: number): R[] {
  const author = filter.author.trim().toLowerCase();
  const hours = SINCE_HOURS[filter.since];
  return reviews.filter(
    (review) =>
      (filter.agent === '' || review.agent === filter.agent) &&
      (filter.impact === '' || review.impact === filter.impact) &&
      (author === '' || review.author.toLowerCase().includes(author)) &&
      (hours === undefined || Date.parse(review.time) >= now - hours * 3_600_000),
  );
}

/** The agents and impacts the reviews name, sorted: the filter's choices. */
export function filterChoices(reviews: readonly FilterableReview[]): { agents: string[]; impacts: string[] } {
  const distinct = (values: string[]) => [...new Set(values.filter((value) => value !== ''))].sort();
  return { agents: distinct(reviews.map((r) => r.agent)), impacts: distinct(reviews.map((r) => r.impact)) };
}
