// The shell of the dashboard: routing (History API), the nav, the status bar, live updates and shortcuts.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { AskPage } from './ask-page.js';
import { BranchesPage } from './branches-page.js';
import { DreamPage } from './dream-page.js';
import { NewTopicPage } from './new-topic.js';
import { ChangesPage } from './changes.js';
import { KeySequence } from './keys.js';
import { KnowledgePage } from './knowledge.js';
import { ChangeBatch, LiveCursor, parseChangeEvent, type ChangeEvent } from './live.js';
import { ReviewsPage } from './reviews.js';
import { pageHref, parseRoute, routeHref, type Page, type Route } from './routes.js';
import { SearchPage } from './search.js';
import { SetupPage } from './setup-page.js';
import { App as AppContext, ErrorBox, Link, shortOid, useApi, type AppState } from './ui.js';

const NOTICE_MS = 6000;

/** 'signed-out': the server is back but refuses this tab's session (`brv webui --new-token`): only a new login helps. */
type LiveState = 'connecting' | 'live' | 'reconnecting' | 'signed-out';

function currentRoute(): Route {
  return parseRoute(location.pathname, location.search);
}

export function App() {
  const [route, setRoute] = useState<Route>(currentRoute);
  const [revision, setRevision] = useState(0);

  const navigate = useCallback((href: string, options: { replace?: boolean } = {}) => {
    const target = new URL(href, location.href);
    const same = target.pathname === location.pathname && target.search === location.search;
    if (options.replace || same) history.replaceState(null, '', href);
    else history.pushState(null, '', href);
    setRoute(currentRoute());
    if (!options.replace && !same) window.scrollTo(0, 0);
  }, []);
  const refresh = useCallback(() => setRevision((n) => n + 1), []);

  useEffect(() => {
    if (location.pathname === '/') history.replaceState(null, '', `/knowledge${location.search}`);
    const onPop = (): void => setRoute(currentRoute());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);

  const { live, notice } = useLive(refresh);
  useShortcuts(navigate);

  const state = useMemo<AppState>(() => ({ navigate, revision, refresh }), [navigate, revision, refresh]);
  return (
    <AppContext.Provider value={state}>
      <Shell route={route} live={live} notice={notice} />
    </AppContext.Provider>
  );
}

function Shell({ route, live, notice }: { route: Route; live: LiveState; notice: string | null }) {
  const status = useApi('/api/status');
  const pending = status.data?.pendingReviews ?? 0;
  const page = route.page === 'not-found' ? null : route.page;
  useEffect(() => {
    document.title = `${titleOf(route)} · brv`;
  }, [route]);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/knowledge" class="brand">
          brv
        </Link>
        <nav class="nav" aria-label="Pages">
          <NavLink page="knowledge" current={page} label="Knowledge" />
          <NavLink page="search" current={page} label="Search" />
          <NavLink page="ask" current={page} label="Ask" />
          <NavLink page="changes" current={page} label="Changes" />
          <NavLink page="reviews" current={page} label="Reviews">
            {pending > 0 ? (
              <span class="badge count">
                {pending}
                <span class="visually-hidden"> pending</span>
              </span>
            ) : null}
          </NavLink>
          <NavLink page="dream" current={page} label="Dream" />
          <NavLink page="branches" current={page} label="Branches" />
          <NavLink page="setup" current={page} label="Setup" />
          <NavLink page="new" current={page} label="+ New" />
        </nav>
      </header>
      <main id="main" class="main" tabIndex={-1}>
        <PageView route={route} />
      </main>
      <footer class="status-bar" data-testid="status-bar">
        <ErrorBox error={status.error} />
        {status.data ? (
          <>
            <span class="repo" title={status.data.repository}>
              {status.data.repository}
            </span>
            <span>
              branch <strong>{status.data.branch}</strong>
              {status.data.head ? <code title={status.data.head}> {shortOid(status.data.head)}</code> : null}
            </span>
            <span>{status.data.topics} topics</span>
            <span>{status.data.pendingReviews} pending reviews</span>
            {status.data.incoming ? (
              <span class="incoming" data-testid="status-incoming" title={status.data.incoming}>
                {status.data.upstream ? `${status.data.upstream.remote} ↓${status.data.upstream.behind}: ` : ''}
                {status.data.incoming}
              </span>
            ) : null}
          </>
        ) : null}
        <span class={`live live-${live}`} data-testid="live-state">
          {LIVE_LABELS[live]}
        </span>
      </footer>
      <div class="live-region" role="status" aria-live="polite">
        {notice !== null ? (
          <div class="live-notice" data-testid="live-notice">
            {notice}
          </div>
        ) : null}
      </div>
    </div>
  );
}

const LIVE_LABELS: Record<LiveState, string> = {
  live: '● live',
  connecting: '○ connecting',
  reconnecting: '○ reconnecting',
  'signed-out': '○ signed out: open the URL brv webui printed',
};

/** The browser tests find the nav links by these ids (the contract's list). */
const NAV_TEST_IDS: Record<Page, string> = {
  knowledge: 'nav-knowledge',
  search: 'nav-search',
  changes: 'nav-changes',
  reviews: 'nav-reviews',
  branches: 'nav-branches',
  setup: 'nav-setup',
  new: 'nav-new',
  ask: 'nav-ask',
  dream: 'nav-dream',
};

function NavLink({ page, current, label, children }: { page: Page; current: Page | null; label: string; children?: ComponentChildren }) {
  return (
    <Link href={pageHref(page)} data-testid={NAV_TEST_IDS[page]} class="nav-link" aria-current={page === current ? 'page' : undefined}>
      {label}
      {children}
    </Link>
  );
}

function PageView({ route }: { route: Route }) {
  switch (route.page) {
    case 'knowledge':
      return <KnowledgePage topic={route.topic} tab={route.tab} source={route.source ?? null} />;
    case 'search':
      return <SearchPage q={route.q} filters={route} />;
    case 'changes':
      return <ChangesPage />;
    case 'reviews':
      return <ReviewsPage />;
    case 'branches':
      return <BranchesPage />;
    case 'setup':
      return <SetupPage />;
    case 'new':
      return <NewTopicPage folder={route.folder} />;
    case 'ask':
      return <AskPage q={route.q} />;
    case 'dream':
      return <DreamPage />;
    case 'not-found':
      return (
        <div class="placeholder">
          <h1>Not found</h1>
          <p>
            No page at <code>{route.path}</code>.{' '}
            <Link href={routeHref({ page: 'knowledge', topic: null, tab: 'rendered' })}>Go to Knowledge</Link>
          </p>
        </div>
      );
  }
}

function titleOf(route: Route): string {
  switch (route.page) {
    case 'knowledge':
      return route.topic === null ? 'Knowledge' : route.source ? `${route.topic} (${route.source})` : route.topic;
    case 'search':
      return route.q ? `Search: ${route.q}` : 'Search';
    case 'changes':
      return 'Changes';
    case 'reviews':
      return 'Reviews';
    case 'branches':
      return 'Branches & sync';
    case 'setup':
      return 'Setup';
    case 'new':
      return 'New topic';
    case 'ask':
      return route.q ? `Ask: ${route.q}` : 'Ask';
    case 'dream':
      return 'Dream';
    case 'not-found':
      return 'Not found';
  }
}

/** EventSource('/api/events'): every change refreshes what is on screen and shows a short notice. */
function useLive(refresh: () => void): { live: LiveState; notice: string | null } {
  const [live, setLive] = useState<LiveState>('connecting');
  const [notice, setNotice] = useState<string | null>(null);
  const cursor = useRef(new LiveCursor());
  useEffect(() => {
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let refreshTimer: ReturnType<typeof setTimeout> | undefined;
    let noticeTimer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const batch = new ChangeBatch();
    const show = (text: string): void => {
      setNotice(text);
      clearTimeout(noticeTimer);
      noticeTimer = setTimeout(() => setNotice(null), NOTICE_MS);
    };
    // A burst of events is one refresh and one notice (at most one a second while it lasts), never one per event.
    const changed = (change: ChangeEvent | null): void => {
      const delay = batch.add(change, Date.now());
      if (delay === null) return;
      refreshTimer = setTimeout(() => {
        const text = batch.flush(Date.now());
        refresh();
        if (text !== null) show(text);
      }, delay);
    };
    const connect = (): void => {
      const current = new EventSource(cursor.current.url());
      source = current;
      current.onopen = () => {
        cursor.current.opened();
        setLive('live');
      };
      current.addEventListener('change', (event) => {
        const message = event as MessageEvent<string>;
        const change = parseChangeEvent(message.data, message.lastEventId);
        if (change === null || !cursor.current.accept(change.id)) return;
        changed(change);
      });
      current.addEventListener('reset', () => {
        cursor.current.reset();
        changed(null);
      });
      current.onerror = () => {
        if (stopped) return;
        setLive('reconnecting');
        // CONNECTING: the browser retries by itself (with Last-Event-ID). CLOSED: it gave up, open a new one.
        if (current.readyState === EventSource.CLOSED) {
          current.close();
          retry = setTimeout(connect, cursor.current.failed());
          // Refused rather than unreachable: say so (it keeps trying: a login in another tab sets the cookie for this one).
          fetch('/api/status', { credentials: 'same-origin' }).then(
            (answer) => {
              if (answer.status === 401 && !stopped) setLive('signed-out');
            },
            () => {},
          );
        }
      };
    };
    connect();
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(retry);
      clearTimeout(refreshTimer);
      clearTimeout(noticeTimer);
    };
  }, [refresh]);
  return { live, notice };
}

/** `/` focuses search; `g k` / `g s` / `g c` / `g r` / `g b` / `g e` go to a page (not while typing in a field). */
function useShortcuts(navigate: AppState['navigate']): void {
  useEffect(() => {
    const keys = new KeySequence();
    const onKey = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      const action = keys.press(event.key, Date.now());
      if (action === null) return;
      event.preventDefault();
      if (action.type === 'go') navigate(pageHref(action.page));
      else {
        const input = document.querySelector<HTMLInputElement>('[data-testid="search-input"]');
        if (input) input.focus();
        else navigate(pageHref('search'));
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [navigate]);
}
