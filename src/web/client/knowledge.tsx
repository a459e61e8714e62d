// The Knowledge page: the folder tree (virtualised, loaded a level at a time: tree-view.tsx) and the open topic
// (Rendered / Raw / History); a knowledge source's topic read-only (Rendered / Raw).
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiGetPath } from './api.js';
import { readCommit, readTopicDiff, toggleVersion, topicDiffHref, versionRange } from './diff.js';
import { EditorPanel, useTopicEditor } from './editor.js';
import { readChanges, type ChangeView } from './entries.js';
import { topicHref, type TopicTab } from './routes.js';
import { TopicDelete, takeDeleted } from './topic-delete.js';
import { TopicLinks } from './topic-links.js';
import { TreePane } from './tree-view.js';
import { DiffView, ErrorBox, Link, shortOid, Time, useApi, useApp } from './ui.js';

export function KnowledgePage({ topic, tab, source }: { topic: string | null; tab: TopicTab; source: string | null }) {
  const [count, setCount] = useState<number | null>(null);
  // On a narrow screen the tree is a drawer above the topic (app.css): open while no topic is, closed once one opens.
  const [treeOpen, setTreeOpen] = useState(topic === null);
  useEffect(() => setTreeOpen(topic === null), [topic, source]);
  return (
    <div class={treeOpen ? 'knowledge tree-open' : 'knowledge'}>
      <button
        type="button"
        class="tree-toggle"
        data-testid="tree-toggle"
        aria-expanded={treeOpen}
        aria-controls="tree-pane"
        onClick={() => setTreeOpen((open) => !open)}
      >
        {treeOpen ? 'Hide topics' : `Topics${count === null ? '' : ` (${count})`}`}
      </button>
      <nav class="tree-pane" id="tree-pane" aria-label="Topics" data-testid="tree-pane">
        <TreePane topic={topic} source={source} onCount={setCount} />
      </nav>
      <section class="topic-pane" data-testid="topic-pane">
        {topic === null ? <NoTopic count={count} /> : <TopicView key={`${source ?? ''}:${topic}`} path={topic} tab={tab} source={source} />}
      </section>
    </div>
  );
}

function NoTopic({ count }: { count: number | null }) {
  const [deleted] = useState(takeDeleted);
  return (
    <div class="placeholder">
      <h1>Knowledge</h1>
      {deleted ? (
        <p class="saved-note" data-testid="topic-deleted" role="status">
          {deleted}
        </p>
      ) : null}
      <p>
        <Link href="/new" data-testid="new-topic" class="button">
          + New topic
        </Link>
      </p>
      <p class="muted">
        {count === null
          ? ''
          : count === 0
            ? 'No topics yet: agents curate knowledge with brv curate.'
            : `${count} topics. Choose one in the tree.`}
      </p>
    </div>
  );
}

const TABS: Array<{ tab: TopicTab; label: string }> = [
  { tab: 'rendered', label: 'Rendered' },
  { tab: 'raw', label: 'Raw' },
  { tab: 'history', label: 'History' },
];

const SOURCE_TABS = TABS.filter(({ tab }) => tab !== 'history');

function TopicView({ path, tab, source }: { path: string; tab: TopicTab; source: string | null }) {
  const { navigate } = useApp();
  const followInternalLink = useInternalLinks();
  const topic = useApi(`/api/topic?path=${encodeURIComponent(path)}${source === null ? '' : `&source=${encodeURIComponent(source)}`}`);
  const showSaved = useCallback(() => navigate(topicHref(path), { replace: true }), [navigate, path]);
  const editor = useTopicEditor(path, showSaved);
  const editing = editor.state.phase !== 'closed';
  const saved = editor.state.phase === 'closed' ? editor.state.saved : null;
  const data = topic.data;
  return (
    <article class="topic">
      <header class="topic-header">
        <div class="topic-heading">
          <h1 data-testid="topic-title">{data?.title || path}</h1>
          <p class="muted topic-path">
            <code>{path}</code>
            {data?.commit ? <span title={data.commit}> · {shortOid(data.commit)}</span> : null}
          </p>
        </div>
        {source === null ? (
          <div class="topic-actions">
            <button type="button" data-testid="topic-edit" disabled={editing || data === null} onClick={editor.open}>
              Edit
            </button>
            <TopicDelete path={path} disabled={editing || data === null} />
          </div>
        ) : null}
      </header>
      {source !== null ? (
        <p class="readonly-note" data-testid="topic-readonly" role="note">
          Read-only, from knowledge source <strong>{source}</strong>: it changes where that repository is curated.
        </p>
      ) : null}
      {saved ? (
        <p class="saved-note" data-testid="edit-saved" role="status">
          {saved.unchanged ? 'No change: nothing to save.' : `Saved${saved.commit ? ` as ${shortOid(saved.commit)}` : ''}.`}
        </p>
      ) : null}
      {editing ? (
        <EditorPanel editor={editor} />
      ) : (
        <>
          <div class="tabs" role="tablist" aria-label="Topic views">
            {(source === null ? TABS : SOURCE_TABS).map(({ tab: value, label }) => (
              <button
                key={value}
                type="button"
                role="tab"
                id={`tab-${value}`}
                data-testid={`tab-${value}`}
                aria-selected={tab === value}
                aria-controls="topic-panel"
                class={tab === value ? 'tab active' : 'tab'}
                onClick={() => navigate(topicHref(path, value, source), { replace: true })}
              >
                {label}
              </button>
            ))}
          </div>
          <div id="topic-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} class="topic-panel">
            <ErrorBox error={topic.error} />
            {tab === 'history' ? (
              <TopicHistory key={path} path={path} />
            ) : data === null ? (
              topic.loading ? (
                <p class="muted">Loading…</p>
              ) : null
            ) : tab === 'raw' ? (
              <pre class="raw" data-testid="topic-raw">
                {data.raw}
              </pre>
            ) : (
              // Sanitised by the server (src/web/topic-html.ts); the CSP forbids scripts whatever it contains.
              <>
                <div
                  class="topic-body"
                  data-testid="topic-body"
                  onClick={followInternalLink}
                  dangerouslySetInnerHTML={{ __html: data.html }}
                />
                <TopicLinks path={path} source={source} />
              </>
            )}
          </div>
        </>
      )}
    </article>
  );
}

/** A link in a topic to another page of the dashboard opens in place; any other link is left to the browser. */
function useInternalLinks(): (event: MouseEvent) => void {
  const { navigate } = useApp();
  return (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest?.('a[href]');
    if (!(link instanceof HTMLAnchorElement) || link.target || link.origin !== location.origin) return;
    if (!/^\/(knowledge|search|changes|reviews|branches|setup)(\/|$)/.test(link.pathname)) return;
    event.preventDefault();
    navigate(link.pathname + link.search);
  };
}

/** What the history's diff panel shows: one entry against its parent, or two ticked versions. */
interface ShownDiff {
  /** Where the panel sits: under an entry (`entry:<commit>`) or under the compare bar (`compare`). */
  at: string;
  label: string;
  /** A topic diff between two revisions, or (the first commit, which has no parent) the commit's own diffs. */
  source: { kind: 'range'; from: string; to: string } | { kind: 'commit'; rev: string };
}

function TopicHistory({ path }: { path: string }) {
  const history = useApi(`/api/topic/history?path=${encodeURIComponent(path)}`);
  const entries = history.data === null ? null : readChanges(history.data);
  const [selected, setSelected] = useState<string[]>([]);
  const [shown, setShown] = useState<ShownDiff | null>(null);
  const order = useMemo(() => (entries ?? []).map((entry) => entry.commit), [entries]);
  const range = versionRange(selected, order);

  const tick = (commit: string): void => {
    const next = toggleVersion(selected, commit);
    setSelected(next);
    const pair = versionRange(next, order);
    if (pair) {
      setShown({
        at: 'compare',
        label: `${shortOid(pair.from)} → ${shortOid(pair.to)}`,
        source: { kind: 'range', ...pair },
      });
    } else if (shown?.at === 'compare') setShown(null);
  };
  const showEntry = (entry: ChangeView): void => {
    const at = `entry:${entry.commit}`;
    if (shown?.at === at) return setShown(null);
    const parent = entry.parents[0];
    setShown({
      at,
      label: `${shortOid(entry.commit)} against ${parent ? shortOid(parent) : 'nothing (the first version)'}`,
      source: parent ? { kind: 'range', from: parent, to: entry.commit } : { kind: 'commit', rev: entry.commit },
    });
  };

  return (
    <>
      <ErrorBox error={history.error} />
      {entries === null ? (
        history.loading ? (
          <p class="muted">Loading…</p>
        ) : null
      ) : (
        <>
          {entries.length > 1 ? (
            <div class="compare-bar">
              <span class="muted">
                {range
                  ? `Comparing ${shortOid(range.from)} → ${shortOid(range.to)}`
                  : selected.length === 1
                    ? 'Tick one more version to compare.'
                    : 'Tick two versions to compare them.'}
              </span>
              {selected.length > 0 ? (
                <button
                  type="button"
                  class="link-button"
                  onClick={() => {
                    setSelected([]);
                    if (shown?.at === 'compare') setShown(null);
                  }}
                >
                  Clear
                </button>
              ) : null}
            </div>
          ) : null}
          {shown?.at === 'compare' ? <DiffPanel path={path} shown={shown} close={() => setShown(null)} /> : null}
          <ol class="history" data-testid="topic-history">
            {entries.length === 0 ? <li class="muted">No history.</li> : null}
            {entries.map((entry) => (
              <li key={entry.commit} class="history-entry" data-testid="history-entry" data-commit={entry.commit}>
                <div class="entry-line">
                  {entries.length > 1 ? (
                    <input
                      type="checkbox"
                      class="version-select"
                      data-testid="version-select"
                      aria-label={`Compare version ${shortOid(entry.commit)}`}
                      checked={selected.includes(entry.commit)}
                      onChange={() => tick(entry.commit)}
                    />
                  ) : null}
                  <Time iso={entry.time} />
                  {entry.op ? <span class="badge">{entry.op}</span> : null}
                  {entry.impact ? <span class="badge subtle">{entry.impact}</span> : null}
                  <span class="agent">{entry.agent}</span>
                  <code class="muted" title={entry.commit}>
                    {shortOid(entry.commit)}
                  </code>
                  <button
                    type="button"
                    class="small"
                    data-testid="history-diff"
                    aria-expanded={shown?.at === `entry:${entry.commit}`}
                    onClick={() => showEntry(entry)}
                  >
                    diff
                  </button>
                </div>
                {entry.reason ? <p class="reason">{entry.reason}</p> : null}
                {entry.summary || entry.subject ? <p class="muted">{entry.summary || entry.subject}</p> : null}
                {shown?.at === `entry:${entry.commit}` ? <DiffPanel path={path} shown={shown} close={() => setShown(null)} /> : null}
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}

/** The diff of one topic between two versions (the server diffs the rendered markdown). */
function DiffPanel({ path, shown, close }: { path: string; shown: ShownDiff; close(): void }) {
  const { source } = shown;
  const href: ApiGetPath =
    source.kind === 'range' ? topicDiffHref(path, source.from, source.to) : `/api/commit?rev=${encodeURIComponent(source.rev)}`;
  const answer = useApi(href, { immutable: true });
  let text: string | null = null;
  if (answer.data !== null) {
    text =
      source.kind === 'range' ? readTopicDiff(answer.data) : (readCommit(answer.data).changes.find((c) => c.path === path)?.diff ?? '');
  }
  return (
    <section class="diff-panel" data-testid="version-diff" aria-label={`Diff ${shown.label}`}>
      <div class="entry-line">
        <strong>Diff {shown.label}</strong>
        <button type="button" class="link-button" onClick={close}>
          Close
        </button>
      </div>
      <ErrorBox error={answer.error} />
      {text === null ? (
        answer.loading ? (
          <p class="muted">Loading…</p>
        ) : null
      ) : text === '' ? (
        <p class="muted">No difference in this topic's text.</p>
      ) : (
        <DiffView text={text} />
      )}
    </section>
  );
}
