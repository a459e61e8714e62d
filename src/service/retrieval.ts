// Small and pure: merging with knowledge sources costs no extra module load on the query path.
import { federateQuery, federateSearch, type FederatedQueryResult, type FederatedSearchResult } from '../query/federate.js';
import type { QueryOptions, QueryResult as LocalQueryResult, SearchResult as LocalSearchResult } from '../query/query-topics.js';
import type { SkippedTopic, TreeIndexStore } from '../query/tree-index.js';
import type { Snapshot } from '../store/context-store.js';
import { BrvError } from '../errors.js';
import { normalizeTopicPath } from '../topic/path.js';
import type { RepositoryContext } from './context.js';

export interface QueryRequest extends QueryOptions {
  question: string;
  /** A revision of the brv branch; knowledge sources are then left out. */
  at?: string;
}

/** ByteRover's `query` JSON; with knowledge sources, every doc says where it came from. */
export type QueryResult = LocalQueryResult | FederatedQueryResult;

export type SearchRequest = QueryRequest;

export type SearchResult = LocalSearchResult | FederatedSearchResult;

export interface SkippedTopicsRequest {
  at?: string;
}

/** A blob at a topic path that search leaves out, and why; `source` names the knowledge source it is in. */
export type SkippedTopicReport = SkippedTopic & { source?: string };

/**
 * Loads the retrieval code ahead of a query, so that loading overlaps the git process that opens
 * the repository (a front end calls it right after starting `open`).
 */
export async function preloadRetrieval(): Promise<void> {
  await Promise.all([import('../query/query-topics.js'), import('../query/tree-index.js')]);
}

/** A scope is a folder of topics: a path that could never name one (`../x`, 10,000 characters) is refused as for `ls`. */
function checkScope(scope: string | undefined): void {
  const folder = scope?.replace(/\/+$/, '');
  if (!folder) return;
  const normalized = normalizeTopicPath(folder);
  if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
}

/** Ranked retrieval over this repository's topics and every knowledge source's (`brv source add`). */
export class Retrieval {
  constructor(private readonly ctx: RepositoryContext) {}

  /** Ranked topics for a question, rendered for agents (ByteRover's `query` JSON shape). */
  async query(request: QueryRequest): Promise<QueryResult> {
    const { queryTopics } = await import('../query/query-topics.js');
    return this.federated(request, (indexes, snapshot) => queryTopics(indexes, snapshot, request.question, request), federateQuery);
  }

  /** Paths, titles, scores and excerpts for a question (knowledge sources included, as for query). */
  async search(request: SearchRequest): Promise<SearchResult> {
    const { searchTopics } = await import('../query/query-topics.js');
    return this.federated(request, (indexes, snapshot) => searchTopics(indexes, snapshot, request.question, request), federateSearch);
  }

  /**
   * Blobs at topic paths that search leaves out, with their problem (`too-large`, `too-deep`,
   * `not-a-topic`, `duplicate-path`, `missing`): this repository's (or `at`'s) and, unless `at` is
   * set, every knowledge source's. Builds the indexes if needed; for `brv doctor`.
   */
  async skippedTopics(request: SkippedTopicsRequest = {}): Promise<SkippedTopicReport[]> {
    const [indexes, snapshot] = await Promise.all([this.ctx.indexes(), this.ctx.snapshotFor(request.at)]);
    const local = await indexes.skippedTopics(snapshot.commit?.tree);
    const sources = request.at ? [] : await this.ctx.sourceSnapshots();
    const shared = await Promise.all(
      sources.map(async (s) => (await indexes.skippedTopics(s.snapshot.commit?.tree)).map((skip) => ({ ...skip, source: s.alias }))),
    );
    return [...local, ...shared.flat()];
  }

  /** Runs a retrieval on this repository's snapshot and, unless `at` is set, on every knowledge source. */
  private async federated<R, F>(
    request: { at?: string; limit?: number; scope?: string },
    retrieve: (indexes: TreeIndexStore, snapshot: Snapshot) => Promise<R>,
    merge: (local: R, shared: Array<{ alias: string; commit: string | undefined; result: R }>, limit: number) => F,
  ): Promise<R | F> {
    checkScope(request.scope);
    const [indexes, snapshot] = await Promise.all([this.ctx.indexes(), this.ctx.snapshotFor(request.at)]);
    const local = await retrieve(indexes, snapshot);
    const sources = request.at ? [] : await this.ctx.sourceSnapshots();
    if (sources.length === 0) return local;
    const shared = await Promise.all(
      sources.map(async (s) => ({ alias: s.alias, commit: s.snapshot.commit?.oid, result: await retrieve(indexes, s.snapshot) })),
    );
    return merge(local, shared, Math.min(request.limit ?? 10, 50));
  }
}
