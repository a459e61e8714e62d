// The Changes page: brv's history of the current branch as a timeline (who, what, why).
import { readChanges } from './entries.js';
import { topicHref } from './routes.js';
import { ErrorBox, Link, shortOid, Time, useApi } from './ui.js';

export function ChangesPage() {
  const changes = useApi<unknown>('/api/changes?limit=50');
  const entries = changes.data === null ? null : readChanges(changes.data);
  return (
    <div class="changes">
      <h1>Changes</h1>
      <ErrorBox error={changes.error} />
      {entries === null ? changes.loading ? <p class="muted">Loading…</p> : null : null}
      {entries !== null && entries.length === 0 ? <p class="muted">No changes yet.</p> : null}
      <ol class="timeline">
        {(entries ?? []).map((entry) => (
          <li key={entry.commit} class="change" data-testid="change-entry">
            <div class="entry-line">
              <Time iso={entry.time} />
              <span class="agent">{entry.agent}</span>
              {entry.op ? <span class="badge">{entry.op}</span> : null}
              {entry.impact ? <span class="badge subtle">{entry.impact}</span> : null}
              <code class="muted" title={entry.commit}>
                {shortOid(entry.commit)}
              </code>
            </div>
            {entry.topics.length > 0 ? (
              <ul class="topics">
                {entry.topics.map((topic) => (
                  <li key={topic}>
                    <Link href={topicHref(topic)}>{topic}</Link>
                  </li>
                ))}
              </ul>
            ) : null}
            {entry.reason ? <p class="reason">{entry.reason}</p> : null}
            {entry.summary || entry.subject ? <p class="muted">{entry.summary || entry.subject}</p> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
