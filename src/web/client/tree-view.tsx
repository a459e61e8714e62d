// The knowledge tree pane: a virtualised ARIA tree (only the rows in view are in the DOM), whose folders load
// their level from GET /api/tree on first expand and their pages as they scroll into view. Local knowledge,
// then each knowledge source as a read-only top-level node. The logic is in tree.ts.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SourcesResponse } from '../api-types.js';
import { getJson, isAbort, toApiError, type ApiError } from './api.js';
import { list, str, wire } from './json.js';
import { topicHref } from './routes.js';
import {
  ancestors,
  emptyTree,
  levelKey,
  markStale,
  PAGE_SIZE,
  pageHolds,
  pagesToLoad,
  readLevelPage,
  rowCount,
  rowIndex,
  scrollToShow,
  topicRowKey,
  treeKey,
  visibleRows,
  windowRange,
  withPage,
  type Root,
  type Row,
  type TreeState,
} from './tree.js';
import { ErrorBox, useApp } from './ui.js';

/** Pixels per row: fixed, so that the position of any row is its index times this. */
const ROW_HEIGHT = 26;
/** Up to this many topics, every local folder opens as it loads; above it, only the open topic's folders. */
const OPEN_ALL_UP_TO = 500;

function treeUrl(root: Root, folder: string, page: { offset?: number; around?: string }): `/api/tree?${string}` {
  const params = new URLSearchParams();
  if (root !== '') params.set('source', root);
  if (folder !== '') params.set('folder', folder);
  if (page.around !== undefined) params.set('around', page.around);
  else if (page.offset) params.set('offset', String(page.offset));
  params.set('limit', String(PAGE_SIZE));
  return `/api/tree?${params.toString()}`;
}

function readSources(value: unknown): TreeState['sources'] {
  return list(wire<SourcesResponse>(value).sources)
    .map((s) => {
      const r = wire<SourcesResponse['sources'][number]>(s);
      return { alias: str(r.alias), topics: typeof r.topics === 'number' ? r.topics : 0 };
    })
    .filter((s) => s.alias !== '');
}

interface TreeData {
  state: TreeState;
  error: ApiError | null;
  expand(root: Root, path: string): void;
  collapse(root: Root, path: string): void;
  /** Loads the pages the rows need (pending rows, folders still loading). */
  need(rows: readonly Row[]): void;
}

/** The tree's data: levels loaded on demand, reloaded (expansion kept) on every live change. */
function useTreeData(current: { root: Root; topic: string } | null): TreeData {
  const { revision } = useApp();
  const [state, setState] = useState<TreeState>(emptyTree);
  const [error, setError] = useState<ApiError | null>(null);
  const latest = useRef(state);
  latest.current = state;
  // Pages being fetched → the revision they were asked for at; pages asked for again after a newer
  // live change while an older answer was on its way (that answer is stale: fetched once more).
  const inFlight = useRef(new Map<string, number>());
  const again = useRef(new Set<string>());
  const failed = useRef(new Set<string>());
  // Levels whose first page is on its way → the pages asked for meanwhile (asked for after it, if still needed).
  const firstLoads = useRef(new Map<string, Array<{ offset?: number; around?: string }>>());
  const openAll = useRef(false);
  const loadedRevision = useRef(-1);

  const update = useCallback((change: (previous: TreeState) => TreeState) => {
    latest.current = change(latest.current);
    setState(latest.current);
  }, []);

  const load = useCallback(
    (root: Root, folder: string, page: { offset?: number; around?: string }): Promise<void> => {
      const key = levelKey(root, folder);
      const id = `${key}\u0000${page.around ?? page.offset ?? 0}`;
      if (failed.current.has(id)) return Promise.resolve();
      const asked = inFlight.current.get(id);
      if (asked !== undefined) {
        if (asked < loadedRevision.current) again.current.add(id);
        return Promise.resolve();
      }
      // Nothing is asked for twice: a page here already (and fresh), or one asked for while the level's first is on its way.
      const level = latest.current.levels.get(key);
      if (level && pageHolds(level, folder, page)) return Promise.resolve();
      const waiting = firstLoads.current.get(key);
      if (!level && waiting) {
        waiting.push(page);
        return Promise.resolve();
      }
      if (!level) firstLoads.current.set(key, []);
      inFlight.current.set(id, loadedRevision.current);
      const landed = (): void => {
        inFlight.current.delete(id);
        // A burst of changes: the answer that landed predates the last one, so the final state is asked for.
        if (again.current.delete(id)) void load(root, folder, page);
      };
      const askWaiting = (): void => {
        const pages = firstLoads.current.get(key);
        if (level || !pages) return;
        firstLoads.current.delete(key);
        for (const next of pages) void load(root, folder, next);
      };
      return getJson(treeUrl(root, folder, page)).then(
        (body) => {
          landed();
          failed.current.delete(id);
          const answer = readLevelPage(body);
          update((previous) => {
            const levels = new Map(previous.levels);
            levels.set(key, withPage(previous.levels.get(key), answer));
            let expanded = previous.expanded;
            // A small repository opens every local folder as it loads (as it always did).
            if (root === '' && folder === '' && answer.offset === 0) openAll.current = answer.count <= OPEN_ALL_UP_TO;
            if (root === '' && openAll.current) {
              const folders = answer.children.filter((c) => c.type === 'folder' && !levels.has(levelKey('', c.path)));
              if (folders.length > 0) {
                expanded = new Set(expanded);
                for (const child of folders) (expanded as Set<string>).add(levelKey('', child.path));
              }
            }
            return { ...previous, levels, expanded };
          });
          askWaiting();
        },
        (reason: unknown) => {
          landed();
          askWaiting();
          if (isAbort(reason)) return;
          const problem = toApiError(reason);
          if (problem.status === 404 && (folder !== '' || root !== '')) {
            // The folder (or the source) is gone (a live change): forget it.
            update((previous) => {
              const levels = new Map(previous.levels);
              levels.delete(key);
              const expanded = new Set(previous.expanded);
              expanded.delete(key);
              return { ...previous, levels, expanded };
            });
            return;
          }
          failed.current.add(id);
          setError(problem);
        },
      );
    },
    [update],
  );

  const loadSources = useCallback(
    () =>
      getJson('/api/sources').then(
        (body) => update((previous) => ({ ...previous, sources: readSources(body) })),
        (reason: unknown) => {
          if (!isAbort(reason)) setError(toApiError(reason));
        },
      ),
    [update],
  );

  // First load, and on every live change: the sources and every loaded page again (expansion kept).
  useEffect(() => {
    if (loadedRevision.current === revision) return;
    const first = loadedRevision.current < 0;
    loadedRevision.current = revision;
    failed.current.clear();
    setError(null);
    void loadSources();
    if (first) {
      void load('', '', { offset: 0 });
      return;
    }
    // The rows stay; the pages in view are asked for again (by `need`, after this render), the others when seen.
    update(markStale);
    // The root's first page always: its count heads the tree.
    void load('', '', { offset: 0 });
  }, [revision, load, loadSources, update]);

  // The open topic's folders are expanded and loaded as far as it (the page holding it in each).
  const currentKey = current ? levelKey(current.root, current.topic) : null;
  useEffect(() => {
    if (!current) return;
    const { root, topic } = current;
    const folders = ['', ...ancestors(topic)];
    update((previous) => {
      const expanded = new Set(previous.expanded);
      for (const folder of folders) if (root !== '' || folder !== '') expanded.add(levelKey(root, folder));
      return { ...previous, expanded };
    });
    for (const folder of folders) void load(root, folder, { around: topic });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [currentKey, load, update]);

  const expand = useCallback(
    (root: Root, path: string) => {
      update((previous) => ({ ...previous, expanded: new Set(previous.expanded).add(levelKey(root, path)) }));
      if (!latest.current.levels.has(levelKey(root, path))) void load(root, path, { offset: 0 });
    },
    [load, update],
  );
  const collapse = useCallback(
    (root: Root, path: string) =>
      update((previous) => {
        const expanded = new Set(previous.expanded);
        expanded.delete(levelKey(root, path));
        return { ...previous, expanded };
      }),
    [update],
  );
  const need = useCallback(
    (rows: readonly Row[]) => {
      for (const page of pagesToLoad(latest.current, rows)) void load(page.root, page.folder, { offset: page.offset });
    },
    [load],
  );
  return { state, error, expand, collapse, need };
}

/** The key's root and path: `d`/`t` + root + NUL + path. */
function placeOf(key: string): { root: Root; path: string; rowType: 'folder' | 'topic' } | undefined {
  const rowType = key[0] === 'd' ? 'folder' : key[0] === 't' ? 'topic' : undefined;
  if (!rowType) return undefined;
  const [root, path] = key.slice(1).split('\u0000') as [string, string | undefined];
  return path === undefined ? undefined : { root, path, rowType };
}

export function TreePane({ topic, source, onCount }: { topic: string | null; source: string | null; onCount(count: number | null): void }) {
  const { navigate } = useApp();
  const current = useMemo(() => (topic === null ? null : { root: source ?? '', topic }), [topic, source]);
  const tree = useTreeData(current);
  const { state } = tree;
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  /** The row that has the tab stop (roving tabindex): its key, and its index when it was chosen. */
  const [focus, setFocus] = useState<{ key: string; index: number }>({ key: '', index: 0 });
  const wantsDomFocus = useRef(false);
  /** The open topic's row as last scrolled to; and whether the tree is hidden (a closed drawer: app.css), which scrolls nothing. */
  const scrolledTo = useRef<{ key: string; index: number } | null>(null);
  const [hidden, setHidden] = useState(false);

  const local = state.levels.get(levelKey('', ''));
  useEffect(() => onCount(local ? local.count : null), [local?.count]);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = (): void => {
      setViewport(element.clientHeight || 600);
      setHidden(element.clientHeight === 0);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [local !== undefined]);

  const count = rowCount(state);
  const { start, end } = windowRange(scrollTop, viewport, ROW_HEIGHT, count);
  const rows = visibleRows(state, start, end);
  const place = placeOf(focus.key);
  const located = place ? rowIndex(state, place.root, place.path, place.rowType) : undefined;
  const focusIndex = Math.min(located ?? focus.index, Math.max(count - 1, 0));
  // The focused row stays in the DOM (it holds the tab stop) even when scrolled away.
  const shown = rows.map((row, i) => ({ row, index: start + i }));
  if (count > 0 && (focusIndex < start || focusIndex >= end))
    shown.push(...visibleRows(state, focusIndex, focusIndex + 1).map((row) => ({ row, index: focusIndex })));

  useEffect(() => tree.need(shown.map((s) => s.row)));

  const scrollTo = (index: number): void => {
    const element = scroller.current;
    if (!element) return;
    const top = scrollToShow(index, ROW_HEIGHT, element.scrollTop, element.clientHeight || viewport);
    if (top !== null) {
      element.scrollTop = top;
      setScrollTop(top);
    }
  };

  // The open topic: its row gets the tab stop and is scrolled into view once its folders have loaded (and once the
  // tree is shown); while folders above it load and push it down, it is kept in view unless scrolled away from.
  const currentRow = current ? topicRowKey(current.root, current.topic) : null;
  const currentIndex = current ? rowIndex(state, current.root, current.topic, 'topic') : undefined;
  useLayoutEffect(() => {
    if (currentRow === null || currentIndex === undefined || hidden) return;
    const before = scrolledTo.current;
    if (before?.key === currentRow && before.index === currentIndex) return;
    scrolledTo.current = { key: currentRow, index: currentIndex };
    if (before?.key !== currentRow) setFocus({ key: currentRow, index: currentIndex });
    else {
      const element = scroller.current;
      const wasInView = element !== null && scrollToShow(before.index, ROW_HEIGHT, element.scrollTop, element.clientHeight) === null;
      if (!wasInView) return;
    }
    scrollTo(currentIndex);
  }, [currentRow, currentIndex, hidden]);

  // Before paint, so that a key pressed next finds the focus already moved.
  useLayoutEffect(() => {
    if (!wantsDomFocus.current) return;
    wantsDomFocus.current = false;
    scroller.current?.querySelector<HTMLElement>('[tabindex="0"][role="treeitem"]')?.focus({ preventScroll: true });
  });

  const toggle = (row: Row): void => {
    if (row.type !== 'folder' && row.type !== 'source') return;
    if (row.expanded) tree.collapse(row.root, row.path);
    else tree.expand(row.root, row.path);
  };

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const row = visibleRows(state, focusIndex, focusIndex + 1)[0];
    const parent = row?.parent ? placeOf(row.parent) : undefined;
    const parentIndex = parent ? rowIndex(state, parent.root, parent.path, 'folder') : undefined;
    const move = treeKey(event.key, focusIndex, row, count, parentIndex);
    if (move === null) return;
    event.preventDefault();
    if (move.type === 'focus') {
      const target = visibleRows(state, move.index, move.index + 1)[0];
      setFocus({ key: target?.key ?? '', index: move.index });
      wantsDomFocus.current = true;
      scrollTo(move.index);
    } else if (move.type === 'open') {
      if (move.row.type === 'topic') navigate(topicHref(move.row.path, 'rendered', move.row.root || null));
    } else {
      setFocus({ key: move.row.key, index: focusIndex });
      wantsDomFocus.current = true;
      toggle(move.row);
    }
  };

  if (local === undefined && tree.error === null) return <p class="muted">Loading…</p>;
  return (
    <>
      <ErrorBox error={tree.error} />
      {local ? <p class="tree-count muted">{local.count === 0 ? 'No topics.' : `${local.count} topics`}</p> : null}
      <div
        class="tree-scroll"
        ref={scroller}
        role="tree"
        aria-label="Topics"
        data-testid="tree"
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div class="tree-rows" role="none" style={{ height: `${count * ROW_HEIGHT}px` }}>
          {shown.map(({ row, index }) => (
            <TreeRow
              key={row.key}
              row={row}
              top={index * ROW_HEIGHT}
              focused={index === focusIndex}
              current={current !== null && row.type === 'topic' && row.root === current.root && row.path === current.topic}
              onFocus={() => setFocus({ key: row.key, index })}
              toggle={toggle}
              navigate={navigate}
            />
          ))}
        </div>
      </div>
    </>
  );
}

interface TreeRowProps {
  row: Row;
  top: number;
  focused: boolean;
  current: boolean;
  onFocus(): void;
  toggle(row: Row): void;
  navigate(href: string): void;
}

function TreeRow({ row, top, focused, current, onFocus, toggle, navigate }: TreeRowProps) {
  const common = {
    role: 'treeitem' as const,
    'aria-level': row.depth,
    'aria-setsize': row.setSize,
    'aria-posinset': row.posInSet,
    tabIndex: focused ? 0 : -1,
    style: { top: `${top}px`, paddingLeft: `${(row.depth - 1) * 0.9 + 0.25}rem` },
    onFocus,
  };
  if (row.type === 'pending') {
    return (
      <div {...common} class="tree-row tree-pending muted" aria-busy="true">
        Loading…
      </div>
    );
  }
  if (row.type === 'topic') {
    const href = topicHref(row.path, 'rendered', row.root || null);
    return (
      <a
        {...common}
        href={href}
        class="tree-row tree-topic"
        data-testid="tree-topic"
        data-path={row.path}
        data-source={row.root || undefined}
        title={row.path}
        aria-current={current ? 'page' : undefined}
        aria-selected={current}
        onClick={(event) => {
          if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          navigate(href);
        }}
      >
        {row.title}
      </a>
    );
  }
  const source = row.type === 'source';
  return (
    <div
      {...common}
      class={source ? 'tree-row tree-folder tree-source' : 'tree-row tree-folder'}
      data-testid={source ? 'tree-source' : 'tree-folder'}
      data-path={row.path}
      data-source={row.root || undefined}
      aria-expanded={row.expanded}
      aria-busy={row.loading}
      onClick={() => toggle(row)}
    >
      <span class="chevron" aria-hidden="true">
        {row.expanded ? '▾' : '▸'}
      </span>
      <span class="tree-name">{row.name}</span>
      {source ? <span class="badge subtle">read-only</span> : null}
      <span class="count">
        {row.count}
        <span class="visually-hidden"> topics</span>
      </span>
    </div>
  );
}
