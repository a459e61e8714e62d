// The Reviews page: one card per pending review, approve / reject the whole review or one topic.
import { useState } from 'preact/hooks';
import { postJson, toApiError, type ApiError } from './api.js';
import { readReviews, type ReviewView } from './entries.js';
import { topicHref } from './routes.js';
import { DiffView, ErrorBox, Link, Time, useApi, useApp } from './ui.js';

export function ReviewsPage() {
  const reviews = useApi<unknown>('/api/reviews');
  const list = reviews.data === null ? null : readReviews(reviews.data);
  return (
    <div class="reviews">
      <h1>Reviews</h1>
      <ErrorBox error={reviews.error} />
      {list === null ? reviews.loading ? <p class="muted">Loading…</p> : null : null}
      {list !== null && list.length === 0 ? (
        <p class="empty" data-testid="reviews-empty">
          Nothing to review: every change is decided.
        </p>
      ) : null}
      {(list ?? []).map((review) => (
        <ReviewCard key={review.id} review={review} />
      ))}
    </div>
  );
}

type Decision = 'approve' | 'reject';

function ReviewCard({ review }: { review: ReviewView }) {
  const { refresh } = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const decide = async (decision: Decision, topics?: string[]): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await postJson(`/api/reviews/${decision}`, topics ? { id: review.id, topics } : { id: review.id });
      refresh(); // decided items leave the list (the live event refreshes too)
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="card review" data-testid="review" data-id={review.id} aria-labelledby={`review-${review.id}`}>
      <header class="card-header">
        <div>
          <h2 id={`review-${review.id}`}>{review.subject || `Review ${review.id}`}</h2>
          <p class="muted">
            <Time iso={review.time} /> · <code>{review.id}</code>
            {review.gated ? <span class="badge subtle">held until approved</span> : null}
          </p>
        </div>
        <div class="actions">
          <button type="button" class="approve" data-testid="review-approve" disabled={busy} onClick={() => void decide('approve')}>
            Approve all
          </button>
          <button type="button" class="reject" data-testid="review-reject" disabled={busy} onClick={() => void decide('reject')}>
            Reject all
          </button>
        </div>
      </header>
      <ErrorBox error={error} />
      {review.operations.map((op) => (
        <section key={op.path} class="review-topic" data-testid="review-topic" data-path={op.path} aria-label={op.path}>
          <div class="entry-line">
            {op.op ? <span class="badge">{op.op}</span> : null}
            <Link href={topicHref(op.path)}>{op.path}</Link>
            {op.impact ? <span class="badge subtle">{op.impact}</span> : null}
            <span class="actions">
              <button
                type="button"
                class="approve"
                data-testid="topic-approve"
                disabled={busy}
                onClick={() => void decide('approve', [op.path])}
              >
                Approve
              </button>
              <button
                type="button"
                class="reject"
                data-testid="topic-reject"
                disabled={busy}
                onClick={() => void decide('reject', [op.path])}
              >
                Reject
              </button>
            </span>
          </div>
          {op.reason ? <p class="reason">{op.reason}</p> : null}
          {op.diff ? (
            <DiffView text={op.diff} />
          ) : op.summary || op.previousSummary ? (
            <DiffView
              text={[op.previousSummary && `- ${op.previousSummary}`, op.summary && `+ ${op.summary}`].filter(Boolean).join('\n')}
            />
          ) : null}
        </section>
      ))}
    </article>
  );
}
