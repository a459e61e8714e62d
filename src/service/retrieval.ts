// Small and pure: merging with knowledge sources costs no extra module load on the query path.
import { federateQuery, federateSearch, type FederatedQueryResult, type FederatedSearchResult } from '../search/federate.js';
import type {
  HybridOptions,
  QueryOptions,
  QueryResult as LocalQueryResult,
  SearchResult as LocalSearchResult,
} from '../search/query-topics.js';
import type { DenseSource } from '../search/dense.js';
import { DEFAULT_FUSION, type FusionOptions } from '../search/fusion.js';
import type { LlmClient, LlmUsage } from '../models/llm/client.js';
import type { SkippedTopic, TreeCompaction, TreeIndexStore } from '../index/tree-index.js';
import { startDetached } from '../proc/detached.js';
import type { Snapshot } from '../store/context-store.js';
import { BrvError, isBrvError } from '../base/errors.js';
import type { ErrorKind } from '../base/error-kinds.js';
import { normalizeTopicPath, topicPathFromBlobPath } from '../topic/path.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import path from 'node:path';
import type { RepositoryContext } from './context.js';

export interface QueryRequest extends Omit<QueryOptions, 'hybrid'> {
  question: string;
  /** A revision of the brv branch; knowledge sources are then left out. */
  at?: string;
  /**
   * Hybrid retrieval (the lexical ranking fused with embedding similarity) when the connected
   * provider has an embedding model: undefined follows the `retrieval.hybrid` setting, false forces
   * the lexical ranking (`--lexical`), true asks for hybrid whatever the setting. Without an
   * embedding model it is always lexical, and nothing of the model layer is loaded.
   */
  hybrid?: boolean;
  /** Progress while a hybrid query embeds topics the cache does not hold yet: done of total. */
  onEmbedProgress?: (done: number, total: number) => void;
  /** Internal, for measurement (bench/locomo.ts --hybrid), not a CLI flag: fusion parameters instead of the defaults. */
  fusion?: Partial<FusionOptions> & { depth?: number };
}

/** ByteRover's `query` JSON; with knowledge sources, every doc says where it came from. */
export type QueryResult = (LocalQueryResult | FederatedQueryResult) & {
  /** A hybrid query's embedding model usage (tokens, requests, cost): only when the model was called. */
  usage?: LlmUsage;
  /** Only when nothing matched because this clone has no brv branch yet, and its remote has or may have knowledge. */
  remoteKnowledge?: RemoteKnowledgeHint;
};

/** Knowledge this clone does not have yet (a plain `git clone`), from local refs only: no network call. */
export interface RemoteKnowledgeHint {
  remote: string;
  /** True: fetched into the remote-tracking ref (`behind` commits) and not taken; false: nothing fetched yet, the remote may have some. */
  fetched: boolean;
  behind: number;
  /** What brings it into use. */
  command: string;
}

export type SearchRequest = QueryRequest;

export type SearchResult = (LocalSearchResult | FederatedSearchResult) & { usage?: LlmUsage };

export interface SkippedTopicsRequest {
  at?: string;
}

/** A blob at a topic path that search leaves out, and why; `source` names the knowledge source it is in. */
export type SkippedTopicReport = SkippedTopic & { source?: string };

export interface CatalogRequest {
  /** A revision of the brv branch instead of its tip. */
  at?: string;
  /** A knowledge source's alias (`brv source list`): its fetched topics instead of this repository's; not with `at`. */
  source?: string;
}

/** The commit `catalog` reads for the same request (one ref read: a front end keys what it derives from a catalog by it). */
export interface CatalogTipResult {
  commit: string | undefined;
}

/** Every topic of the branch (knowledge sources left out) with its title, sorted by path. */
export interface CatalogResult {
  commit: string | undefined;
  /** `title` is empty for a blob search leaves out (too large, not a topic: see `skippedTopics`). */
  topics: Array<{ path: string; title: string }>;
}

/** Every topic's `related` refs, resolved: what a front end walks the knowledge graph by (backlinks included). */
export interface LinksResult {
  commit: string | undefined;
  /** Topics with at least one ref, sorted by path; a ref to nothing that exists is left out. */
  topics: Array<{ path: string; related: Array<{ path: string; kind: 'topic' | 'folder' }> }>;
}

/** Topic blobs read per `git cat-file --batch` by `links`. */
const LINKS_READ_CHUNK = 2000;

export interface CompactIndexRequest {
  /**
   * The token of the maintenance lock a front end took for this run (`startIndexMaintenance` passes
   * it to the background process): the run adopts that lock instead of taking its own.
   */
  lockToken?: string;
}

/** One compacted (or checked) index: this repository's (`source` undefined) or a knowledge source's. */
export type { IndexCompaction } from '../index/tree-index.js';

export type IndexCompactionReport = TreeCompaction & { source?: string };

export interface CompactIndexResult {
  /** 'busy': another process holds the maintenance lock (it is compacting); nothing was done. */
  status: 'done' | 'busy';
  indexes: IndexCompactionReport[];
}

/** What `embedTopics` did: 'off' when no embedding model is connected or `retrieval.hybrid` is off. */
export interface EmbedTopicsResult {
  status: 'done' | 'off' | 'failed';
  /** The embedding model (`provider model`). */
  model?: string;
  /** Topics embedded now, already cached, and vectors of blobs no longer in the tree dropped from the cache. */
  embeddedTopics: number;
  cachedTopics: number;
  droppedVectors: number;
  /** 'failed': why (the provider's error); nothing else changed. */
  failure?: { error: string; message: string };
  usage?: LlmUsage;
}

export interface StartIndexMaintenanceRequest {
  /**
   * How to run brv again: the program and the arguments before the command words (the CLI:
   * `process.execPath` and its script). `maintenance --lock-token <token>` is appended.
   */
  command: string;
  args: readonly string[];
  /** The directory the background process runs in (absolute): the worktree the query ran in. */
  cwd: string;
}

export interface StartIndexMaintenanceResult {
  /** 'busy': a live maintenance holds the lock; 'failed': the process could not be started. */
  status: 'started' | 'busy' | 'failed';
  pid?: number;
}

/**
 * Loads the retrieval code ahead of a query, so that loading overlaps the git process that opens
 * the repository (a front end calls it right after starting `open`).
 */
export async function preloadRetrieval(): Promise<void> {
  await Promise.all([import('../search/query-topics.js'), import('../index/tree-index.js')]);
}

/** A scope is a folder of topics: a path that could never name one (`../x`, 10,000 characters) is refused as for `ls`. */
function checkScope(scope: string | undefined): void {
  const folder = scope?.replace(/\/+$/, '');
  if (!folder) return;
  const normalized = normalizeTopicPath(folder);
  if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
}

function queryOptions(request: QueryRequest, hybrid: HybridOptions | undefined): QueryOptions {
  const { hybrid: _wanted, onEmbedProgress: _progress, fusion, scan, ...rest } = request;
  // An older tree (`at`) is not one maintenance indexes: its first query builds its index.
  const options: QueryOptions = scan && !request.at ? { ...rest, scan } : rest;
  if (!hybrid) return options;
  const { depth, ...weights } = fusion ?? {};
  return {
    ...options,
    hybrid: {
      source: hybrid.source,
      ...(fusion ? { fusion: { ...DEFAULT_FUSION, ...weights } } : {}),
      ...(depth === undefined ? {} : { depth }),
    },
  };
}

/** A hybrid query's model usage in its result (`usage`, the model layer's convention for JSON output). */
function withUsage<R extends object>(result: R, usage: LlmUsage | undefined): R & { usage?: LlmUsage } {
  return usage && usage.requests > 0 ? { ...result, usage } : result;
}

/** Ranked retrieval over this repository's topics and every knowledge source's (`brv source add`). */
export class Retrieval {
  constructor(private readonly ctx: RepositoryContext) {}

  /** Ranked topics for a question, rendered for agents (ByteRover's `query` JSON shape). */
  async query(request: QueryRequest): Promise<QueryResult> {
    const result: QueryResult = await this.ranked(
      request,
      (topics, indexes, snapshot, options) => topics.queryTopics(indexes, snapshot, request.question, options),
      federateQuery,
    );
    if (result.matchedDocs.length > 0 || request.at) return result;
    const remoteKnowledge = await this.remoteKnowledge();
    return remoteKnowledge ? { ...result, remoteKnowledge } : result;
  }

  /** See QueryResult.remoteKnowledge: read only when nothing matched, so an answering query pays nothing. */
  private async remoteKnowledge(): Promise<RemoteKnowledgeHint | undefined> {
    const [{ upstreamState }, { branchRef }] = await Promise.all([import('../vc/upstream.js'), import('../store/layout.js')]);
    const { repo, branch } = this.ctx;
    if (await repo.resolve(branchRef(branch))) return undefined;
    const up = await upstreamState(repo, branch);
    if (!up) return undefined;
    if (up.tracking && up.behind > 0) return { remote: up.remote, fetched: true, behind: up.behind, command: 'brv init' };
    if (!up.fetched) return { remote: up.remote, fetched: false, behind: 0, command: 'brv init' };
    return undefined;
  }

  /** Paths, titles, scores and excerpts for a question (knowledge sources included, as for query). */
  search(request: SearchRequest): Promise<SearchResult> {
    return this.ranked(
      request,
      (topics, indexes, snapshot, options) => topics.searchTopics(indexes, snapshot, request.question, options),
      federateSearch,
    );
  }

  /** A query or search: lexical or hybrid, over this repository and every knowledge source, with the model's usage when it embedded. */
  private async ranked<R extends object, F extends object>(
    request: QueryRequest,
    retrieve: (
      topics: typeof import('../search/query-topics.js'),
      indexes: TreeIndexStore,
      snapshot: Snapshot,
      options: QueryOptions,
    ) => Promise<R>,
    merge: (local: R, shared: Array<{ alias: string; commit: string | undefined; result: R }>, limit: number) => F,
  ): Promise<R | F> {
    const [topics, hybrid] = await Promise.all([import('../search/query-topics.js'), this.hybridOptions(request)]);
    const options = queryOptions(request, hybrid);
    const result = await this.federated(request, (indexes, snapshot) => retrieve(topics, indexes, snapshot, options), merge);
    return hybrid ? withUsage(result, hybrid.usage()) : result;
  }

  /**
   * The dense side of a hybrid query, or undefined for a lexical one: no embedding model connected
   * (only the connection file is read, no model code loaded), `--lexical`, or `retrieval.hybrid`
   * off. A model that cannot be opened (no key, unknown model) still makes a hybrid source whose
   * embedding fails, so the query answers lexically with the reason in `metadata.hybrid.fallback`.
   */
  private async hybridOptions(
    request: QueryRequest,
  ): Promise<(HybridOptions & { usage: () => LlmUsage | undefined; model: string }) | undefined> {
    if (request.hybrid === false) return undefined;
    const active = await this.ctx.llmConnection();
    const embeddingModel = active?.connection.embeddingModel;
    if (!active || !embeddingModel) return undefined;
    if (request.hybrid === undefined) {
      const { readSettings } = await import('../settings/settings.js');
      if (!(await readSettings(this.ctx.repo))['retrieval.hybrid']) return undefined;
    }
    const { EmbeddingCache } = await import('../index/embedding-cache.js');
    const cache = EmbeddingCache.forRepository(this.ctx.repo.location.commonDir, {
      provider: active.connection.provider,
      model: embeddingModel,
      ...(active.connection.baseUrl ? { baseUrl: active.connection.baseUrl } : {}),
    });
    let client: LlmClient | undefined;
    // The client is the context's (a long-lived server's queries share it): usage is counted from here.
    let before: LlmUsage | undefined;
    const opened = this.ctx.llm().then((c) => {
      before = c?.usage();
      return (client = c);
    });
    opened.catch(() => {});
    const source: DenseSource = {
      cache,
      embed: async (texts) => {
        const model = await opened;
        if (!model?.hasEmbeddings)
          throw new BrvError('no-provider', `The connected provider has no embedding model; brv answers lexically.`);
        return model.embed(texts);
      },
      ...(request.onEmbedProgress ? { onProgress: request.onEmbedProgress } : {}),
    };
    return {
      source,
      usage: () => client && (before ? usageSince(before, client.usage()) : client.usage()),
      model: `${active.connection.provider} ${embeddingModel}`,
    };
  }

  /** Every topic path with its title, from the search index (built if needed): no topic blob is parsed twice. */
  async catalog(request: CatalogRequest = {}): Promise<CatalogResult> {
    const [{ liveTitles }, indexes, snapshot] = await Promise.all([
      import('../index/stack.js'),
      this.ctx.indexes(),
      this.ctx.readSnapshot(request),
    ]);
    const [files, index] = await Promise.all([this.ctx.store.listFiles(snapshot), indexes.open(snapshot.commit?.tree)]);
    const titles = liveTitles(index.stack);
    const topics = files
      .map((file) => topicPathFromBlobPath(file))
      .filter((p): p is NonNullable<typeof p> => p !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((path) => ({ path, title: titles.get(path) ?? '' }));
    return { commit: snapshot.commit?.oid, topics };
  }

  /**
   * Every topic's `related` refs at the branch tip (or `at`, or a knowledge source's tip), each resolved as
   * `brv curate` checks it: a topic when one is there, else a folder holding topics. Reads every topic blob (one
   * `git cat-file --batch` per chunk; blobs over the stored-topic limit are skipped): a front end keeps the answer
   * per commit (`catalogTip`).
   */
  async links(request: CatalogRequest = {}): Promise<LinksResult> {
    const [{ readBlobs }, { scanTopic }, snapshot] = await Promise.all([
      import('../models/dream/last-changes.js'),
      import('../models/dream/scan.js'),
      this.ctx.readSnapshot(request),
    ]);
    const blobs = (await this.ctx.store.listBlobs(snapshot)).flatMap((blob) => {
      const topic = topicPathFromBlobPath(blob.path);
      return topic === undefined ? [] : [{ ...blob, topic }];
    });
    const topics = new Set<string>(blobs.map((blob) => blob.topic));
    const folders = new Set(
      blobs.flatMap((blob) =>
        blob.topic
          .split('/')
          .slice(0, -1)
          .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
      ),
    );
    const readable = blobs.filter((blob) => blob.size <= MAX_STORED_TOPIC_BYTES);
    const found: LinksResult['topics'] = [];
    for (let i = 0; i < readable.length; i += LINKS_READ_CHUNK) {
      const chunk = readable.slice(i, i + LINKS_READ_CHUNK);
      const contents = await readBlobs(
        this.ctx.repo,
        chunk.map((blob) => blob.oid),
      );
      chunk.forEach((blob, j) => {
        const html = contents[j]?.toString('utf8');
        if (html === undefined || !/\brelated\s*=/i.test(html)) return;
        // Only the root's own attributes count, and they open the blob: its head is scanned, not its body.
        const head = html.slice(0, 16 * 1024);
        const scanned = scanTopic(blob.topic, blob.oid, head) ?? scanTopic(blob.topic, blob.oid, html);
        const related: LinksResult['topics'][number]['related'] = [];
        for (const path of new Set<string>(scanned?.related ?? [])) {
          if (path === blob.topic) continue;
          if (topics.has(path)) related.push({ path, kind: 'topic' });
          else if (folders.has(path)) related.push({ path, kind: 'folder' });
        }
        if (related.length > 0) found.push({ path: blob.topic, related });
      });
    }
    found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { commit: snapshot.commit?.oid, topics: found };
  }

  /** The commit `catalog(request)` would read now, without listing anything. */
  async catalogTip(request: CatalogRequest = {}): Promise<CatalogTipResult> {
    return { commit: (await this.ctx.readSnapshot(request)).commit?.oid };
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

  /**
   * Compacts the search indexes that are due (`metadata.index.compaction` says 'due'): the branch
   * tip's and each knowledge source's. This is the work a query leaves undone so that it never
   * compacts on its own path; `brv maintenance` runs it (a query's CLI process starts that in the
   * background), a long-lived server runs it between calls. One process at a time per repository
   * (a lock file; a stale one, of a process gone, is taken over); queries running meanwhile keep
   * reading the old index, and the new one is published atomically.
   */
  async compactIndex(request: CompactIndexRequest = {}): Promise<CompactIndexResult> {
    const [indexes, snapshot, lock] = await Promise.all([
      this.ctx.indexes(),
      this.ctx.snapshotFor(undefined),
      import('../index/maintenance-lock.js'),
    ]);
    const file = indexes.maintenanceLock;
    const token = request.lockToken ?? lock.newLockToken();
    const held = request.lockToken
      ? await lock.moveLock(file, token, process.pid)
      : await lock.acquireLock(file, { pid: process.pid, token, since: Date.now() });
    // Adopting a lock that was taken over meanwhile: run only if nobody else holds it now.
    if (!held && (!request.lockToken || !(await lock.acquireLock(file, { pid: process.pid, token, since: Date.now() }))))
      return { status: 'busy', indexes: [] };
    try {
      const trees: Array<{ tree: string | undefined; source?: string }> = [{ tree: snapshot.commit?.tree }];
      for (const s of await this.ctx.sourceSnapshots()) trees.push({ tree: s.snapshot.commit?.tree, source: s.alias });
      const reports: IndexCompactionReport[] = [];
      for (const { tree, source } of trees) {
        if (!tree) continue;
        const report = await indexes.compactTree(tree);
        reports.push(source === undefined ? report : { ...report, source });
      }
      return { status: 'done', indexes: reports };
    } finally {
      await lock.releaseLock(file, token);
    }
  }

  /**
   * Embeds the topics of the branch tip that the embedding cache does not hold yet, and drops the
   * vectors of blobs no longer in it (the cache stays bounded by the tree): the work the first hybrid
   * query after many new topics would do, done ahead by `brv maintenance`. Knowledge sources are
   * left to the queries that read them. Never throws for the provider: 'failed' says why.
   */
  async embedTopics(): Promise<EmbedTopicsResult> {
    const nothing = { embeddedTopics: 0, cachedTopics: 0, droppedVectors: 0 };
    const hybrid = await this.hybridOptions({ question: '' });
    if (!hybrid) return { status: 'off', ...nothing };
    const [indexes, snapshot, dense] = await Promise.all([
      this.ctx.indexes(),
      this.ctx.snapshotFor(undefined),
      import('../search/dense.js'),
    ]);
    const index = await indexes.open(snapshot.commit?.tree);
    const docs = dense.liveDocuments(index);
    const stats = { embeddedTopics: 0, cachedTopics: 0, requests: 0 };
    const model = hybrid.model;
    try {
      await dense.topicVectors(indexes, index, docs, hybrid.source, stats);
    } catch (error) {
      if (!(error instanceof BrvError)) throw error;
      return {
        status: 'failed',
        model,
        ...nothing,
        embeddedTopics: stats.embeddedTopics,
        failure: { error: error.kind, message: error.message },
      };
    }
    const { dropped } = hybrid.source.cache.retain(new Set(docs.map((d) => d.blob)));
    const usage = hybrid.usage();
    return {
      status: 'done',
      model,
      embeddedTopics: stats.embeddedTopics,
      cachedTopics: stats.cachedTopics,
      droppedVectors: dropped,
      ...(usage && usage.requests > 0 ? { usage } : {}),
    };
  }

  /**
   * Starts `compactIndex` in a background process (`brv maintenance`, detached: it outlives the
   * caller) unless a live one holds the maintenance lock, so concurrent queries start at most one.
   * The lock is taken here, before the process starts, and handed to it.
   */
  async startIndexMaintenance(request: StartIndexMaintenanceRequest): Promise<StartIndexMaintenanceResult> {
    if (!path.isAbsolute(request.cwd)) throw new BrvError('invalid-cwd', `cwd must be an absolute path, not "${request.cwd}".`);
    const [indexes, lock] = await Promise.all([this.ctx.indexes(), import('../index/maintenance-lock.js')]);
    const file = indexes.maintenanceLock;
    const token = lock.newLockToken();
    if (!(await lock.acquireLock(file, { pid: process.pid, token, since: Date.now() }))) return { status: 'busy' };
    const pid = startDetached(
      this.ctx.repo.processes,
      request.command,
      [...request.args, 'maintenance', '--lock-token', token],
      request.cwd,
    );
    if (pid === undefined) {
      await lock.releaseLock(file, token);
      return { status: 'failed' };
    }
    // The child adopts the lock by its token; until then the lock names this (live) process.
    await lock.moveLock(file, token, pid).catch(() => {});
    return { status: 'started', pid };
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

  /** The usage of an answer that made no model call: the connection named when there is one. */
  private async noUsage(): Promise<LlmUsage> {
    const active = await this.ctx.llmConnection().catch(() => undefined);
    return {
      provider: active?.connection.provider ?? 'none',
      model: active?.connection.model ?? 'none',
      requests: 0,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      embeddingTokens: 0,
      costUsd: null,
    };
  }

  /**
   * A grounded answer (`brv query --answer`): the question's top topics (the normal ranking, knowledge
   * sources included) shown to the connected model as data, its reply checked (only citations of
   * shown topics survive; an answer citing none is "not in the knowledge"). When retrieval finds
   * nothing relevant (src/models/llm/answer.ts `relevantTopics`), the answer is "not in the knowledge"
   * without any model call. A failure of the model (`no-provider` when none is connected, an outage) is
   * `modelError` beside the retrieval, never in its place.
   */
  async answer(request: AnswerRequest): Promise<AnswerResult> {
    const { onAnswerText, signal, ...query } = request;
    const limit = Math.max(1, Math.min(request.limit ?? ANSWER_TOPICS, 50));
    // The model's failure (none connected, no key) waits until retrieval is done: what it found is kept.
    const client = this.ctx.llm().then(
      (llm) => ({ llm }),
      (error: unknown) => ({ error }),
    );
    const [connected, result, grounded] = await Promise.all([client, this.query({ ...query, limit }), import('../models/llm/answer.js')]);
    const failed = (error: unknown, usage: LlmUsage): AnswerResult => {
      if (!isBrvError(error) || !MODEL_FAILURES.has(error.kind)) throw error;
      return {
        question: request.question,
        answer: '',
        citations: [],
        rejectedCitations: [],
        notInKnowledge: false,
        topics: [],
        usage,
        query: result,
        modelError: { kind: error.kind, message: error.message },
      };
    };
    if ('error' in connected) return failed(connected.error, await this.noUsage());
    const { llm } = connected;
    if (!llm) {
      return failed(
        new BrvError(
          'no-provider',
          'An answer needs a model and none is connected: run brv providers connect <provider> (e.g. brv providers connect openai --api-key -), or set BRV_LLM_PROVIDER and BRV_LLM_MODEL. A query without an answer needs no model.',
        ),
        await this.noUsage(),
      );
    }
    const before = llm.usage();
    const candidates = result.matchedDocs.map((doc) => ({
      path: 'source' in doc && doc.source ? `${doc.source}:${doc.topicPath}` : doc.topicPath,
      title: doc.title,
      score: doc.score,
      markdown: doc.rendered_md,
      matchedTerms: doc.matched.terms,
    }));
    const shown = grounded.relevantTopics(request.question, candidates) ? grounded.shownTopics(candidates) : [];
    const topics = shown.map((t) => ({ path: t.path, title: t.title, score: t.score }));
    let checked: import('../models/llm/answer.js').CheckedAnswer = { text: '', citations: [], rejectedCitations: [], notInKnowledge: true };
    if (shown.length > 0) {
      let reply: string;
      try {
        reply = await llm.generate({
          system: grounded.ANSWER_SYSTEM,
          prompt: grounded.answerPrompt(request.question.trim(), shown),
          maxOutputTokens: grounded.ANSWER_LIMITS.maxOutputTokens,
          ...(signal ? { signal } : {}),
          ...(onAnswerText ? { onText: onAnswerText } : {}),
        });
      } catch (error) {
        return { ...failed(error, usageSince(before, llm.usage())), topics };
      }
      checked = grounded.checkAnswer(
        reply,
        topics.map((t) => t.path),
      );
    }
    return {
      question: request.question,
      answer: checked.text,
      citations: checked.citations,
      rejectedCitations: checked.rejectedCitations,
      notInKnowledge: checked.notInKnowledge,
      topics,
      usage: usageSince(before, llm.usage()),
      query: result,
    };
  }
}

/** Topics shown to the model unless `limit` says otherwise (ByteRover's single-call tier shows at most 5). */
const ANSWER_TOPICS = 5;

export interface AnswerRequest extends QueryRequest {
  /** Cancels the model call (`llm-cancelled`). */
  signal?: AbortSignal;
  /** Streaming progress of the model's reply: characters received so far (`onProgress` is the index build's, as for query). */
  onAnswerText?: (received: number) => void;
}

export interface AnswerResult {
  question: string;
  /** The checked answer, citing topic paths in brackets; empty when `notInKnowledge`. */
  answer: string;
  /** Paths of shown topics the answer cites (a knowledge source's as `alias:path`). */
  citations: string[];
  /** Paths the model cited that it was not shown: removed from the answer. */
  rejectedCitations: string[];
  /** No answer: retrieval found nothing relevant, the model said so, or its answer cited no shown topic. */
  notInKnowledge: boolean;
  /** What the model was shown (empty: no model call was made). */
  topics: Array<{ path: string; title: string; score: number }>;
  /** This answer's model calls (zero requests when none was made). */
  usage: LlmUsage;
  /** The retrieval the answer was made from (`brv query`'s result). */
  query: QueryResult;
  /**
   * The model failed (none connected, no key, unreachable, refused, timed out, an unusable reply): no
   * answer, but `query` still holds what retrieval found (it needs no model). Cancelling is thrown.
   */
  modelError?: { kind: ErrorKind; message: string };
}

/** Failures of the model (not of retrieval) that leave an answer's retrieval standing. */
const MODEL_FAILURES: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  'no-provider',
  'missing-api-key',
  'unknown-provider',
  'provider-config-unreadable',
  'llm-auth',
  'llm-bad-reply',
  'llm-rate-limited',
  'llm-rejected',
  'llm-timeout',
  'llm-unavailable',
]);

/** What a client spent between two readings of its tally (a long-lived server's client counts every call). */
function usageSince(before: LlmUsage, after: LlmUsage): LlmUsage {
  const inputTokens = after.inputTokens - before.inputTokens;
  const outputTokens = after.outputTokens - before.outputTokens;
  const costUsd = after.costUsd === null || before.costUsd === null ? null : Math.max(0, after.costUsd - before.costUsd);
  return {
    ...after,
    requests: after.requests - before.requests,
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    embeddingTokens: after.embeddingTokens - before.embeddingTokens,
    costUsd,
  };
}
