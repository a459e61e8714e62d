import { isCalendarDay } from '../base/dates.js';
import { BrvError } from '../base/errors.js';
import type { Snapshot } from '../store/context-store.js';
import { analyze } from '../index/analyze.js';
import type { DenseSource, DenseStats } from './dense.js';
import { bestFusedScore, DEFAULT_FUSION, reciprocalRankFusion, type FusionOptions } from './fusion.js';
import { asksWhen, bestPassage, dateCloseness, questionDays } from './passages.js';
import { search, type SearchHit, type SearchOptions } from './search.js';
import { liveView, type SegmentStack } from '../index/stack.js';
import type { IndexBuild, IndexCompaction, TreeIndex, TreeIndexStore } from '../index/tree-index.js';
import { shippedWordNeighbours } from './word-neighbours.js';
import { mark, monotonicNow } from '../base/trace.js';

export const MAX_LIMIT = 50;
const MAX_QUESTION_LENGTH = 4000;

export interface QueryOptions {
  limit?: number;
  scope?: string;
  /** Only topics that contain one of these bv-* elements (`rule`, `bv-decision`, …). */
  kinds?: string[];
  /** Only topics with a bv-timestamp date on or after / on or before this YYYY-MM-DD day. */
  since?: string;
  until?: string;
  /** Progress while the search index of the tree is built (the first query after many new topics): topics done of `total`. */
  onProgress?: (done: number, total?: number) => void;
  /**
   * For a front end that runs `compactIndex` after answering (the CLI's background maintenance, a
   * server between calls): a tree with no index is answered from a scan of its blobs and its index
   * left to that (`metadata.index.build` 'scan', compaction 'due'), the answer the same as the
   * index gives (tree-index.ts, `open`). Lexical queries only: a hybrid one builds the index.
   */
  scan?: boolean;
  /**
   * Internal, for measurement (bench/locomo.ts --ablate), not a CLI flag: each ranking feature beyond
   * plain BM25F can be switched off (`false`); unset means on, the default ranking.
   */
  ranking?: RankingSwitches;
  /**
   * Hybrid retrieval: the lexical ranking fused with the dense one (dense.ts) by reciprocal rank
   * fusion. Unset: lexical only, exactly as without it (no module of the dense side is loaded).
   */
  hybrid?: HybridOptions;
}

export interface HybridOptions {
  source: DenseSource;
  /** For measurement (bench/locomo.ts --fusion-k …); the default was chosen on the tune halves. */
  fusion?: FusionOptions;
  /** Candidates taken from each side (default: as many as the lexical pool, max(limit, 20)). */
  depth?: number;
}

/** What hybrid retrieval did for one query (`metadata.hybrid`): absent when it was not asked for. */
export interface HybridInfo {
  /** false: the dense side failed and the answer is the lexical ranking alone (`fallback` says why). */
  ran: boolean;
  /** Topics embedded by this query (cache misses), taken from the cache, and provider requests made. */
  embeddedTopics: number;
  cachedTopics: number;
  requests: number;
  /** Wall-clock time of the dense side (embedding included). */
  denseMs: number;
  /** Results the dense side brought in that the lexical ranking did not have (in the returned list). */
  denseOnly: number;
  fallback?: { error: string; message: string };
}

/** The ranking features beyond plain BM25F, each switchable for ablation. */
export const RANKING_FEATURES = [
  'feedback',
  'passages',
  'questionFrames',
  'coordination',
  'prefix',
  'fieldWeights',
  'questionDates',
  'pathMatch',
  'timeWords',
] as const;
export type RankingFeature = (typeof RANKING_FEATURES)[number];
/**
 * Ranking features measured and left off by default (each on with `true`), switchable so that
 * --ablate and --try report them next to the default. neighbours wins on LoCoMo and loses on the
 * long-documents corpus (issue 34's rule: off by default; docs/decisions/0012-ranking-three-corpora.md).
 */
export const OPTIONAL_RANKING_FEATURES = ['neighbours'] as const;
export type OptionalRankingFeature = (typeof OPTIONAL_RANKING_FEATURES)[number];
/**
 * feedback: pseudo-relevance feedback (search.ts); passages: re-rank by best-passage coverage
 * (passages.ts); questionFrames: drop question-framing words (question.ts); coordination: the
 * matched-words factor, counted in the topic's best passage (`rerankByPassage`); prefix: prefix
 * expansion of the last word; fieldWeights: title/meta/path/key boosts (off: every field weighs 1);
 * questionDates: topics dated near a day the question names raised;
 * pathMatch: a query word in the topic's path scored once more on its own (search.ts); neighbours: the
 * query words' word-vector neighbours added with a low weight (search.ts, word-neighbours.ts);
 * timeWords: for a question that asks when, a topic's passage score × (1 + 0.5 × the coverage of its
 * best passage with a time word in it) (passages.ts).
 */
export type RankingSwitches = Partial<Record<RankingFeature | OptionalRankingFeature, boolean>>;

/** `search` options for the ranking switches: the default ranking when all are on. */
function rankingSearchOptions(ranking: RankingSwitches | undefined): SearchOptions {
  const table = ranking?.neighbours === true ? shippedWordNeighbours() : undefined;
  // Coordination is counted over the best passage in the re-ranking (`rerankByPassage`), not over the whole topic in `search`.
  const base = { coordination: 0, ...(table === undefined ? {} : { neighbours: { table } }) };
  if (!ranking) return base;
  return {
    ...base,
    ...(ranking.feedback === false ? { feedback: false } : {}),
    ...(ranking.questionFrames === false ? { question: false } : {}),
    ...(ranking.prefix === false ? { prefix: false } : {}),
    ...(ranking.pathMatch === false ? { pathMatch: 0 } : {}),
    ...(ranking.fieldWeights === false ? { fields: { title: 1, path: 1, meta: 1, key: 1, body: 1 } } : {}),
  };
}

export interface MatchedDoc {
  /** The topic's file in the context tree (ByteRover's shape), e.g. `security/auth.html`. */
  path: string;
  topicPath: string;
  title: string;
  /** Relevance in (0, 1): BM25F score s as s / (1 + s), rounded to 4 places. */
  score: number;
  format: 'html';
  rendered_md: string;
  /** Why it matched: the query words found, and the fields they were found in. */
  matched: { terms: string[]; fields: string[] };
}

export interface IndexInfo {
  tree: string | undefined;
  build: IndexBuild;
  buildMs: number;
  changedTopics: number;
  /** Topics parsed from HTML to build the index (cache misses), and taken from the per-blob cache. */
  parsedTopics: number;
  cachedTopics: number;
  /** Blobs at topic paths left out of the index (too large, too deep, not a topic, a path named twice): `skippedTopics()` lists them. */
  skippedTopics: number;
  /** Segments the index is stacked from: 1 after a full build or a compaction, one more per incremental update. */
  segments: number;
  /**
   * 'due': the stack is past the compaction threshold; this query answered from it as it is (exact,
   * a few more segments to read) and compaction runs off the query path (`brv maintenance`, which
   * the CLI starts in the background). 'inline': so far past due that this query compacted it.
   */
  compaction: IndexCompaction;
}

export interface QueryResult {
  status: 'ok' | 'no-matches';
  matchedDocs: MatchedDoc[];
  metadata: {
    cacheHit: null;
    durationMs: number;
    skippedSharedCount: number;
    tier: 2;
    topScore: number;
    totalFound: number;
    /** No score cutoff is applied: every match up to `limit` is returned. */
    filtered: false;
    /** Blobs at topic paths the index leaves out (see `IndexInfo.skippedTopics`). */
    skippedTopics: number;
    commit: string | undefined;
    index: IndexInfo;
    /** Present when hybrid retrieval was asked for; `score` is then the fusion score scaled to (0, 1]. */
    hybrid?: HybridInfo;
  };
}

export interface SearchResultItem {
  path: string;
  topicPath: string;
  title: string;
  score: number;
  excerpt: string;
  matched: { terms: string[]; fields: string[] };
}

/** `brv search`'s answer for one tree. */
export interface SearchResult {
  /**
   * ByteRover's `brv search` JSON carries `status: 'completed'` on every answer, matches or none
   * (reference/brv-spec.md §3.3), so scripts written for it keep working; `results` says whether
   * anything matched.
   */
  status: 'completed';
  results: SearchResultItem[];
  totalFound: number;
  skippedTopics: number;
  commit: string | undefined;
  index: IndexInfo;
  hybrid?: HybridInfo;
}

function checkQuestion(question: string): string {
  const text = question.trim();
  if (!text) throw new BrvError('missing-query', 'Say what to look for: brv query "<question>".');
  if (text.length > MAX_QUESTION_LENGTH)
    throw new BrvError('too-large', `The question is over ${MAX_QUESTION_LENGTH} characters; ask something shorter.`);
  return text;
}

function clampLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(MAX_LIMIT, Math.floor(limit)));
}

const normalized = (score: number) => Math.round((score / (1 + score)) * 10000) / 10000;

function filters(options: QueryOptions) {
  for (const [name, value] of [
    ['since', options.since],
    ['until', options.until],
  ] as const) {
    if (value !== undefined && !isCalendarDay(value))
      throw new BrvError('invalid-date', `--${name} takes a day of the calendar as YYYY-MM-DD, not "${value}".`);
  }
  const kinds = options.kinds?.map((k) => (k.startsWith('bv-') ? k : `bv-${k}`).toLowerCase());
  return { kinds, since: options.since, until: options.until };
}

/**
 * Ranked hits and their rendered markdown. Every index file is checked as it is read; a damaged one
 * (found only when its text is read) is answered by building the tree's index again, once.
 */
async function rankedAndRendered(indexes: TreeIndexStore, snapshot: Snapshot, question: string, limit: number, options: QueryOptions) {
  const tree = snapshot.commit?.tree;
  mark('query: modules loaded');
  let index = await indexes.open(tree, { onProgress: options.onProgress, scan: options.scan === true && !options.hybrid });
  mark('query: index opened');
  const answer = async () => {
    const result = search(index.stack, question, {
      ...rankingSearchOptions(options.ranking),
      limit,
      scope: options.scope?.replace(/\/+$/, '') || undefined,
      ...filters(options),
    });
    mark('query: searched');
    return { hits: result.hits, totalFound: result.totalFound, rendered: await renderedHits(indexes, index, result.hits) };
  };
  let found;
  try {
    found = await answer();
  } catch (error) {
    if (!(error instanceof BrvError && error.kind === 'index-corrupt')) throw error;
    index = await indexes.open(tree, { rebuild: true });
    found = await answer();
  }
  const info: IndexInfo = {
    tree: index.tree,
    build: index.build,
    buildMs: Math.round(index.buildMs * 10) / 10,
    changedTopics: index.changedTopics,
    parsedTopics: index.parsedTopics,
    cachedTopics: index.cachedTopics,
    skippedTopics: index.skipped.length,
    segments: index.stack.segments.length,
    compaction: index.compaction,
  };
  return { ...found, info, index };
}

/** Where the live topic at `path` is: the newest segment holding it undeleted (segment -1: none). */
function liveDocument(stack: SegmentStack, path: string): { segment: number; doc: number } {
  const view = liveView(stack);
  for (let s = stack.segments.length - 1; s >= 0; s--) {
    const doc = stack.segments[s]!.findPath(path);
    if (doc >= 0 && view.dead[s]?.[doc] !== 1) return { segment: s, doc };
  }
  return { segment: -1, doc: -1 };
}

/** The pre-rendered markdown and plain text of each hit, read from the docstore of the segment that holds it live. */
async function renderedHits(indexes: TreeIndexStore, index: TreeIndex, hits: readonly SearchHit[]) {
  const locations = hits.map((hit) => liveDocument(index.stack, hit.path));
  const texts = await indexes.rendered(
    index,
    locations.filter((l) => l.segment >= 0),
  );
  let next = 0;
  return hits.map((hit, i) => ({ hit, ...(locations[i]!.segment >= 0 ? texts[next++]! : { markdown: '', text: '' }) }));
}

/** Candidates re-ranked by passage evidence; LoCoMo sessions: MRR 0.817 → 0.834 at weight 1 (docs/decisions/0007-ranking-features.md). */
const PASSAGE_POOL = 20;
const PASSAGE_WEIGHT = 1;
/**
 * timeWords: weight chosen on the tune halves among 0.2, 0.3 and 0.5 (docs/archive/bench-notebook-2026.md, "Issue 12: ranking,
 * round 3"), where it cost a question of haystack temporal recall and stayed off; with neighbours on it raises
 * temporal MRR on every LoCoMo corpus on both halves, costs no category more than a question, and leaves
 * coding unchanged (round 7).
 */
const TIME_WEIGHT = 0.5;

/**
 * questionDates: a question that names a day ("What did Maria do on May 3, 2023?") raises the
 * topics dated (bv-timestamp, `<time>`) on that day ×2, falling to ×1 at 7 days away. Chosen on the
 * tune halves among weights 0.5 / 1 and windows 1 / 3 / 7 days, held on validate (no figure of any
 * category lower on either half; docs/archive/bench-notebook-2026.md, "Issue 12: ranking, round 3"). A month ("in May
 * 2023") as a span of days was tried and dropped (haystack temporal srec@5 −0.6 on tune).
 */
const DATE_WEIGHT = 1;
const DATE_WINDOW = 7;

/**
 * coordination: × (matched / question terms) ^ 0.5, the terms counted in the topic's best passage (at
 * least half a term, as a topic found only through feedback terms counts in search.ts). Counted over
 * the whole topic (search.ts' `coordination`, the default until 2026-12-06) it helped short topics and
 * cost long documents, a 9,000-word manual holding most of a question's words somewhere; counted in the
 * best passage it helps LoCoMo turns and costs no corpus (docs/decisions/0012-ranking-three-corpora.md).
 */
const COORDINATION = 0.5;
const COORDINATION_FLOOR = 0.5;

/** The dates of the live topic at `path`. */
function topicDates(stack: SegmentStack, path: string): string[] {
  const { segment, doc } = liveDocument(stack, path);
  return segment < 0 ? [] : stack.segments[segment]!.doc(doc).dates;
}

/**
 * The candidates re-ranked by their best passage's coverage of the question (passages, coordination), by how
 * close their dates are to a day the question names (questionDates), and for a question that asks
 * when, by their best passage with a time word (timeWords).
 */
function rerankByPassage<T extends { hit: SearchHit; markdown: string }>(
  rendered: T[],
  question: string,
  options: QueryOptions,
  stack: SegmentStack,
): T[] {
  const ranking = options.ranking;
  const passages = ranking?.passages !== false;
  const spans = ranking?.questionDates !== false ? questionDays(question) : [];
  if (!passages && ranking?.coordination === false && spans.length === 0) return rendered;
  const terms = new Set(analyze(question));
  const coordination = ranking?.coordination !== false && terms.size > 0;
  const timed = passages && ranking?.timeWords !== false && asksWhen(question);
  return rendered
    .map((r, order) => {
      const best = passages || coordination ? bestPassage(r.markdown, terms, timed) : { coverage: 0, timedCoverage: 0 };
      const coordinated = coordination ? Math.pow(Math.max(best.coverage, COORDINATION_FLOOR / terms.size), COORDINATION) : 1;
      const passage = passages ? 1 + PASSAGE_WEIGHT * best.coverage : 1;
      const dated = spans.length > 0 ? 1 + DATE_WEIGHT * dateCloseness(topicDates(stack, r.hit.path), spans, DATE_WINDOW) : 1;
      return { r, order, score: r.hit.score * coordinated * passage * (1 + TIME_WEIGHT * best.timedCoverage) * dated };
    })
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ r, score }) => ({ ...r, hit: { ...r.hit, score } }));
}

type Rendered = { hit: SearchHit; markdown: string; text: string };

/** The lexical candidates re-ranked by passage, fused with the dense ranking when hybrid is asked for, cut to `limit`. */
async function finalRanking(
  indexes: TreeIndexStore,
  found: { rendered: Rendered[]; totalFound: number; index: TreeIndex },
  question: string,
  limit: number,
  options: QueryOptions,
): Promise<{ rendered: Rendered[]; totalFound: number; hybrid?: HybridInfo }> {
  const lexical = rerankByPassage(found.rendered, question, options, found.index.stack);
  if (!options.hybrid) return { rendered: lexical.slice(0, limit), totalFound: found.totalFound };
  const start = monotonicNow();
  const stats: DenseStats = { embeddedTopics: 0, cachedTopics: 0, requests: 0 };
  const info = (ran: boolean, denseOnly: number, fallback?: HybridInfo['fallback']): HybridInfo => ({
    ran,
    ...stats,
    denseMs: Math.round((monotonicNow() - start) * 10) / 10,
    denseOnly,
    ...(fallback ? { fallback } : {}),
  });
  try {
    const fused = await fuseDense(indexes, found.index, question, lexical, limit, options, options.hybrid, stats);
    return { rendered: fused.rendered, totalFound: found.totalFound + fused.denseOnly, hybrid: info(true, fused.denseOnly) };
  } catch (error) {
    // A query never fails because the embedding provider is down: the lexical ranking, and why.
    if (!(error instanceof BrvError)) throw error;
    return {
      rendered: lexical.slice(0, limit),
      totalFound: found.totalFound,
      hybrid: info(false, 0, { error: error.kind, message: error.message }),
    };
  }
}

async function fuseDense(
  indexes: TreeIndexStore,
  index: TreeIndex,
  question: string,
  lexical: Rendered[],
  limit: number,
  options: QueryOptions,
  hybrid: HybridOptions,
  stats: DenseStats,
): Promise<{ rendered: Rendered[]; denseOnly: number }> {
  const { denseSearch } = await import('./dense.js');
  const depth = Math.max(limit, hybrid.depth ?? lexical.length);
  const dense = await denseSearch(
    indexes,
    index,
    question,
    hybrid.source,
    { scope: options.scope?.replace(/\/+$/, '') || undefined, ...filters(options) },
    depth,
  );
  Object.assign(stats, dense.stats);
  const fusion = hybrid.fusion ?? DEFAULT_FUSION;
  const fused = reciprocalRankFusion(
    lexical.slice(0, depth).map((r) => r.hit.path),
    dense.hits.map((h) => h.path),
    fusion,
  ).slice(0, limit);
  const byPath = new Map(lexical.map((r) => [r.hit.path, r]));
  const denseByPath = new Map(dense.hits.map((h) => [h.path, h]));
  const best = bestFusedScore(fusion);
  const hits: SearchHit[] = fused.map(({ key, score }) => {
    const lexicalHit = byPath.get(key)?.hit;
    const denseHit = denseByPath.get(key)!;
    return lexicalHit
      ? { ...lexicalHit, score: score / best }
      : { path: key, title: denseHit.title, blob: denseHit.blob, score: score / best, matched: { terms: [], fields: [] } };
  });
  const denseOnly = hits.filter((h) => !byPath.has(h.path));
  const denseRendered = new Map((await renderedHits(indexes, index, denseOnly)).map((r) => [r.hit.path, r]));
  return {
    rendered: hits.map((hit) => {
      const { markdown, text } = byPath.get(hit.path) ?? denseRendered.get(hit.path) ?? { markdown: '', text: '' };
      return { hit, markdown, text };
    }),
    denseOnly: denseOnly.length,
  };
}

/** `brv query`: ranked topics rendered for an agent, in ByteRover's tool-mode JSON shape. */
export async function queryTopics(
  indexes: TreeIndexStore,
  snapshot: Snapshot,
  question: string,
  options: QueryOptions = {},
): Promise<QueryResult> {
  const start = monotonicNow();
  const text = checkQuestion(question);
  const limit = clampLimit(options.limit, 10);
  // Re-rank a few more candidates than asked for by their best passage (see passages.ts).
  const found = await rankedAndRendered(indexes, snapshot, text, Math.max(limit, PASSAGE_POOL), options);
  const { info } = found;
  const { rendered, totalFound, hybrid } = await finalRanking(indexes, found, text, limit, options);
  const matchedDocs: MatchedDoc[] = rendered.map(({ hit, markdown }) => ({
    path: `${hit.path}.html`,
    topicPath: hit.path,
    title: hit.title,
    score: hybrid?.ran ? Math.round(hit.score * 10000) / 10000 : normalized(hit.score),
    format: 'html',
    rendered_md: markdown,
    matched: { terms: hit.matched.terms, fields: hit.matched.fields },
  }));
  mark('query: rendered');
  return {
    status: matchedDocs.length > 0 ? 'ok' : 'no-matches',
    matchedDocs,
    metadata: {
      cacheHit: null,
      durationMs: Math.round(monotonicNow() - start),
      skippedSharedCount: 0,
      tier: 2,
      topScore: matchedDocs[0]?.score ?? 0,
      totalFound,
      filtered: false,
      skippedTopics: info.skippedTopics,
      commit: snapshot.commit?.oid,
      index: info,
      ...(hybrid ? { hybrid } : {}),
    },
  };
}

/** `brv search`: paths, titles, scores and a short excerpt around the matched words. */
export async function searchTopics(
  indexes: TreeIndexStore,
  snapshot: Snapshot,
  question: string,
  options: QueryOptions = {},
): Promise<SearchResult> {
  const text = checkQuestion(question);
  const limit = clampLimit(options.limit, 10);
  const found = await rankedAndRendered(indexes, snapshot, text, Math.max(limit, PASSAGE_POOL), options);
  const { info } = found;
  const { rendered, totalFound, hybrid } = await finalRanking(indexes, found, text, limit, options);
  const results: SearchResultItem[] = rendered.map(({ hit, text }) => ({
    path: `${hit.path}.html`,
    topicPath: hit.path,
    title: hit.title,
    score: hybrid?.ran ? Math.round(hit.score * 10000) / 10000 : normalized(hit.score),
    excerpt: excerpt(text, hit.matched.terms),
    matched: { terms: hit.matched.terms, fields: hit.matched.fields },
  }));
  return {
    status: 'completed',
    results,
    totalFound,
    skippedTopics: info.skippedTopics,
    commit: snapshot.commit?.oid,
    index: info,
    ...(hybrid ? { hybrid } : {}),
  };
}

const EXCERPT_LENGTH = 160;

/** The window of a topic's plain text (src/topic/plain-text.ts) around the first matched word (or its stem-length prefix). */
export function excerpt(body: string, terms: readonly string[]): string {
  const lower = body.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const probe = term.toLowerCase().slice(0, Math.max(4, Math.min(term.length, 6)));
    const found = probe ? lower.indexOf(probe) : -1;
    if (found >= 0 && (at < 0 || found < at)) at = found;
  }
  // The window's ends at spaces where one is near: a path or identifier at an edge is not cut.
  const match = at < 0 ? 0 : at;
  let start = Math.max(0, match - 40);
  if (start > 0 && body[start - 1] !== ' ') {
    const back = body.lastIndexOf(' ', start);
    const forward = body.indexOf(' ', start);
    if (back >= 0 && start - back <= 24) start = back + 1;
    else if (forward >= 0 && forward < match) start = forward + 1;
  }
  let end = Math.min(body.length, start + EXCERPT_LENGTH);
  if (end < body.length && body[end] !== ' ') {
    const cut = body.lastIndexOf(' ', end);
    if (cut > start + EXCERPT_LENGTH / 2) end = cut;
  }
  const slice = body.slice(start, end).trim();
  return `${start > 0 ? '…' : ''}${slice}${end < body.length ? '…' : ''}`;
}
