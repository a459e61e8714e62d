// The Reviews page (the review inbox): one card per pending review, approve / reject the whole review or one topic;
// checkboxes and a sticky bar for batch decisions (one POST /api/reviews/batch, failures shown per review); a merge
// review's conflicts, resolved per section or per topic (ours / theirs / both, or edited by hand) before approval.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { postJson, toApiError, type ApiError } from './api.js';
import type { ResolveSide } from '../api-types.js';
import { EditorPanel, useTopicEditor } from './editor.js';
import { readReviews, type ReviewOperationView, type ReviewView } from './entries.js';
import {
  afterBatch,
  allChecked,
  filterChoices,
  filterInbox,
  NO_FILTER,
  batchRequest,
  isMergeReview,
  NO_SELECTION,
  pruneSelection,
  readBatchResults,
  readConflicts,
  resolveBody,
  reviewChecked,
  selectAll,
  selectedCount,
  toggleReview,
  toggleTopic,
  topicChecked,
  type BatchFailure,
  type Checked,
  type ConflictTopicView,
  type ConflictView,
  type DecisionType,
  type InboxFilter,
  type Selection,
} from './review-inbox.js';
import { topicHref } from './routes.js';
import { DiffView, ErrorBox, Link, Time, useApi, useApp } from './ui.js';

export function ReviewsPage() {
  const { refresh } = useApp();
  const reviews = useApi('/api/reviews');
  const every = useMemo(() => (reviews.data === null ? null : readReviews(reviews.data)), [reviews.data]);
  const [filter, setFilter] = useState<InboxFilter>(NO_FILTER);
  // Only the reviews the filter shows are listed, selected and decided in a batch.
  const list = useMemo(() => (every === null ? null : filterInbox(every, filter, Date.now())), [every, filter]);
  const [kept, setSelection] = useState<Selection>(NO_SELECTION);
  // Reviews and topics that left the inbox (decided here or elsewhere, live, or filtered out) leave the selection too.
  const selection = list === null ? kept : pruneSelection(kept, list);
  useEffect(() => {
    if (selection !== kept) setSelection(selection);
  }, [selection, kept]);
  const [failures, setFailures] = useState<ReadonlyMap<string, BatchFailure>>(new Map());
  const [batch, setBatch] = useState<{ busy: boolean; summary: string; error: ApiError | null }>({
    busy: false,
    summary: '',
    error: null,
  });

  const decideSelected = async (decision: DecisionType): Promise<void> => {
    if (list === null) return;
    const body = batchRequest(selection, list, decision);
    if (body.decisions.length === 0) return;
    setBatch({ busy: true, summary: '', error: null });
    try {
      const outcome = readBatchResults(await postJson('/api/reviews/batch', body), body.decisions);
      setSelection((current) => afterBatch(current, outcome));
      setFailures(new Map(outcome.failed.map((failure) => [failure.id, failure])));
      const verb = decision === 'approve' ? 'approved' : 'rejected';
      setBatch({
        busy: false,
        summary:
          `${outcome.succeeded.length} ${outcome.succeeded.length === 1 ? 'review' : 'reviews'} ${verb}` +
          (outcome.failed.length > 0 ? `, ${outcome.failed.length} refused (see below)` : ''),
        error: null,
      });
      refresh(); // decided items leave the list (their live event refreshes too)
    } catch (error) {
      setBatch({ busy: false, summary: '', error: toApiError(error) });
    }
  };

  const all = list ?? [];
  const count = selectedCount(selection, all);
  return (
    <div class="reviews">
      <h1>Reviews</h1>
      <ErrorBox error={reviews.error} />
      {list === null ? reviews.loading ? <p class="muted">Loading…</p> : null : null}
      {every !== null && every.length > 0 ? <InboxFilterBar reviews={every} filter={filter} onChange={setFilter} /> : null}
      {every !== null && every.length === 0 ? (
        <p class="empty" data-testid="reviews-empty">
          Nothing to review: every change is decided.
        </p>
      ) : null}
      {every !== null && every.length > 0 && list !== null && list.length === 0 ? (
        <p class="empty" data-testid="reviews-filtered-empty">
          No pending review matches the filter ({every.length} hidden).
        </p>
      ) : null}
      {all.length > 0 ? (
        <div class="batch-bar" role="group" aria-label="Batch decisions" data-testid="batch-bar">
          <label class="check">
            <Checkbox
              checked={allChecked(selection, all)}
              testid="reviews-select-all"
              onToggle={() => setSelection(allChecked(selection, all) === 'all' ? NO_SELECTION : selectAll(all))}
            />
            Select all
          </label>
          <span class="muted" aria-live="polite">
            {count} {count === 1 ? 'topic' : 'topics'} selected
          </span>
          <span class="actions">
            <button
              type="button"
              class="approve"
              data-testid="batch-approve"
              disabled={count === 0 || batch.busy}
              onClick={() => void decideSelected('approve')}
            >
              Approve selected ({count})
            </button>
            <button
              type="button"
              class="reject"
              data-testid="batch-reject"
              disabled={count === 0 || batch.busy}
              onClick={() => void decideSelected('reject')}
            >
              Reject selected ({count})
            </button>
          </span>
          <span class="batch-result" role="status" data-testid="batch-result">
            {batch.busy ? 'Deciding…' : batch.summary}
          </span>
          <ErrorBox error={batch.error} />
        </div>
      ) : null}
      {all.map((review) => (
        <ReviewCard
          key={review.id}
          review={review}
          selection={selection}
          onSelect={setSelection}
          failure={failures.get(review.id) ?? null}
          onActed={() => setFailures((current) => (current.has(review.id) ? withoutKey(current, review.id) : current))}
        />
      ))}
    </div>
  );
}

/** Filter the inbox by agent, impact, author and how recent. */
function InboxFilterBar({
  reviews,
  filter,
  onChange,
}: {
  reviews: ReviewView[];
  filter: InboxFilter;
  onChange: (filter: InboxFilter) => void;
}) {
  const { agents, impacts } = useMemo(() => filterChoices(reviews), [reviews]);
  const set = (field: keyof InboxFilter) => (event: Event) =>
    onChange({ ...filter, [field]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  return (
    <div class="review-filter" role="search" aria-label="Filter reviews" data-testid="review-filter">
      <label>
        Agent{' '}
        <select data-testid="filter-agent" value={filter.agent} onChange={set('agent')}>
          <option value="">any</option>
          {agents.map((agent) => (
            <option key={agent} value={agent}>
              {agent}
            </option>
          ))}
        </select>
      </label>
      <label>
        Impact{' '}
        <select data-testid="filter-impact" value={filter.impact} onChange={set('impact')}>
          <option value="">any</option>
          {impacts.map((impact) => (
            <option key={impact} value={impact}>
              {impact}
            </option>
          ))}
        </select>
      </label>
      <label>
        Author <input type="search" data-testid="filter-author" placeholder="name or email" value={filter.author} onInput={set('author')} />
      </label>
      <label>
        Since{' '}
        <select data-testid="filter-since" value={filter.since} onChange={set('since')}>
          <option value="">any time</option>
          <option value="1h">the last hour</option>
          <option value="1d">the last day</option>
          <option value="7d">the last week</option>
          <option value="30d">the last 30 days</option>
        </select>
      </label>
    </div>
  );
}

/** Who made a change: `by Ann <ann@example.com> · agent claude-code · session … · model … · impact high`. */
function Provenance({ review }: { review: ReviewView }) {
  const parts = [
    review.author ? `by ${review.author}` : '',
    review.agent ? `agent ${review.agent}` : '',
    review.session ? `session ${review.session}` : '',
    review.model ? `model ${review.model}` : '',
    review.impact ? `impact ${review.impact}` : '',
  ].filter(Boolean);
  return parts.length === 0 ? null : (
    <p class="muted provenance" data-testid="review-provenance">
      {parts.join(' · ')}
    </p>
  );
}

function withoutKey<V>(map: ReadonlyMap<string, V>, key: string): ReadonlyMap<string, V> {
  const next = new Map(map);
  next.delete(key);
  return next;
}

/** A real checkbox (Space toggles it), indeterminate when part of what it stands for is selected. */
function Checkbox({ checked, onToggle, testid, label }: { checked: Checked; onToggle: () => void; testid: string; label?: string }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = checked === 'some';
  }, [checked]);
  return (
    <input
      ref={ref}
      type="checkbox"
      data-testid={testid}
      checked={checked === 'all'}
      aria-checked={checked === 'some' ? 'mixed' : checked === 'all'}
      aria-label={label}
      onChange={onToggle}
    />
  );
}

interface CardProps {
  review: ReviewView;
  selection: Selection;
  onSelect: (update: (current: Selection) => Selection) => void;
  failure: BatchFailure | null;
  /** Something was done in the card: a batch refusal shown in it is out of date. */
  onActed: () => void;
}

function ReviewCard({ review, selection, onSelect, failure, onActed }: CardProps) {
  const { refresh } = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const merge = isMergeReview(review) && !review.gated;
  const conflictsApi = useApi(merge ? `/api/reviews/conflicts?id=${encodeURIComponent(review.id)}` : null);
  const conflicts = useMemo(() => (conflictsApi.data === null ? [] : readConflicts(conflictsApi.data)), [conflictsApi.data]);
  const unresolved = conflicts.reduce((n, topic) => n + topic.conflicts.length, 0);
  const blockedReason =
    unresolved > 0
      ? `${unresolved} merge ${unresolved === 1 ? 'conflict is' : 'conflicts are'} unresolved: resolve ${unresolved === 1 ? 'it' : 'them'} below first, or approve keeping both versions.`
      : '';

  // A resolved conflict's buttons leave with it: the focus goes back to the card, not to the top of the page.
  const card = useRef<HTMLElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    const active = document.activeElement;
    if (active === null || active === document.body || !active.isConnected) card.current?.focus();
  }, [conflicts]);

  const post = async (sent: () => Promise<unknown>, resolving = false): Promise<void> => {
    setBusy(true);
    setError(null);
    onActed();
    try {
      await sent();
      refocus.current = resolving;
      refresh(); // decided items leave the list, resolved conflicts reload (the live event refreshes too)
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const decide = (decision: DecisionType, topics?: string[], keepBoth = false): Promise<void> =>
    post(() =>
      decision === 'approve'
        ? postJson('/api/reviews/approve', { id: review.id, ...(topics ? { topics } : {}), ...(keepBoth ? { keepBoth } : {}) })
        : postJson('/api/reviews/reject', { id: review.id, ...(topics ? { topics } : {}) }),
    );
  const resolve = (topic: string, side: ResolveSide, section?: string): Promise<void> =>
    post(() => postJson('/api/reviews/resolve', resolveBody(review.id, topic, side, section)), true);

  const headingId = `review-${review.id}`;
  const reasonId = `review-blocked-${review.id}`;
  return (
    <article class="card review" data-testid="review" data-id={review.id} aria-labelledby={headingId} ref={card} tabIndex={-1}>
      <header class="card-header">
        <label class="check card-check">
          <Checkbox
            checked={reviewChecked(selection, review)}
            testid="review-select"
            label={`Select review ${review.subject || review.id}`}
            onToggle={() => onSelect((current) => toggleReview(current, review))}
          />
        </label>
        <div class="card-title">
          <h2 id={headingId}>{review.subject || `Review ${review.id}`}</h2>
          <p class="muted">
            <Time iso={review.time} /> · <code>{review.id}</code>
            {review.gated ? <span class="badge subtle">held until approved</span> : null}
            {merge ? <span class="badge subtle">merge</span> : null}
          </p>
          <Provenance review={review} />
        </div>
        <div class="actions">
          {unresolved > 0 ? (
            <>
              <button type="button" class="approve" data-testid="review-approve" disabled aria-describedby={reasonId}>
                Approve all
              </button>
              <button
                type="button"
                class="approve"
                data-testid="review-approve-keep-both"
                disabled={busy}
                onClick={() => void decide('approve', undefined, true)}
              >
                Approve keeping both versions
              </button>
            </>
          ) : (
            <button type="button" class="approve" data-testid="review-approve" disabled={busy} onClick={() => void decide('approve')}>
              Approve all
            </button>
          )}
          <button type="button" class="reject" data-testid="review-reject" disabled={busy} onClick={() => void decide('reject')}>
            Reject all
          </button>
        </div>
      </header>
      {unresolved > 0 ? (
        <p class="blocked" id={reasonId} data-testid="review-blocked">
          {blockedReason}
        </p>
      ) : null}
      {failure ? (
        <div class="error" role="alert" data-testid="batch-failure">
          <strong>{failure.decision === 'approve' ? 'Not approved' : 'Not rejected'}:</strong>{' '}
          <strong class="error-kind">{failure.kind}</strong> <span class="error-message">{failure.message}</span>
        </div>
      ) : null}
      <ErrorBox error={error ?? conflictsApi.error} />
      {review.operations.map((op) => (
        <TopicOperation
          key={op.path}
          review={review}
          op={op}
          busy={busy}
          selected={topicChecked(selection, review, op.path)}
          onToggle={() => onSelect((current) => toggleTopic(current, review, op.path))}
          conflicts={conflicts.find((topic) => topic.path === op.path) ?? null}
          blockedBy={unresolved > 0 ? reasonId : null}
          decide={decide}
          resolve={resolve}
        />
      ))}
    </article>
  );
}

interface OperationProps {
  review: ReviewView;
  op: ReviewOperationView;
  busy: boolean;
  selected: boolean;
  onToggle: () => void;
  conflicts: ConflictTopicView | null;
  /** The id of the text saying why approving waits (this topic's conflicts, or another's of the review). */
  blockedBy: string | null;
  decide: (decision: DecisionType, topics?: string[], keepBoth?: boolean) => Promise<void>;
  resolve: (topic: string, side: ResolveSide, section?: string) => Promise<void>;
}

function TopicOperation({ review, op, busy, selected, onToggle, conflicts, blockedBy, decide, resolve }: OperationProps) {
  const own = conflicts !== null && conflicts.conflicts.length > 0;
  return (
    <section class="review-topic" data-testid="review-topic" data-path={op.path} aria-label={op.path}>
      <div class="entry-line">
        <label class="check">
          <input
            type="checkbox"
            data-testid="topic-select"
            checked={selected}
            aria-label={`Select ${op.path} of review ${review.subject || review.id}`}
            onChange={onToggle}
          />
        </label>
        {op.op ? <span class="badge">{op.op}</span> : null}
        <Link href={topicHref(op.path)}>{op.path}</Link>
        {op.impact ? <span class="badge subtle">{op.impact}</span> : null}
        {own ? <span class="badge conflicts-badge">{conflicts.conflicts.length} unresolved</span> : null}
        <span class="actions">
          {own ? (
            <button
              type="button"
              class="approve"
              data-testid="topic-approve-keep-both"
              disabled={busy}
              onClick={() => void decide('approve', [op.path], true)}
            >
              Approve keeping both
            </button>
          ) : null}
          <button
            type="button"
            class="approve"
            data-testid="topic-approve"
            disabled={busy || own}
            aria-describedby={own && blockedBy ? blockedBy : undefined}
            onClick={() => void decide('approve', [op.path])}
          >
            Approve
          </button>
          <button type="button" class="reject" data-testid="topic-reject" disabled={busy} onClick={() => void decide('reject', [op.path])}>
            Reject
          </button>
        </span>
      </div>
      {op.reason ? <p class="reason">{op.reason}</p> : null}
      {own ? (
        <TopicConflicts topic={conflicts} busy={busy} resolve={resolve} />
      ) : op.landing === 'unchanged' ? (
        <p class="muted" data-testid="review-unchanged">
          No change: the topic is as it was before the merge.
        </p>
      ) : op.diff ? (
        <DiffView text={op.diff} />
      ) : op.problem ? (
        <p class="muted">Not shown: {op.problem}</p>
      ) : op.summary || op.previousSummary ? (
        <DiffView text={[op.previousSummary && `- ${op.previousSummary}`, op.summary && `+ ${op.summary}`].filter(Boolean).join('\n')} />
      ) : null}
    </section>
  );
}

function TopicConflicts({
  topic,
  busy,
  resolve,
}: {
  topic: ConflictTopicView;
  busy: boolean;
  resolve: (topic: string, side: ResolveSide, section?: string) => Promise<void>;
}) {
  const { refresh } = useApp();
  const onSaved = useCallback(() => refresh(), [refresh]);
  const editor = useTopicEditor(topic.path, onSaved);
  const editing = editor.state.phase !== 'closed';
  return (
    <div class="merge-conflicts" data-testid="review-conflicts" data-path={topic.path}>
      <div class="conflict-toolbar" role="group" aria-label={`Resolve every conflict of ${topic.path}`}>
        <span class="muted">Whole topic:</span>
        <button type="button" data-testid="topic-resolve-ours" disabled={busy} onClick={() => void resolve(topic.path, 'ours')}>
          All ours
        </button>
        <button type="button" data-testid="topic-resolve-theirs" disabled={busy} onClick={() => void resolve(topic.path, 'theirs')}>
          All theirs
        </button>
        <button type="button" data-testid="topic-resolve-both" disabled={busy} onClick={() => void resolve(topic.path, 'both')}>
          All both
        </button>
        <button type="button" data-testid="conflict-edit" disabled={busy || editing} onClick={editor.open}>
          Edit
        </button>
      </div>
      <EditorPanel editor={editor} />
      {topic.conflicts.map((conflict) => (
        <ConflictItem key={conflict.section} path={topic.path} conflict={conflict} busy={busy} resolve={resolve} />
      ))}
    </div>
  );
}

function ConflictItem({
  path,
  conflict,
  busy,
  resolve,
}: {
  path: string;
  conflict: ConflictView;
  busy: boolean;
  resolve: (topic: string, side: ResolveSide, section?: string) => Promise<void>;
}) {
  const { section, sides } = conflict;
  return (
    <section class="merge-conflict" data-testid="conflict" data-section={section} aria-label={`Conflict ${section} in ${path}`}>
      <p class="conflict-head">
        <code>{section}</code> <span class="muted">{conflict.reason}</span>
      </p>
      {sides ? (
        <div class="conflict-sides">
          <ConflictSide label="Ours" html={sides.oursHtml} source={sides.oursSource} testid="conflict-ours" />
          <ConflictSide label="Theirs" html={sides.theirsHtml} source={sides.theirsSource} testid="conflict-theirs" />
        </div>
      ) : null}
      <div class="conflict-actions" role="group" aria-label={`Resolve ${section}`}>
        <button type="button" data-testid="resolve-ours" disabled={busy} onClick={() => void resolve(path, 'ours', section)}>
          Ours
        </button>
        <button type="button" data-testid="resolve-theirs" disabled={busy} onClick={() => void resolve(path, 'theirs', section)}>
          Theirs
        </button>
        <button type="button" data-testid="resolve-both" disabled={busy} onClick={() => void resolve(path, 'both', section)}>
          Both
        </button>
      </div>
    </section>
  );
}

function ConflictSide({ label, html, source, testid }: { label: string; html: string; source: string; testid: string }) {
  return (
    <figure class="conflict-side">
      <figcaption>{label}</figcaption>
      {/* Sanitised by the server (src/web/topic-html.ts); the CSP forbids scripts whatever it contains. */}
      <div class="topic-body" data-testid={testid} dangerouslySetInnerHTML={{ __html: html }} />
      <details>
        <summary>Stored HTML</summary>
        <pre class="raw">{source}</pre>
      </details>
    </figure>
  );
}
