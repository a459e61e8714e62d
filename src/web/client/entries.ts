import type {
  ApiFailure,
  EntrySignature,
  ErrorResponse,
  HistoryEntry,
  HistoryResponse,
  PendingReview,
  ReviewOperation,
  ReviewsResponse,
} from '../api-types.js';
import { list, wire } from './json.js';
// The API's history entries and pending reviews, read defensively into what the pages show (the server passes
// the service's results through as they are). Pure: no DOM, tested in test/web/client-entries.test.ts.

export interface ChangeView {
  commit: string;
  /** The parent commits (the first is what the commit's diff is against); empty for the first commit. */
  parents: string[];
  time: string;
  agent: string;
  op: string;
  impact: string;
  reason: string;
  summary: string;
  subject: string;
  /** Topic paths (without `.html`). */
  topics: string[];
  /** Topics the commit changed beyond those listed (the server caps the list per entry). */
  omitted: number;
  /** Its signature state in words ("signed by alice@example.com (allowed)", "unsigned"); empty when the server did not check. */
  signature: string;
  /** git's letter for it (G good, U unknown key, B bad, N none…); empty when not checked. */
  signatureStatus: string;
}

export interface ReviewOperationView {
  /** The topic path (what approve/reject take in `topics`). */
  path: string;
  op: string;
  impact: string;
  reason: string;
  summary: string;
  previousSummary: string;
  /** The diff as text, when the server sends one. */
  diff: string;
  /** Why there is no diff: the topic is a blob over the size limit, never read (the server's message). */
  problem?: string;
  /** A merge's topic: `diff` is what approving keeps; `unchanged` when a resolution kept the text from before the merge. */
  landing: '' | 'diff' | 'unchanged';
}

export interface ReviewView {
  id: string;
  subject: string;
  time: string;
  gated: boolean;
  /** Who made the change: `Name <email>` (its git author), the agent, session and model its commit names; '' when it names none. */
  author: string;
  agent: string;
  session: string;
  model: string;
  /** The impact its writer declared ('' when none). */
  impact: string;
  operations: ReviewOperationView[];
}

/** The first non-empty string among the values (numbers too), or ''. */
function text(...values: unknown[]): string {
  for (const value of values) {
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return '';
}

/** `Jane <jane@example.com>` → `Jane`. */
function personName(author: string): string {
  return author.replace(/\s*<[^>]*>\s*$/, '').trim() || author;
}

function topicPathOf(filePath: string): string | null {
  return filePath.endsWith('.html') ? filePath.slice(0, -'.html'.length) : null;
}

/** One entry of GET /api/changes or /api/topic/history. */
function readChange(raw: unknown): ChangeView {
  // The flat fields are an older entry shape, still read.
  const entry = wire<HistoryEntry, 'oid' | 'date' | 'topics' | 'agent' | 'op' | 'impact' | 'reason' | 'summary' | 'message'>(raw);
  const meta = wire<HistoryEntry['meta']>(entry.meta);
  const signature = wire<EntrySignature>(entry.signature);
  const topics = Array.isArray(entry.topics)
    ? entry.topics.filter((topic): topic is string => typeof topic === 'string')
    : list(entry.changes)
        .map((change) => topicPathOf(text(wire<HistoryEntry['changes'][number]>(change).path)))
        .filter((topic): topic is string => topic !== null);
  return {
    commit: text(entry.commit, entry.oid),
    parents: list(entry.parents).filter((parent): parent is string => typeof parent === 'string' && parent !== ''),
    time: text(entry.time, entry.date),
    agent: text(entry.agent, meta.agent) || personName(text(entry.author)),
    op: text(entry.op, meta.op),
    impact: text(entry.impact, meta.impact),
    reason: text(entry.reason, meta.reason),
    summary: text(entry.summary, meta.summary),
    subject: text(entry.subject, entry.message).split('\n')[0] ?? '',
    topics: [...new Set(topics)],
    omitted: typeof entry.changesOmitted === 'number' && entry.changesOmitted > 0 ? entry.changesOmitted : 0,
    signature: text(signature.text),
    signatureStatus: text(signature.status),
  };
}

/** `{ entries: [...] }` (or a bare array). */
export function readChanges(raw: unknown): ChangeView[] {
  return (Array.isArray(raw) ? raw : list(wire<HistoryResponse>(raw).entries)).map(readChange);
}

/** A review's git author as `Name <email>` ('' when the server sent none). */
function authorText(raw: unknown): string {
  const author = wire<NonNullable<PendingReview['author']>>(raw);
  const name = text(author.name);
  const email = text(author.email);
  return email ? `${name} <${email}>`.trim() : name;
}

/** GET /api/reviews: the service's pending-review list (`tasks`, or `reviews`), each with its operations. */
export function readReviews(raw: unknown): ReviewView[] {
  // `reviews`, `id`, `summary`, `title`, `op`, `topic`: older shapes, still read.
  const body = wire<ReviewsResponse, 'reviews'>(raw);
  const reviews = Array.isArray(raw) ? raw : list(body.tasks ?? body.reviews);
  return reviews.map((value) => {
    const review = wire<PendingReview, 'id' | 'summary' | 'title'>(value);
    return {
      id: text(review.id, review.taskId),
      subject: text(review.subject, review.summary, review.title),
      time: text(review.time),
      gated: review.gated === true,
      author: authorText(review.author),
      agent: text(review.agent),
      session: text(review.session),
      model: text(review.model),
      impact: text(review.impact, wire<ReviewOperation>(list(review.operations)[0]).impact),
      operations: list(review.operations).map((value) => {
        const op = wire<ReviewOperation, 'op' | 'topic'>(value);
        const landing = text(op.landing);
        return {
          path: text(op.path, op.topic) || (topicPathOf(text(op.filePath)) ?? ''),
          op: text(op.op, op.type),
          impact: text(op.impact),
          reason: text(op.reason),
          summary: text(op.summary),
          previousSummary: text(op.previousSummary),
          diff: text(op.diff),
          landing: landing === 'diff' || landing === 'unchanged' ? landing : '',
          ...(text(wire<ApiFailure>(op.problem).message) ? { problem: text(wire<ApiFailure>(op.problem).message) } : {}),
        };
      }),
    };
  });
}

/** An API error body `{ error: { kind, message } }`, or a fallback naming the HTTP status. */
export function readError(status: number, body: unknown): { kind: string; message: string } {
  const error = wire<ApiFailure>(wire<ErrorResponse>(body).error);
  const kind = text(error.kind);
  const message = text(error.message);
  if (kind !== '' || message !== '') return { kind: kind || `http-${status}`, message: message || `The server answered ${status}.` };
  if (status === 401) return { kind: 'unauthorized', message: 'Open the URL that `brv webui` printed (it carries the session secret).' };
  return { kind: `http-${status}`, message: `The server answered ${status}.` };
}

/** `3 min ago`, `2 h ago`, `5 d ago`, or the date, for an ISO time. */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return iso;
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  if (seconds < 30 * 86_400) return `${Math.round(seconds / 86_400)} d ago`;
  return iso.slice(0, 10);
}
