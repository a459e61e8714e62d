// The Changes page: brv's history of the current branch as a timeline (who, what, why); each commit expands to
// the diffs of the topics it changed.
import { useState } from 'preact/hooks';
import { readCommit } from './diff.js';
import { readChanges } from './entries.js';
import { topicHref } from './routes.js';
import { DiffView, ErrorBox, Link, shortOid, Time, useApi } from './ui.js';

export function ChangesPage() {
  const changes = useApi('/api/changes?limit=50');
  const entries = changes.data === null ? null : readChanges(changes.data);
  // Expanded commits, by oid: they stay open when a live event reloads the timeline.
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (commit: string): void =>
    setOpen((previous) => {
      const next = new Set(previous);
      if (next.has(commit)) next.delete(commit);
      else next.add(commit);
      return next;
    });
  return (
    <div class="changes">
      <h1>Changes</h1>
      <ErrorBox error={changes.error} />
      {entries === null ? changes.loading ? <p class="muted">Loading…</p> : null : null}
      {entries !== null && entries.length === 0 ? <p class="muted">No changes yet.</p> : null}
      <ol class="timeline">
        {(entries ?? []).map((entry) => {
          const expanded = open.has(entry.commit);
          return (
            <li key={entry.commit} class="change" data-testid="change-entry" data-commit={entry.commit}>
              <div class="entry-line">
                <Time iso={entry.time} />
                <span class="agent">{entry.agent}</span>
                {entry.op ? <span class="badge">{entry.op}</span> : null}
                {entry.impact ? <span class="badge subtle">{entry.impact}</span> : null}
                {entry.signature ? (
                  <span
                    class={entry.signatureStatus === 'G' ? 'badge subtle' : 'badge'}
                    data-testid="change-signature"
                    title={entry.signature}
                  >
                    {entry.signature}
                  </span>
                ) : null}
                <code class="muted" title={entry.commit}>
                  {shortOid(entry.commit)}
                </code>
                {entry.commit ? (
                  <button
                    type="button"
                    class="small"
                    data-testid="change-expand"
                    aria-expanded={expanded}
                    aria-controls={`diffs-${entry.commit}`}
                    onClick={() => toggle(entry.commit)}
                  >
                    {expanded ? '▾ diffs' : '▸ diffs'}
                  </button>
                ) : null}
              </div>
              {entry.topics.length > 0 ? (
                <ul class="topics">
                  {entry.topics.map((topic) => (
                    <li key={topic}>
                      <Link href={topicHref(topic)}>{topic}</Link>
                    </li>
                  ))}
                  {entry.omitted > 0 ? <li class="muted">and {entry.omitted} more</li> : null}
                </ul>
              ) : null}
              {entry.reason ? <p class="reason">{entry.reason}</p> : null}
              {entry.summary || entry.subject ? <p class="muted">{entry.summary || entry.subject}</p> : null}
              {expanded ? <CommitDiffs rev={entry.commit} /> : null}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

/** The topics one commit changed, each with the diff of its rendered markdown (GET /api/commit). */
function CommitDiffs({ rev }: { rev: string }) {
  const answer = useApi(`/api/commit?rev=${encodeURIComponent(rev)}`, { immutable: true });
  const commit = answer.data === null ? null : readCommit(answer.data);
  return (
    <div class="commit-diffs" id={`diffs-${rev}`} data-testid="commit-diffs">
      <ErrorBox error={answer.error} />
      {commit === null ? answer.loading ? <p class="muted">Loading…</p> : null : null}
      {commit !== null && commit.changes.length === 0 ? <p class="muted">No topic changed in this commit.</p> : null}
      {(commit?.changes ?? []).map((change) => (
        <section key={change.path} class="commit-topic" data-testid="commit-topic" data-path={change.path} aria-label={change.path}>
          <div class="entry-line">
            {change.status ? <span class="badge subtle">{change.status}</span> : null}
            {change.status === 'removed' || change.status === 'deleted' ? (
              <code>{change.path}</code>
            ) : (
              <Link href={topicHref(change.path)}>{change.path}</Link>
            )}
          </div>
          {change.diff ? (
            <DiffView text={change.diff} />
          ) : change.problem ? (
            <p class="muted">Not shown: {change.problem}</p>
          ) : (
            <p class="muted">No text diff.</p>
          )}
        </section>
      ))}
      {commit !== null && commit.omitted > 0 ? <p class="muted">{commit.omitted} more topics changed (not shown).</p> : null}
    </div>
  );
}
