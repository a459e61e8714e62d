// The knowledge tree one folder at a time (GET /api/tree), and the knowledge sources beside it (GET /api/sources).
import type { Brv } from '../service/brv.js';
import { normalizeTopicPath } from '../topic/path.js';
import type { TreeResponse } from './api-types.js';
import { HttpError, limitParam, queryString, type TypedRoutes } from './request.js';

/** One folder of a catalog: its direct children (sorted by name) and how many topics it holds at any depth. */
interface FolderNode {
  count: number;
  folders: string[];
  topics: Array<{ name: string; title: string }>;
}

/** Every folder of one commit's catalog, by path ('' is the root): each request reads only its folder's children. */
interface FolderIndex {
  commit: string | undefined;
  folders: ReadonlyMap<string, FolderNode>;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The folder index of a catalog (topic paths, as `retrieval.catalog` lists them). A path listed twice counts once. */
function buildFolderIndex(commit: string | undefined, topics: ReadonlyArray<{ path: string; title: string }>): FolderIndex {
  const root: FolderNode = { count: 0, folders: [], topics: [] };
  const folders = new Map<string, FolderNode>([['', root]]);
  const seen = new Set<string>();
  for (const topic of topics) {
    if (seen.has(topic.path)) continue;
    seen.add(topic.path);
    const segments = topic.path.split('/');
    let node = root;
    let path = '';
    root.count++;
    for (let i = 0; i < segments.length - 1; i++) {
      const name = segments[i]!;
      path = path === '' ? name : `${path}/${name}`;
      let child = folders.get(path);
      if (!child) {
        child = { count: 0, folders: [], topics: [] };
        folders.set(path, child);
        node.folders.push(name);
      }
      child.count++;
      node = child;
    }
    node.topics.push({ name: segments[segments.length - 1]!, title: topic.title });
  }
  for (const node of folders.values()) {
    node.folders.sort(byCodeUnits);
    node.topics.sort((a, b) => byCodeUnits(a.name, b.name));
  }
  return { commit, folders };
}

/** The position of `name` in a sorted list (or where it would be). */
function lowerBound<T>(list: readonly T[], name: string, key: (item: T) => string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (key(list[mid]!) < name) low = mid + 1;
    else high = mid;
  }
  return low;
}

type TreeLevel = Omit<TreeResponse, 'source'>;

/**
 * One page of a folder's children. `around` (a path below the folder) picks the page holding the
 * child on its way instead of `offset`; undefined when the folder does not exist.
 */
function treeLevel(index: FolderIndex, folder: string, page: { offset: number; limit: number; around?: string }): TreeLevel | undefined {
  const node = index.folders.get(folder);
  if (!node) return undefined;
  const total = node.folders.length + node.topics.length;
  let { offset } = page;
  if (page.around !== undefined) {
    const rest = page.around.slice(folder === '' ? 0 : folder.length + 1).split('/');
    const position =
      rest.length > 1
        ? lowerBound(node.folders, rest[0]!, (name) => name)
        : node.folders.length + lowerBound(node.topics, rest[0]!, (topic) => topic.name);
    offset = Math.floor(Math.min(position, Math.max(total - 1, 0)) / page.limit) * page.limit;
  }
  const end = Math.min(offset + page.limit, total);
  const prefix = folder === '' ? '' : `${folder}/`;
  const folderEnd = Math.min(end, node.folders.length);
  const folders = [];
  for (let i = offset; i < folderEnd; i++) {
    const name = node.folders[i]!;
    folders.push({ path: prefix + name, name, count: index.folders.get(prefix + name)!.count });
  }
  const topics = node.topics
    .slice(Math.max(offset - node.folders.length, 0), Math.max(end - node.folders.length, 0))
    .map(({ name, title }) => ({ path: prefix + name, name, title }));
  return {
    commit: index.commit ?? null,
    folder,
    count: node.count,
    total,
    folderTotal: node.folders.length,
    offset,
    folders,
    topics,
  };
}

/** Folder indexes kept: the last two commits of the branch and of a source or two. */
const KEPT_INDEXES = 4;

/**
 * Folder indexes by (source, commit): built once per commit from `retrieval.catalog`, shared by
 * concurrent requests (the promise is kept), so a tree request costs one ref read and its page.
 */
export class FolderIndexes {
  private readonly built = new Map<string, Promise<FolderIndex>>();

  async get(brv: Brv, source: string | undefined): Promise<FolderIndex> {
    const { commit } = await brv.retrieval.catalogTip({ source });
    const key = `${source ?? ''}\0${brv.branch}\0${commit ?? ''}`;
    let index = this.built.get(key);
    if (index) {
      // Most recently used last.
      this.built.delete(key);
      this.built.set(key, index);
      return index;
    }
    // Built from the commit it is keyed by: the branch read again later may be elsewhere already (a burst of
    // moves), and an index of another commit kept under this key would be served for it from then on. A
    // source is read only at its tip, so an index of another tip is answered once and not kept.
    const request = source === undefined && commit !== undefined ? { at: commit } : { source };
    index = brv.retrieval.catalog(request).then((catalog) => buildFolderIndex(catalog.commit, catalog.topics));
    this.built.set(key, index);
    const built = index;
    built.then(
      (folderIndex) => {
        if (folderIndex.commit !== commit && this.built.get(key) === built) this.built.delete(key);
      },
      () => {
        if (this.built.get(key) === built) this.built.delete(key);
      },
    );
    while (this.built.size > KEPT_INDEXES) this.built.delete(this.built.keys().next().value!);
    return index;
  }
}

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `source=<alias>`: a knowledge source instead of local knowledge (an alias is checked like `brv source add` does). */
export function sourceParam(url: URL): string | undefined {
  const source = queryString(url, 'source');
  if (source === undefined) return undefined;
  if (!ALIAS.test(source) || source.includes('..'))
    throw new HttpError(
      400,
      'invalid-request',
      'source must be a knowledge source alias (letters, digits, ".", "_", "-"): see GET /api/sources.',
    );
  return source;
}

/** A folder path (a topic path's rules: no "..", no absolute path, bounded); '' or none is the root. */
function folderParam(url: URL, name: string): string {
  const raw = queryString(url, name);
  if (raw === undefined || raw === '') return '';
  const normalized = normalizeTopicPath(raw);
  if (!normalized.ok || normalized.path !== raw) {
    throw new HttpError(
      400,
      normalized.ok ? 'invalid-request' : normalized.error.kind,
      normalized.ok ? `${name} must be a folder path as the tree lists it (no ".html", no spaces around it).` : normalized.error.message,
    );
  }
  return raw;
}

function offsetParam(url: URL): number {
  const value = queryString(url, 'offset');
  if (value === undefined) return 0;
  if (!/^\d{1,7}$/.test(value)) throw new HttpError(400, 'invalid-request', 'offset must be a whole number from 0.');
  return Number(value);
}

/** Children per page by default, and at most. */
const PAGE = 500;
const MAX_PAGE = 2000;

export function treeRoutes(indexes = new FolderIndexes()) {
  return {
    '/api/tree': {
      GET: async ({ brv, url }) => {
        const source = sourceParam(url);
        const folder = folderParam(url, 'folder');
        const around = queryString(url, 'around') === undefined ? undefined : folderParam(url, 'around');
        if (around !== undefined && folder !== '' && !around.startsWith(`${folder}/`))
          throw new HttpError(400, 'invalid-request', 'around must be a path below folder.');
        const page = { offset: offsetParam(url), limit: limitParam(url, PAGE, MAX_PAGE), around };
        const level = treeLevel(await indexes.get(await brv(), source), folder, page);
        if (!level)
          throw new HttpError(
            404,
            'not-found',
            `No folder ${folder}${source === undefined ? '' : ` in knowledge source ${source}`}: list the root with GET /api/tree.`,
          );
        return source === undefined ? level : { source, ...level };
      },
    },
    '/api/sources': {
      GET: async ({ brv }) => {
        const b = await brv();
        const sources = await b.sharing.sources();
        return {
          sources: await Promise.all(
            sources.map(async (s) => ({
              alias: s.alias,
              location: s.url,
              branch: s.branch,
              commit: s.commit ?? null,
              topics:
                s.commit === undefined
                  ? 0
                  : await indexes.get(b, s.alias).then(
                      (index) => index.folders.get('')?.count ?? 0,
                      () => 0,
                    ),
            })),
          ),
        };
      },
    },
  } satisfies TypedRoutes<'/api/tree' | '/api/sources'>;
}
