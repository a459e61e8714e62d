// The knowledge tree as a virtualised list: folders are loaded one level (and one page) at a time from
// GET /api/tree; what is shown is the flattened list of visible rows (the children of expanded folders),
// of which only the rows in view are rendered. Local knowledge first, then each knowledge source as a
// top-level node. Pure: no DOM, tested in test/web/client-tree.test.ts.
import type { TreeResponse } from '../api-types.js';
import { list, str, wire } from './json.js';

/** Children asked for per request. */
export const PAGE_SIZE = 200;

export interface FolderChild {
  type: 'folder';
  path: string;
  name: string;
  count: number;
}

export interface TopicChild {
  type: 'topic';
  path: string;
  name: string;
  title: string;
}

export type Child = FolderChild | TopicChild;

/** One loaded folder: its children (sub-folders first, then topics), loaded page by page. */
export interface Level {
  count: number;
  total: number;
  folderTotal: number;
  /** Sparse: undefined where the page is not loaded yet. */
  children: ReadonlyArray<Child | undefined>;
  /** Offsets of the pages loaded. */
  pages: ReadonlySet<number>;
}

/** Where a folder's knowledge comes from: '' this repository's, else a knowledge source's alias. */
export type Root = string;

export interface TreeState {
  sources: ReadonlyArray<{ alias: string; topics: number }>;
  levels: ReadonlyMap<string, Level>;
  /** Level keys of the expanded folders (a source's own node: its root folder ''). */
  expanded: ReadonlySet<string>;
}

export const emptyTree: TreeState = { sources: [], levels: new Map(), expanded: new Set() };

export const levelKey = (root: Root, folder: string): string => `${root}\u0000${folder}`;

interface RowPlace {
  /** Unique among the rows: the DOM key, the focus. */
  key: string;
  root: Root;
  /** aria-level: 1 for the top rows. */
  depth: number;
  setSize: number;
  posInSet: number;
  /** The key of the row of the folder holding this one (null at the top). */
  parent: string | null;
  /** The folder whose child this row is, and its index among that folder's children (-1: not a child). */
  folder: string;
  index: number;
}

export type Row =
  | (RowPlace & { type: 'folder'; path: string; name: string; count: number; expanded: boolean; loading: boolean })
  | (RowPlace & { type: 'source'; path: ''; name: string; count: number; expanded: boolean; loading: boolean })
  | (RowPlace & { type: 'topic'; path: string; name: string; title: string })
  /** A child whose page has not arrived yet (index -1: the whole folder is loading). */
  | (RowPlace & { type: 'pending' });

const folderRowKey = (root: Root, path: string): string => `d${levelKey(root, path)}`;
export const topicRowKey = (root: Root, path: string): string => `t${levelKey(root, path)}`;

/** A `GET /api/tree` answer, read defensively. */
export interface LevelPage {
  count: number;
  total: number;
  folderTotal: number;
  offset: number;
  children: Child[];
}

export function readLevelPage(value: unknown): LevelPage {
  const body = wire<TreeResponse>(value);
  const num = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);
  const folders: Child[] = list(body.folders).map((f) => {
    const r = wire<TreeResponse['folders'][number]>(f);
    return { type: 'folder', path: str(r.path), name: str(r.name, r.path), count: num(r.count) };
  });
  const topics: Child[] = list(body.topics).map((x) => {
    const r = wire<TreeResponse['topics'][number]>(x);
    const name = str(r.name, r.path);
    return { type: 'topic', path: str(r.path), name, title: str(typeof r.title === 'string' ? r.title.trim() : '', name) };
  });
  return {
    count: num(body.count),
    total: num(body.total),
    folderTotal: num(body.folderTotal),
    offset: num(body.offset),
    children: [...folders, ...topics],
  };
}

/** A level with one more page. A total that changed (a live reload) drops the other pages: they are loaded again as needed. */
export function withPage(level: Level | undefined, page: LevelPage): Level {
  const same = level !== undefined && level.total === page.total && level.folderTotal === page.folderTotal;
  const children: Array<Child | undefined> = same ? level.children.slice() : new Array<Child | undefined>(page.total);
  const pages = new Set(same ? level.pages : []);
  page.children.forEach((child, i) => {
    if (page.offset + i < page.total) children[page.offset + i] = child;
  });
  pages.add(page.offset);
  return { count: page.count, total: page.total, folderTotal: page.folderTotal, children, pages };
}

/** Rows an expanded folder adds below its own row (a folder not loaded yet: one "loading" row). */
function measure(state: TreeState): (root: Root, folder: string) => number {
  const sizes = new Map<string, number>();
  const size = (root: Root, folder: string): number => {
    const key = levelKey(root, folder);
    const known = sizes.get(key);
    if (known !== undefined) return known;
    const level = state.levels.get(key);
    let n = level ? level.total : 1;
    if (level) {
      for (let i = 0; i < level.folderTotal; i++) {
        const child = level.children[i];
        if (child?.type === 'folder' && state.expanded.has(levelKey(root, child.path))) n += size(root, child.path);
      }
    }
    sizes.set(key, n);
    return n;
  };
  return size;
}

/** How many rows the tree shows. */
export function rowCount(state: TreeState): number {
  const size = measure(state);
  let n = size('', '');
  for (const source of state.sources) n += 1 + (state.expanded.has(levelKey(source.alias, '')) ? size(source.alias, '') : 0);
  return n;
}

/** The rows from `start` to `end` (exclusive): subtrees before `start` are skipped by their size, never listed. */
export function visibleRows(state: TreeState, start: number, end: number): Row[] {
  const size = measure(state);
  const rows: Row[] = [];
  let index = 0;

  const childRow = (root: Root, folder: string, level: Level, i: number, depth: number, parent: string | null, setSize: number): Row => {
    const child = level.children[i];
    const place = { root, depth, setSize, posInSet: i + 1, parent, folder, index: i };
    if (!child) return { ...place, key: `p${levelKey(root, folder)}\u0000${i}`, type: 'pending' };
    if (child.type === 'topic') return { ...place, key: topicRowKey(root, child.path), ...child };
    const key = levelKey(root, child.path);
    const expanded = state.expanded.has(key);
    return { ...place, key: `d${key}`, ...child, expanded, loading: expanded && !state.levels.has(key) };
  };

  /** The rows of a folder's children; `extra` siblings follow them at the top (the sources). */
  const children = (root: Root, folder: string, depth: number, parent: string | null, extra = 0): void => {
    const level = state.levels.get(levelKey(root, folder));
    if (!level) {
      if (index >= start && index < end)
        rows.push({ key: `l${levelKey(root, folder)}`, root, depth, setSize: 1, posInSet: 1, parent, type: 'pending', folder, index: -1 });
      index++;
      return;
    }
    const setSize = level.total + extra;
    for (let i = 0; i < level.total && index < end;) {
      if (i >= level.folderTotal) {
        // Topics only from here: one row each, so the ones before `start` are skipped at once.
        const skip = Math.min(level.total - i, Math.max(0, start - index));
        i += skip;
        index += skip;
        for (; i < level.total && index < end; i++, index++) rows.push(childRow(root, folder, level, i, depth, parent, setSize));
        break;
      }
      const child = level.children[i];
      const open = child?.type === 'folder' && state.expanded.has(levelKey(root, child.path));
      const below = open ? size(root, child.path) : 0;
      if (index + 1 + below <= start) {
        index += 1 + below;
        i++;
        continue;
      }
      if (index >= start) rows.push(childRow(root, folder, level, i, depth, parent, setSize));
      index++;
      if (open) children(root, child.path, depth + 1, folderRowKey(root, child.path));
      i++;
    }
    index = Math.max(index, 0);
  };

  const sources = state.sources;
  const local = state.levels.get(levelKey('', ''));
  const localTotal = local?.total ?? 0;
  children('', '', 1, null, sources.length);
  // A partial walk stops early: `index` is then only meaningful up to `end`.
  if (index < end) index = size('', '');
  sources.forEach((source, s) => {
    if (index >= end) return;
    const key = levelKey(source.alias, '');
    const expanded = state.expanded.has(key);
    if (index >= start)
      rows.push({
        key: `d${key}`,
        root: source.alias,
        depth: 1,
        setSize: localTotal + sources.length,
        posInSet: localTotal + s + 1,
        parent: null,
        folder: '',
        index: -1,
        type: 'source',
        path: '',
        name: source.alias,
        count: source.topics,
        expanded,
        loading: expanded && !state.levels.has(key),
      });
    index++;
    if (!expanded) return;
    const below = size(source.alias, '');
    if (index + below <= start) index += below;
    else {
      const before = index;
      children(source.alias, '', 2, `d${key}`);
      index = before + below;
    }
  });
  return rows;
}

/**
 * The row index of a folder or topic (`root`, `path`), when every folder on its way is expanded and
 * loaded as far as it; undefined otherwise. A folder's row: `rowType` 'folder' (a source's own: path '').
 */
export function rowIndex(state: TreeState, root: Root, path: string, rowType: 'folder' | 'topic'): number | undefined {
  const size = measure(state);
  let index = 0;
  if (root !== '') {
    index = size('', '');
    const s = state.sources.findIndex((source) => source.alias === root);
    if (s < 0) return undefined;
    for (const source of state.sources.slice(0, s))
      index += 1 + (state.expanded.has(levelKey(source.alias, '')) ? size(source.alias, '') : 0);
    if (path === '') return rowType === 'folder' ? index : undefined;
    if (!state.expanded.has(levelKey(root, ''))) return undefined;
    index++; // below the source's own row
  }
  const segments = path.split('/');
  let folder = '';
  for (let depth = 0; depth < segments.length; depth++) {
    const last = depth === segments.length - 1;
    const level = state.levels.get(levelKey(root, folder));
    if (!level) return undefined;
    const childPath = folder === '' ? segments[depth]! : `${folder}/${segments[depth]!}`;
    const wanted = last ? rowType : 'folder';
    const from = wanted === 'folder' ? 0 : level.folderTotal;
    const to = wanted === 'folder' ? level.folderTotal : level.total;
    let i = -1;
    for (let j = from; j < to; j++) {
      if (level.children[j]?.path === childPath) {
        i = j;
        break;
      }
    }
    if (i < 0) return undefined;
    index += i;
    for (let j = 0; j < Math.min(i, level.folderTotal); j++) {
      const child = level.children[j];
      if (child?.type === 'folder' && state.expanded.has(levelKey(root, child.path))) index += size(root, child.path);
    }
    if (last) return index;
    if (!state.expanded.has(levelKey(root, childPath))) return undefined;
    index++;
    folder = childPath;
  }
  return undefined;
}

/** The first and last (exclusive) row to render for a scroll position, with `overscan` rows either side. */
export function windowRange(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 10,
): { start: number; end: number } {
  const first = Math.floor(Math.max(scrollTop, 0) / rowHeight);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + Math.ceil(Math.max(viewport, 0) / rowHeight) + 1 + overscan);
  return { start: Math.min(start, end), end };
}

/** The scroll position that shows row `index` (null: it is already in view). */
export function scrollToShow(index: number, rowHeight: number, scrollTop: number, viewport: number): number | null {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewport) return top + rowHeight - viewport;
  return null;
}

/**
 * The pages the rows need, `{root, folder, offset}` once each: a folder still loading its first page,
 * a child whose page has not arrived, or whose page is stale (not reloaded since the last change).
 */
export function pagesToLoad(state: TreeState, rows: readonly Row[]): Array<{ root: Root; folder: string; offset: number }> {
  const seen = new Set<string>();
  const pages = [];
  for (const row of rows) {
    if (row.index < 0 && row.type !== 'pending') continue;
    const offset = row.index < 0 ? 0 : Math.floor(row.index / PAGE_SIZE) * PAGE_SIZE;
    const level = state.levels.get(levelKey(row.root, row.folder));
    // A folder's "loading" row drawn before its first page arrived (the rows lag the state by a render): loaded already.
    if (row.index < 0 ? level !== undefined : level?.pages.has(offset)) continue;
    const id = `${levelKey(row.root, row.folder)}\u0000${offset}`;
    if (seen.has(id)) continue;
    seen.add(id);
    pages.push({ root: row.root, folder: row.folder, offset });
  }
  return pages;
}

/**
 * Whether a loaded level answers a request for one of its pages already: the page at `offset` is loaded (and not
 * stale), or, for `around` (a path below `folder`), the page holding the child on its way is.
 */
export function pageHolds(level: Level, folder: string, page: { offset?: number; around?: string }): boolean {
  if (page.around === undefined) return level.pages.has(page.offset ?? 0);
  const rest = page.around.slice(folder === '' ? 0 : folder.length + 1).split('/');
  const childPath = folder === '' ? rest[0]! : `${folder}/${rest[0]!}`;
  const [from, to] = rest.length > 1 ? [0, level.folderTotal] : [level.folderTotal, level.total];
  for (let i = from; i < to; i++) {
    const child = level.children[i];
    if (child?.path === childPath) return level.pages.has(Math.floor(i / PAGE_SIZE) * PAGE_SIZE);
  }
  return false;
}

/**
 * After a change: every loaded page is stale. Its rows stay on screen (nothing jumps) and the pages
 * of the rows in view are asked for again (pagesToLoad); the others only when they scroll into view.
 */
export function markStale(state: TreeState): TreeState {
  const levels = new Map<string, Level>();
  for (const [key, level] of state.levels) levels.set(key, { ...level, pages: new Set() });
  return { ...state, levels };
}

export type TreeMove =
  { type: 'focus'; index: number } | { type: 'expand'; row: Row } | { type: 'collapse'; row: Row } | { type: 'open'; row: Row } | null;

/**
 * What a key does on the focused row (WAI-ARIA tree pattern): ↑/↓ the previous/next row, Home/End
 * the first/last, → opens a folder (or enters an open one), ← closes an open folder (or goes to its
 * parent: `parentIndex`), Enter opens a topic or toggles a folder.
 */
export function treeKey(key: string, index: number, row: Row | undefined, count: number, parentIndex: number | undefined): TreeMove {
  if (count === 0) return null;
  const folder = row !== undefined && (row.type === 'folder' || row.type === 'source');
  switch (key) {
    case 'ArrowDown':
      return { type: 'focus', index: Math.min(index + 1, count - 1) };
    case 'ArrowUp':
      return { type: 'focus', index: Math.max(index - 1, 0) };
    case 'Home':
      return { type: 'focus', index: 0 };
    case 'End':
      return { type: 'focus', index: count - 1 };
    case 'ArrowRight':
      if (!row || !folder) return null;
      if (!row.expanded) return { type: 'expand', row };
      return index + 1 < count ? { type: 'focus', index: index + 1 } : null;
    case 'ArrowLeft':
      if (row && folder && row.expanded) return { type: 'collapse', row };
      return parentIndex === undefined ? null : { type: 'focus', index: parentIndex };
    case 'Enter':
      if (!row) return null;
      if (row.type === 'topic') return { type: 'open', row };
      if (folder) return row.expanded ? { type: 'collapse', row } : { type: 'expand', row };
      return null;
    default:
      return null;
  }
}

/** The folders that contain a topic, outermost first: `a/b/c` → `a`, `a/b`. */
export function ancestors(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment !== '');
  return segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'));
}
