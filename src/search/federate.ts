import type { MatchedDoc, QueryResult, SearchResult, SearchResultItem } from './query-topics.js';

/** Scores from a knowledge source are discounted a little, so local knowledge wins close calls. */
const SHARED_SCORE_FACTOR = 0.9;

export interface SharedResult<T> {
  alias: string;
  commit: string | undefined;
  result: T;
}

export type FederatedDoc = MatchedDoc & { origin: 'local' | 'shared'; source?: string };
export type FederatedItem = SearchResultItem & { origin: 'local' | 'shared'; source?: string };

/** How much one knowledge source contributed. */
export interface SourceCount {
  alias: string;
  commit: string | undefined;
  totalFound: number;
  skippedTopics: number;
}

export interface FederatedQueryResult extends Omit<QueryResult, 'matchedDocs' | 'metadata'> {
  matchedDocs: FederatedDoc[];
  metadata: QueryResult['metadata'] & { sources: SourceCount[] };
}

export interface FederatedSearchResult extends Omit<SearchResult, 'results'> {
  results: FederatedItem[];
  sources: SourceCount[];
}

/**
 * One ranked list from this repository's results and its knowledge sources' (`brv source add`):
 * every item says where it came from (`origin`, and the source's alias), ordered by score with
 * shared scores discounted, local first on ties, cut to `limit`.
 */
export function federateQuery(local: QueryResult, shared: readonly SharedResult<QueryResult>[], limit: number): FederatedQueryResult {
  const docs = rank<FederatedDoc>(
    local.matchedDocs.map((d) => ({ ...d, origin: 'local' as const })),
    shared.map((s) => s.result.matchedDocs.map((d) => ({ ...d, origin: 'shared' as const, source: s.alias }))),
    limit,
  );
  return {
    ...local,
    status: docs.length > 0 ? ('ok' as const) : ('no-matches' as const),
    matchedDocs: docs,
    metadata: {
      ...local.metadata,
      topScore: docs[0]?.score ?? 0,
      totalFound: local.metadata.totalFound + shared.reduce((n, s) => n + s.result.metadata.totalFound, 0),
      skippedTopics: local.metadata.skippedTopics + shared.reduce((n, s) => n + s.result.metadata.skippedTopics, 0),
      sources: shared.map((s) => ({
        alias: s.alias,
        commit: s.commit,
        totalFound: s.result.metadata.totalFound,
        skippedTopics: s.result.metadata.skippedTopics,
      })),
    },
  };
}

export function federateSearch(local: SearchResult, shared: readonly SharedResult<SearchResult>[], limit: number): FederatedSearchResult {
  const results = rank<FederatedItem>(
    local.results.map((r) => ({ ...r, origin: 'local' as const })),
    shared.map((s) => s.result.results.map((r) => ({ ...r, origin: 'shared' as const, source: s.alias }))),
    limit,
  );
  return {
    ...local,
    results,
    totalFound: local.totalFound + shared.reduce((n, s) => n + s.result.totalFound, 0),
    skippedTopics: local.skippedTopics + shared.reduce((n, s) => n + s.result.skippedTopics, 0),
    sources: shared.map((s) => ({
      alias: s.alias,
      commit: s.commit,
      totalFound: s.result.totalFound,
      skippedTopics: s.result.skippedTopics,
    })),
  };
}

function rank<T extends { score: number; origin: 'local' | 'shared' }>(local: T[], shared: T[][], limit: number): T[] {
  const weight = (item: T) => (item.origin === 'shared' ? item.score * SHARED_SCORE_FACTOR : item.score);
  return [...local, ...shared.flat()]
    .map((item, order) => ({ item, order, weight: weight(item) }))
    .sort((a, b) => b.weight - a.weight || a.order - b.order)
    .slice(0, limit)
    .map(({ item }) => item);
}
