// The knowledge tree one folder at a time (GET /api/tree), and the knowledge sources beside it (GET /api/sources).
import type { Brv } from '../service/brv.js';
import { normalizeTopicPath } from '../topic/path.js';
import type { TreeResponse } from './api-types.js';
import { HttpError, limitParam, queryString, type TypedRoutes } from './request.js';

/**
 * One folder of a catalog: its direct children, sorted as the tree shows them (folders by name, topics by
 * title), where each name stands, and how many topics it holds at any depth.
 */
interface FolderNode {
  count: number;
  folders: string[];
  topics: Array<{ name: string; title: string }>;
  /** Child name → its index in `folders` or `topics`. */
  positions?: Map<string, number>;
}

/** Every folder of one commit's catalog, by path ('' is the root): each request reads only its folder's children. */
interface FolderIndex {
  commit: string | undefined;
  folders: ReadonlyMap<string, FolderNode>;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** What a person expects of a list of names: case and accents aside, "Note 2" before "Note 10"; a fixed locale, the same everywhere. */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const asShown = (a: string, b: string): number => collator.compare(a, b) || byCodeUnits(a, b);
/** The tree shows a topic's title (its name when it has none): that is the order. */
const shownTitle = (topic: { name: string; title: string }): string => topic.title.trim() || topic.name;

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
    node.folders.sort(asShown);
    node.topics.sort((a, b) => asShown(shownTitle(a), shownTitle(b)) || byCodeUnits(a.name, b.name));
  }
  return { commit, folders };
}

/** Where the child `name` (a folder or a topic) stands in the folder's list (undefined: not there). Built on first use. */
function positionOf(node: FolderNode, name: string, type: 'folder' | 'topic'): number | undefined {
  if (!node.positions) {
    node.positions = new Map();
    node.folders.forEach((folder, i) => node.positions!.set(`d${folder}`, i));
    node.topics.forEach((topic, i) => node.positions!.set(`t${topic.name}`, i));
  }
  return node.positions.get(`${type === 'folder' ? 'd' : 't'}${name}`);
}

/** A topic's title as the tree shows it (its name when it has none); undefined when the catalog has no such topic. */
function topicTitle(index: FolderIndex, path: string): string | undefined {
  const at = path.lastIndexOf('/');
  const node = index.folders.get(at < 0 ? '' : path.slice(0, at));
  const position = node ? positionOf(node, path.slice(at + 1), 'topic') : undefined;
  return position === undefined ? undefined : shownTitle(node!.topics[position]!);
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
      rest.length > 1 ? (positionOf(node, rest[0]!, 'folder') ?? 0) : node.folders.length + (positionOf(node, rest[0]!, 'topic') ?? 0);
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
 * What is derived from one commit of the branch (or of a source), by (source, commit): built once per commit,
 * shared by concurrent requests (the promise is kept), so a request costs one ref read and a lookup.
 */
class PerCommit<T extends { commit: string | undefined }> {
  private readonly built = new Map<string, Promise<T>>();

  constructor(private readonly build: (brv: Brv, request: { at?: string; source?: string }) => Promise<T>) {}

  async get(brv: Brv, source: string | undefined): Promise<T> {
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
    index = this.build(brv, request);
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

/** Folder indexes, from `retrieval.catalog`: a tree request costs one ref read and its page. */
export class FolderIndexes extends PerCommit<FolderIndex> {
  constructor() {
    super((brv, request) => brv.retrieval.catalog(request).then((catalog) => buildFolderIndex(catalog.commit, catalog.topics)));
  }
}

/** The knowledge graph of one commit: each topic's resolved `related` refs, and the topics naming each topic. */
interface LinkIndex {
  commit: string | undefined;
  related: ReadonlyMap<string, ReadonlyArray<{ path: string; kind: 'topic' | 'folder' }>>;
  backlinks: ReadonlyMap<string, readonly string[]>;
}

/** Link indexes, from `retrieval.links` (which reads every topic: once per commit, never per request). */
class LinkIndexes extends PerCommit<LinkIndex> {
  constructor() {
    super(async (brv, request) => {
      const links = await brv.retrieval.links(request);
      const related = new Map(links.topics.map((topic) => [topic.path, topic.related]));
      const backlinks = new Map<string, string[]>();
      // links.topics is sorted by path: so is every list of backlinks.
      for (const topic of links.topics)
        for (const ref of topic.related)
          if (ref.kind === 'topic') backlinks.set(ref.path, [...(backlinks.get(ref.path) ?? []), topic.path]);
      return { commit: links.commit, related, backlinks };
    });
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

export function treeRoutes(indexes = new FolderIndexes(), links = new LinkIndexes()) {
  return {
    '/api/topic/links': {
      GET: async ({ brv, url }) => {
        const source = sourceParam(url);
        const path = folderParam(url, 'path');
        const b = await brv();
        const [index, graph] = await Promise.all([indexes.get(b, source), links.get(b, source)]);
        if (path === '' || topicTitle(index, path) === undefined)
          throw new HttpError(404, 'not-found', `No topic ${path}${source === undefined ? '' : ` in knowledge source ${source}`}.`);
        // Titles from the folder index, which may be of a commit a moment newer: a topic gone since is left out.
        const titled = (p: string) => topicTitle(index, p);
        return {
          path,
          commit: graph.commit ?? null,
          related: (graph.related.get(path) ?? []).flatMap((ref) =>
            ref.kind === 'folder'
              ? [{ ...ref, title: ref.path }]
              : titled(ref.path) === undefined
                ? []
                : [{ ...ref, title: titled(ref.path)! }],
          ),
          backlinks: (graph.backlinks.get(path) ?? []).flatMap((p) => (titled(p) === undefined ? [] : [{ path: p, title: titled(p)! }])),
          ...(source === undefined ? {} : { source }),
        };
      },
    },
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
  } satisfies TypedRoutes<'/api/tree' | '/api/sources' | '/api/topic/links'>;
}
