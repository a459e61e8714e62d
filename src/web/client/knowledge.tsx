// The Knowledge page: the folder tree (collapsible, with counts) and the open topic (Rendered / Raw / History).
import { useMemo, useState } from 'preact/hooks';
import type { TopicResult, TreeResult } from './api.js';
import { readChanges } from './entries.js';
import { topicHref, type TopicTab } from './routes.js';
import { ancestors, buildTree, type TreeFolder } from './tree.js';
import { ErrorBox, Link, shortOid, Time, useApi, useApp } from './ui.js';

/** Up to this many topics, every folder starts open; above it, only the open topic's folders. */
const OPEN_ALL_UP_TO = 500;

export function KnowledgePage({ topic, tab }: { topic: string | null; tab: TopicTab }) {
  const tree = useApi<TreeResult>('/api/tree');
  return (
    <div class="knowledge">
      <nav class="tree-pane" aria-label="Topics">
        <ErrorBox error={tree.error} />
        {tree.data ? <Tree topics={tree.data.topics} current={topic} /> : tree.loading ? <p class="muted">Loading…</p> : null}
      </nav>
      <section class="topic-pane">
        {topic === null ? <NoTopic count={tree.data?.topics.length ?? null} /> : <TopicView path={topic} tab={tab} />}
      </section>
    </div>
  );
}

function NoTopic({ count }: { count: number | null }) {
  return (
    <div class="placeholder">
      <h1>Knowledge</h1>
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

function Tree({ topics, current }: { topics: TreeResult['topics']; current: string | null }) {
  const root = useMemo(() => buildTree(topics), [topics]);
  const openAll = root.count <= OPEN_ALL_UP_TO;
  // Folders whose state differs from the default (open, or closed for large trees).
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const forced = useMemo(() => new Set(current === null ? [] : ancestors(current)), [current]);
  const isOpen = (path: string): boolean => (openAll || forced.has(path)) !== toggled.has(path);
  const toggle = (path: string): void =>
    setToggled((previous) => {
      const next = new Set(previous);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });
  if (root.count === 0) return <p class="muted">No topics.</p>;
  return (
    <>
      <p class="tree-count muted">{root.count} topics</p>
      <FolderList folder={root} isOpen={isOpen} toggle={toggle} current={current} />
    </>
  );
}

interface FolderListProps {
  folder: TreeFolder;
  isOpen(path: string): boolean;
  toggle(path: string): void;
  current: string | null;
}

function FolderList({ folder, isOpen, toggle, current }: FolderListProps) {
  return (
    <ul class="tree">
      {folder.folders.map((child) => {
        const open = isOpen(child.path);
        return (
          <li key={`d:${child.path}`}>
            <button
              type="button"
              class="tree-folder"
              data-testid="tree-folder"
              data-path={child.path}
              aria-expanded={open}
              onClick={() => toggle(child.path)}
            >
              <span class="chevron" aria-hidden="true">
                {open ? '▾' : '▸'}
              </span>
              <span class="tree-name">{child.name}</span>
              <span class="count">
                {child.count}
                <span class="visually-hidden"> topics</span>
              </span>
            </button>
            {open ? <FolderList folder={child} isOpen={isOpen} toggle={toggle} current={current} /> : null}
          </li>
        );
      })}
      {folder.topics.map((topic) => (
        <li key={`t:${topic.path}`}>
          <Link
            href={topicHref(topic.path)}
            class="tree-topic"
            data-testid="tree-topic"
            data-path={topic.path}
            title={topic.path}
            aria-current={topic.path === current ? 'page' : undefined}
          >
            {topic.title}
          </Link>
        </li>
      ))}
    </ul>
  );
}

const TABS: Array<{ tab: TopicTab; label: string }> = [
  { tab: 'rendered', label: 'Rendered' },
  { tab: 'raw', label: 'Raw' },
  { tab: 'history', label: 'History' },
];

function TopicView({ path, tab }: { path: string; tab: TopicTab }) {
  const { navigate } = useApp();
  const followInternalLink = useInternalLinks();
  const topic = useApi<TopicResult>(`/api/topic?path=${encodeURIComponent(path)}`);
  const data = topic.data;
  return (
    <article class="topic">
      <header class="topic-header">
        <h1 data-testid="topic-title">{data?.title || path}</h1>
        <p class="muted topic-path">
          <code>{path}</code>
          {data?.commit ? <span title={data.commit}> · {shortOid(data.commit)}</span> : null}
        </p>
      </header>
      <div class="tabs" role="tablist" aria-label="Topic views">
        {TABS.map(({ tab: value, label }) => (
          <button
            key={value}
            type="button"
            role="tab"
            id={`tab-${value}`}
            data-testid={`tab-${value}`}
            aria-selected={tab === value}
            aria-controls="topic-panel"
            class={tab === value ? 'tab active' : 'tab'}
            onClick={() => navigate(topicHref(path, value), { replace: true })}
          >
            {label}
          </button>
        ))}
      </div>
      <div id="topic-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} class="topic-panel">
        <ErrorBox error={topic.error} />
        {tab === 'history' ? (
          <TopicHistory path={path} />
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
          <div class="topic-body" data-testid="topic-body" onClick={followInternalLink} dangerouslySetInnerHTML={{ __html: data.html }} />
        )}
      </div>
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
    if (!/^\/(knowledge|search|changes|reviews)(\/|$)/.test(link.pathname)) return;
    event.preventDefault();
    navigate(link.pathname + link.search);
  };
}

function TopicHistory({ path }: { path: string }) {
  const history = useApi<unknown>(`/api/topic/history?path=${encodeURIComponent(path)}`);
  const entries = history.data === null ? null : readChanges(history.data);
  return (
    <>
      <ErrorBox error={history.error} />
      {entries === null ? (
        history.loading ? (
          <p class="muted">Loading…</p>
        ) : null
      ) : (
        <ol class="history" data-testid="topic-history">
          {entries.length === 0 ? <li class="muted">No history.</li> : null}
          {entries.map((entry) => (
            <li key={entry.commit} class="history-entry" data-testid="history-entry">
              <div class="entry-line">
                <Time iso={entry.time} />
                {entry.op ? <span class="badge">{entry.op}</span> : null}
                {entry.impact ? <span class="badge subtle">{entry.impact}</span> : null}
                <span class="agent">{entry.agent}</span>
                <code class="muted" title={entry.commit}>
                  {shortOid(entry.commit)}
                </code>
              </div>
              {entry.reason ? <p class="reason">{entry.reason}</p> : null}
              {entry.summary || entry.subject ? <p class="muted">{entry.summary || entry.subject}</p> : null}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
