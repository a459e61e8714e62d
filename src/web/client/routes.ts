// The client's URLs (History API): every page is a shareable address the server answers with index.html.
// Pure: no DOM, tested in test/web/client-routes.test.ts.

export type Page = 'knowledge' | 'search' | 'changes' | 'reviews' | 'branches' | 'setup' | 'new' | 'ask' | 'dream';
export type TopicTab = 'rendered' | 'raw' | 'history';

export type Route =
  /** `source`: a knowledge source's alias: its topic, read-only (absent for local knowledge). */
  | { page: 'knowledge'; topic: string | null; tab: TopicTab; source?: string }
  | ({ page: 'search'; q: string } & SearchFilters)
  | { page: 'changes' }
  | { page: 'reviews' }
  | { page: 'branches' }
  | { page: 'setup' }
  /** A new topic (`folder`: the path it starts with); a question to answer; a dream run. */
  | { page: 'new'; folder: string }
  | { page: 'ask'; q: string }
  | { page: 'dream' }
  | { page: 'not-found'; path: string };

/** Search filters, as the API takes them: a folder, a bv-* element, a date range, a revision ("as of"). */
export interface SearchFilters {
  scope?: string;
  kind?: string;
  since?: string;
  until?: string;
  at?: string;
}

export const FILTER_KEYS = ['scope', 'kind', 'since', 'until', 'at'] as const;

/** The filters set in URL parameters (empty ones left out). */
function filtersOf(params: URLSearchParams): SearchFilters {
  const filters: SearchFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value) filters[key] = value;
  }
  return filters;
}

/** `q` and the filters as URL parameters (empty ones left out), for the page's address and the API. */
export function searchParams(q: string, filters: SearchFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (q !== '') params.set('q', q);
  for (const key of FILTER_KEYS) if (filters[key]) params.set(key, filters[key]!);
  return params;
}

const TABS: readonly TopicTab[] = ['rendered', 'raw', 'history'];
const SOURCE_TABS: readonly TopicTab[] = ['rendered', 'raw'];

/** A knowledge source alias as `brv source add` takes it. */
function isSourceAlias(alias: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(alias) && !alias.includes('..');
}

/** The route of a location's pathname and search (`/` is the knowledge page: the app rewrites it to /knowledge). */
export function parseRoute(pathname: string, search = ''): Route {
  const params = new URLSearchParams(search);
  const parts = pathname.split('/').filter((part) => part !== '');
  const [first, ...rest] = parts;
  if (first === undefined) return { page: 'knowledge', topic: null, tab: 'rendered' };
  if (first === 'knowledge') {
    let segments: string[];
    try {
      segments = rest.map((part) => decodeURIComponent(part));
    } catch {
      return { page: 'not-found', path: pathname };
    }
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.includes('/'))) {
      return { page: 'not-found', path: pathname };
    }
    const tab = params.get('tab');
    const source = params.get('source');
    if (source !== null && !isSourceAlias(source)) return { page: 'not-found', path: pathname };
    const topic = segments.length > 0 ? segments.join('/') : null;
    // A source's topic has no history here (Rendered and Raw only).
    const tabs = source === null ? TABS : SOURCE_TABS;
    return {
      page: 'knowledge',
      topic,
      tab: tabs.includes(tab as TopicTab) ? (tab as TopicTab) : 'rendered',
      ...(source === null || topic === null ? {} : { source }),
    };
  }
  if (rest.length === 0) {
    if (first === 'search') return { page: 'search', q: params.get('q') ?? '', ...filtersOf(params) };
    if (first === 'changes') return { page: 'changes' };
    if (first === 'reviews') return { page: 'reviews' };
    if (first === 'branches') return { page: 'branches' };
    if (first === 'setup') return { page: 'setup' };
    if (first === 'new') return { page: 'new', folder: params.get('folder') ?? '' };
    if (first === 'ask') return { page: 'ask', q: params.get('q') ?? '' };
    if (first === 'dream') return { page: 'dream' };
  }
  return { page: 'not-found', path: pathname };
}

/** The address of a route (the inverse of parseRoute). */
export function routeHref(route: Route): string {
  switch (route.page) {
    case 'knowledge':
      return route.topic === null ? '/knowledge' : topicHref(route.topic, route.tab, route.source);
    case 'search': {
      const query = searchParams(route.q, route).toString();
      return query === '' ? '/search' : `/search?${query}`;
    }
    case 'changes':
      return '/changes';
    case 'reviews':
      return '/reviews';
    case 'branches':
      return '/branches';
    case 'setup':
      return '/setup';
    case 'new':
      return route.folder ? `/new?${new URLSearchParams({ folder: route.folder }).toString()}` : '/new';
    case 'ask':
      return route.q ? `/ask?${new URLSearchParams({ q: route.q }).toString()}` : '/ask';
    case 'dream':
      return '/dream';
    case 'not-found':
      return route.path;
  }
}

/**
 * `/knowledge/<topic path>`, each segment percent-encoded; a knowledge source's topic with
 * `?source=<alias>`; the Raw and History tabs as `tab=`.
 */
export function topicHref(topic: string, tab: TopicTab = 'rendered', source?: string | null): string {
  const path = `/knowledge/${topic.split('/').map(encodeURIComponent).join('/')}`;
  const params = new URLSearchParams();
  if (source) params.set('source', source);
  if (tab !== 'rendered') params.set('tab', tab);
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
}

export function pageHref(page: Page): string {
  return `/${page}`;
}
