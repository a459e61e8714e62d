import { analyzeWithOriginals, isStopWord, words } from '../index/analyze.js';
import { FIELD_COUNT as FIELD_COUNT_EXPORT, FIELDS, type FieldName } from '../index/fields.js';
import { documentTerms } from './feedback.js';
import { questionWords } from './question.js';
import type { Segment } from '../index/segment.js';
import { liveView, type SegmentStack } from '../index/stack.js';
import type { WordNeighbourTable } from './word-neighbours.js';

// A local copy: hot loops read it per posting, and a module binding can cost a getter call under loaders.
const FIELD_COUNT: number = FIELD_COUNT_EXPORT;
const PATH_FIELD: number = FIELDS.indexOf('path');

/**
 * BM25F over a stack of segments (Robertson & Zaragoza's simple BM25F: per-field length-normalised
 * frequencies, weighted and summed, then one saturation per term), with exact statistics over the
 * live documents, a coordination factor for multi-word queries, prefix expansion of the last word,
 * questions' framing words left out (question.ts), and pseudo-relevance feedback (`FeedbackOptions`).
 */

const DEFAULT_FIELD_WEIGHTS: Readonly<Record<FieldName, number>> = { title: 3, path: 1.5, meta: 2, key: 1.5, body: 1 };

export interface SearchOptions {
  /** Hits to return (default 10). `totalFound` counts them all. */
  readonly limit?: number;
  /** Only topics at or below this path (`auth` matches `auth` and `auth/…`, not `authz/…`). */
  readonly scope?: string;
  /** Field weights, merged over `DEFAULT_FIELD_WEIGHTS`; 0 ignores a field. */
  readonly fields?: Partial<Record<FieldName, number>>;
  /** BM25 term-frequency saturation (default 1.2). */
  readonly k1?: number;
  /** BM25 length normalisation per field, 0 … 1 (default 0.75 for every field). */
  readonly b?: Partial<Record<FieldName, number>>;
  /** Score multiplier = (matched query terms / query terms) ^ coordination (default 0.5; 0 disables). */
  readonly coordination?: number;
  /**
   * A query word found in the topic's path scores once more, saturated on its own: + pathMatch ×
   * idf × tf / (k1 + tf) over the path field alone (default 1; 0 disables). See `DEFAULT_PATH_MATCH`.
   */
  readonly pathMatch?: number;
  /** Expand the last query word as a prefix when it has no exact match (default true). */
  readonly prefix?: boolean;
  /** Drop the words that only frame a question ("kind" in "what kind of", "long" in "how long"; default true). */
  readonly question?: boolean;
  /** Keep topics that contain at least one of these bv-* elements. */
  readonly kinds?: readonly string[];
  /** Keep topics with a date (bv-timestamp, `<time>`) on or after / on or before these YYYY-MM-DD days. */
  readonly since?: string;
  readonly until?: string;
  /** Pseudo-relevance feedback: expand the query with terms of its top hits (default on; false disables). */
  readonly feedback?: Partial<FeedbackOptions> | boolean;
  /** Word-vector neighbours of the query words, from this table (`NeighbourOptions`; none without a table). */
  readonly neighbours?: { readonly table: WordNeighbourTable } & Partial<NeighbourOptions>;
}

/**
 * Word-vector neighbours: each query word brings in up to `perWord` of its nearest words in GloVe's
 * vector space (word-neighbours.ts) that occur in the tree and are not query words, each as an uncounted
 * term weighing `weight` × cosine of a query word — the vocabulary gap a question leaves ("pets" for a
 * topic about a cat, "instruments" for one about a violin) bridged before feedback learns from the hits.
 * A topic matched only through them counts like one matched through feedback terms. Chosen on the tune
 * halves among weights 0.05–0.5, 3 or 5 per word, cosine ≥ 0.6 or 0.7, and held on the validate halves
 * on all four corpora (docs/archive/bench-notebook-2026.md, "Issue 12: ranking, round 6" and "round 7").
 */
export interface NeighbourOptions {
  /** Weight of a neighbour relative to a query word's 1, times its cosine (default 0.1). */
  readonly weight: number;
  /** Neighbours per query word at most (default 3). */
  readonly perWord: number;
  /** Least cosine (default 0.6; the table holds none below). */
  readonly minCosine: number;
}

const DEFAULT_NEIGHBOURS: Readonly<NeighbourOptions> = { weight: 0.1, perWord: 3, minCosine: 0.6 };
/**
 * A neighbour in more than a tenth of the topics (and more than 50) is skipped: it tells little about any
 * of them and has the longest postings to score, which a fresh process does unoptimised (+10 ms a query
 * at 10,000 topics without the cap, +2.5 with it; quality unchanged on both halves, docs/archive/bench-notebook-2026.md,
 * "Issue 12: ranking, round 7"). A tree of 50 topics or fewer keeps every neighbour.
 */
const NEIGHBOUR_MAX_DF_RATIO = 0.1;
const NEIGHBOUR_MAX_DF_FLOOR = 50;

/**
 * Pseudo-relevance feedback (RM3; Lavrenko & Croft's relevance model, interpolated with the query as
 * in Abdul-Jaleel et al. 2004): the top hits of a first pass are taken as relevant, their terms are
 * weighted by how much of each hit they make up (each hit counting by its score), and the best of
 * them (that weight × idf) join the query with a low total weight. Questions name the thing asked
 * about in other words than the knowledge that answers it ("What does Melanie do to destress?" —
 * "running", "pottery"); the hits the question does find carry the words of the others. A topic
 * found only through expansion terms is scored like one matching half a query word (coordination),
 * so it follows the topics that match the question itself.
 */
export interface FeedbackOptions {
  /** Top hits of the first pass to take terms from (default 10)… */
  readonly docs: number;
  /** …and at most this fraction of the topics (default 0.02: none under 50 topics). In a small tree the top hits are not a relevant set but much of the tree. */
  readonly docsRatio: number;
  /** Expansion terms added (default 10). */
  readonly terms: number;
  /** Their total weight relative to the query words' (each word weighs 1; default 1, RM3's λ = 0.5). */
  readonly weight: number;
  /** Expansion terms occur in at most this fraction of the topics (default 0.1), and in 2 or more. */
  readonly maxDfRatio: number;
  /**
   * No expansion when the hits it would learn from are longer than this on average, in field-weighted
   * words (default 150). A one-fact note is about one thing, so its words describe what it answers; a
   * longer topic (a chat session, a rule with its reasons, a runbook) is about several, and the words it
   * is made of most are its own subject's, not the question's. Measured (docs/archive/bench-notebook-2026.md, "Issue 12:
   * the decisions"): LoCoMo turns (hits ~80 weighted words) gain 2–4 points of recall from feedback;
   * coding-corpus notes (~120–300) lose MRR with it, LoCoMo sessions (~770) lose MRR and recall. 150
   * was chosen on the tune halves and held on the validate halves.
   */
  readonly maxMeanLength: number;
}

const DEFAULT_FEEDBACK: Readonly<FeedbackOptions> = {
  docs: 10,
  docsRatio: 0.02,
  terms: 10,
  weight: 1,
  maxDfRatio: 0.1,
  maxMeanLength: 150,
};
/** An expansion term in fewer topics brings no other topic in. */
const FEEDBACK_MIN_DF = 2;
/**
 * √(matched / words): 1 (the linear factor) over-rewarded topics that match a question's generic words
 * too; 0.5 was chosen on the tune halves (LoCoMo turns R@5 +0.6, coding MRR +.007, sessions ±.001) and
 * held on validate (turns R@10 +1.2, coding and sessions within ±.002).
 */
const DEFAULT_COORDINATION = 0.5;
/**
 * A topic's path is its name in the tree (`caching/redis-cache`): a query word there says what the
 * topic is about, where the same word in a long body may be a passing mention. BM25F sums a word's
 * fields before one saturation, so a path match adds little to a topic whose body already has the
 * word, and several generic words spread over a long body ("new", "data", "before") outscore the one
 * word that names the topic. Scoring the path once more on its own, as per-field BM25 (Lunr) does for
 * every field, gives the name its weight back. Weight chosen on the tune halves among 0.5 / 0.75 / 1 /
 * 1.5 / 2 (and title, title + path, title-field idf variants; docs/archive/bench-notebook-2026.md, "Issue 12: ranking,
 * round 4"): coding MRR .845 → .853, figures below plain BM25 10 → 6; held on validate.
 */
const DEFAULT_PATH_MATCH = 1;
/** Coordination credit, in query words, of a topic that only expansion terms match. */
const FEEDBACK_ONLY_MATCH = 0.5;

function feedbackOptions(option: SearchOptions['feedback']): FeedbackOptions | undefined {
  if (option === false) return undefined;
  return option === undefined || option === true ? DEFAULT_FEEDBACK : { ...DEFAULT_FEEDBACK, ...option };
}

export interface SearchHit {
  readonly path: string;
  readonly title: string;
  readonly blob: string;
  readonly score: number;
  readonly matched: {
    /** The query words (as typed, NFKC-normalised) this topic matched. */
    readonly terms: string[];
    /** The fields they matched in, in `FIELDS` order. */
    readonly fields: FieldName[];
  };
}

export interface SearchResult {
  readonly hits: SearchHit[];
  /** Live topics that matched the query, its words' neighbours or its feedback terms (after scope and filters), however many `limit` returned. */
  readonly totalFound: number;
}

/** Longest prefix expansion, and the cap on distinct query terms (one bit each in a mask). */
const MAX_EXPANSIONS = 64;
const MAX_QUERY_TERMS = 31;
const MIN_PREFIX_LENGTH = 3;
/** A term that is a prefix of the last word counts when it keeps at least this many characters… */
const MIN_STEM_PREFIX_LENGTH = 4;
/** …and drops at most this many (Porter removes suffixes such as "ability", "ation"). */
const MAX_SUFFIX_LENGTH = 6;

interface TermGroup {
  /** Exact term, or the prefix expansions of the last word (scored as their best match). */
  readonly terms: string[];
  readonly originals: string[];
  /** Feedback terms only: their weight relative to a query word (which has 1). */
  readonly weight?: number;
}

interface SegmentScores {
  score: Float64Array;
  matched: Uint32Array;
  fields: Uint8Array;
  seen: Uint8Array;
  touched: number[];
}

export function search(stack: SegmentStack, query: string, options: SearchOptions = {}): SearchResult {
  const limit = Math.max(0, Math.floor(options.limit ?? 10));
  const view = liveView(stack);
  const { segments, dead, liveCount } = view;
  const empty: SearchResult = { hits: [], totalFound: 0 };
  if (liveCount === 0) return empty;

  const groups = queryGroups(query, segments, dead, options.prefix ?? true, options.question ?? true);
  if (groups.length === 0) return empty;

  const weights = { ...DEFAULT_FIELD_WEIGHTS, ...options.fields };
  const weight = Float64Array.from(FIELDS, (f) => Math.max(0, weights[f] ?? 0));
  const b = Float64Array.from(FIELDS, (f) => Math.min(1, Math.max(0, options.b?.[f] ?? 0.75)));
  const average = Float64Array.from(view.fieldTotals, (total) => total / liveCount);
  // Per field: norm = c + d × length, with c = 1 - b and d = b / average length (0 when a field is empty everywhere).
  const c = Float64Array.from(FIELDS, (_, f) => (average[f]! > 0 ? 1 - b[f]! : 1));
  const d = Float64Array.from(FIELDS, (_, f) => (average[f]! > 0 ? b[f]! / average[f]! : 0));
  const run: Run = {
    segments,
    dead,
    liveCount,
    ranges: segments.map((segment) => scopeRange(segment, options.scope)),
    scoring: { weight, c, d, pathMatch: Math.max(0, options.pathMatch ?? DEFAULT_PATH_MATCH) },
    k1: options.k1 ?? 1.2,
    rows: segments.map((segment) => ({
      score: new Float64Array(segment.docCount),
      matched: new Uint32Array(segment.docCount),
      fields: new Uint8Array(segment.docCount),
      seen: new Uint8Array(segment.docCount),
      touched: [],
    })),
    best: [],
  };
  accumulate(run, groups, 0);
  const related = neighbourGroups(run, groups, options.neighbours);
  if (related.length > 0) accumulate(run, related, groups.length);

  const coordination = options.coordination ?? DEFAULT_COORDINATION;
  let ranked = candidates(run, groups.length, coordination, options, related.length > 0 ? FEEDBACK_ONLY_MATCH : 0);
  const feedback = feedbackOptions(options.feedback);
  if (feedback !== undefined && ranked.found > 0) {
    const expansion = expansionGroups(run, groups, ranked, feedback);
    if (expansion.length > 0) {
      accumulate(run, expansion, groups.length);
      ranked = candidates(run, groups.length, coordination, options, FEEDBACK_ONLY_MATCH);
    }
  }
  const found = ranked.found;
  if (limit === 0 || found === 0) return { hits: [], totalFound: found };

  const top = topCandidates(run, ranked, limit);
  const hits = top.map(({ s, doc, score }): SearchHit => {
    const record = segments[s]!.doc(doc);
    const matchedMask = run.rows[s]!.matched[doc]!;
    const fieldMask = run.rows[s]!.fields[doc]!;
    return {
      path: record.path,
      title: record.title,
      blob: record.blob,
      score,
      matched: {
        terms: [...new Set(groups.flatMap((group, g) => ((matchedMask & (1 << g)) !== 0 ? group.originals : [])))],
        fields: FIELDS.filter((_, f) => (fieldMask & (1 << f)) !== 0),
      },
    };
  });
  return { hits, totalFound: found };
}

interface Run {
  readonly segments: readonly Segment[];
  readonly dead: LiveDead;
  readonly liveCount: number;
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  readonly scoring: FieldScoring;
  readonly k1: number;
  readonly rows: SegmentScores[];
  /** A prefix group scores each document by its best expansion, so it needs a scratch row per segment. */
  best: Float64Array[];
}

/**
 * Adds each group's BM25F contribution to the rows. Groups from `firstBit` on are feedback terms:
 * weighted, and not counted as matched query words (no bit, no fields).
 */
function accumulate(run: Run, groups: readonly TermGroup[], firstBit: number): void {
  const { segments, dead, ranges, scoring, k1, rows, liveCount } = run;
  const pathMatch = scoring.pathMatch;
  if (run.best.length === 0 && groups.some((g) => g.terms.length > 1)) run.best = segments.map((s) => new Float64Array(s.docCount));
  const best = run.best;
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g]!;
    const single = group.terms.length === 1;
    const counted = group.weight === undefined;
    const bit = counted ? 1 << (firstBit + g) : 0;
    const groupWeight = group.weight ?? 1;
    for (const term of group.terms) {
      // Pass 1 per segment: decode the postings and each document's weighted, length-normalised
      // frequency, counting live documents for an exact df. Pass 2: saturate with the idf and add.
      let df = 0;
      const scans: Array<TermScan | undefined> = [];
      for (let s = 0; s < segments.length; s++) {
        const segment = segments[s]!;
        const rank = segment.termRank(term);
        if (rank < 0) {
          scans.push(undefined);
          continue;
        }
        const scan = scanPostings(segment, rank, dead[s], ranges[s]!, scoring);
        df += scan.liveDf;
        scans.push(scan);
      }
      if (df === 0) continue;
      const idf = groupWeight * Math.log(1 + (liveCount - df + 0.5) / (df + 0.5));
      for (let s = 0; s < segments.length; s++) {
        const scan = scans[s];
        if (scan) addScores(rows[s]!, scan, idf, k1, pathMatch, bit, counted, single ? undefined : best[s]!);
      }
    }
    if (!single) {
      for (let s = 0; s < segments.length; s++) {
        const row = rows[s]!;
        const scratch = best[s]!;
        for (const doc of row.touched) {
          if (scratch[doc]! === 0) continue;
          row.score[doc]! += scratch[doc]!;
          scratch[doc] = 0;
        }
      }
    }
  }
}

/**
 * One term's saturated contributions added to a segment's row (or, for a prefix group, kept per
 * document in `scratch` when higher). Its own small function: V8 optimises this loop while a query
 * runs, and the compile of a small function is over before the answer (docs/archive/bench-notebook-2026.md, "Warm path,
 * round 3").
 */
function addScores(
  row: SegmentScores,
  scan: TermScan,
  idf: number,
  k1: number,
  pathMatch: number,
  bit: number,
  counted: boolean,
  scratch: Float64Array | undefined,
): void {
  // Locals, not property loads: this runs interpreted for most of a query process (scanPostings).
  const { seen, touched, matched, fields, score } = row;
  const { count, docs, tf: tfs, pathTf: pathTfs, fields: docFields } = scan;
  for (let i = 0; i < count; i++) {
    const doc = docs[i]!;
    const tf = tfs[i]!;
    const pathTf = pathTfs[i]!;
    const contribution = (idf * tf) / (k1 + tf) + (pathTf === 0 ? 0 : (pathMatch * idf * pathTf) / (k1 + pathTf));
    if (seen[doc] === 0) {
      seen[doc] = 1;
      touched.push(doc);
    }
    if (counted) {
      matched[doc]! |= bit;
      fields[doc]! |= docFields[i]!;
    }
    if (scratch === undefined) score[doc]! += contribution;
    else if (contribution > scratch[doc]!) scratch[doc] = contribution;
  }
}

/** The query words' neighbours that occur in the tree (`NeighbourOptions`), as weighted, uncounted groups. */
function neighbourGroups(run: Run, groups: readonly TermGroup[], option: SearchOptions['neighbours']): TermGroup[] {
  if (option === undefined) return [];
  const { table, weight, perWord, minCosine } = { ...DEFAULT_NEIGHBOURS, ...option };
  if (!(weight > 0) || !(perWord >= 1)) return [];
  const taken = new Set(groups.flatMap((g) => g.terms));
  const maxDf = Math.max(NEIGHBOUR_MAX_DF_FLOOR, NEIGHBOUR_MAX_DF_RATIO * run.liveCount);
  const related: TermGroup[] = [];
  for (const group of groups) {
    // A prefix group's word was not finished: its neighbours would be a guess's.
    if (group.terms.length !== 1 || group.weight !== undefined) continue;
    const cosines = new Map<string, number>();
    for (const original of group.originals) {
      for (const { term, cosine } of table.neighbours(words(original)[0] ?? '')) {
        if (cosine >= minCosine && !taken.has(term) && cosine > (cosines.get(term) ?? 0)) cosines.set(term, cosine);
      }
    }
    const best = [...cosines].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
    let added = 0;
    for (const [term, cosine] of best) {
      if (added >= perWord) break;
      const df = liveDf(term, run.segments, run.dead);
      if (df === 0 || df > maxDf) continue;
      taken.add(term);
      related.push({ terms: [term], originals: [], weight: weight * cosine });
      added++;
    }
  }
  return related;
}

/** RM3 expansion terms from the first pass's top hits (see `FeedbackOptions`), weighted; none when feedback cannot apply. */
function expansionGroups(run: Run, groups: readonly TermGroup[], ranked: Candidates, feedback: FeedbackOptions): TermGroup[] {
  const { segments, dead, liveCount } = run;
  const docs = Math.min(Math.floor(feedback.docs), Math.floor(feedback.docsRatio * liveCount));
  const maxDf = Math.floor(feedback.maxDfRatio * liveCount);
  if (docs < 1 || feedback.terms < 1 || !(feedback.weight > 0) || maxDf < FEEDBACK_MIN_DF) return [];
  const top = topCandidates(run, ranked, docs);
  const total = top.reduce((sum, hit) => sum + hit.score, 0);
  if (!(total > 0)) return [];
  const weight = run.scoring.weight;
  const length = (hit: { s: number; doc: number }) => {
    const lengths = segments[hit.s]!.fieldLengthTable();
    let sum = 0;
    for (let f = 0; f < FIELD_COUNT; f++) sum += weight[f]! * lengths[hit.doc * FIELD_COUNT + f]!;
    return sum;
  };
  const meanLength = top.reduce((sum, hit) => sum + length(hit), 0) / top.length;
  if (meanLength > feedback.maxMeanLength) return [];
  // A term below the minimum df in one segment may reach it over several: the live df decides below.
  // (So a stack and one segment over its live topics expand alike, short of a segment over the budget.)
  const minDf = segments.length > 1 ? 1 : FEEDBACK_MIN_DF;
  const query = new Set(groups.flatMap((g) => g.terms));
  const model = new Map<string, number>();
  // Each segment's hits together: one read of its postings for all of them.
  for (let s = 0; s < segments.length; s++) {
    const hits = top.filter((hit) => hit.s === s);
    if (hits.length === 0) continue;
    const segment = segments[s]!;
    // Segment dfs count dead documents too: widen the window by them, the live df decides below.
    const deadMask = dead[s];
    const deadCount = deadMask === undefined ? 0 : deadMask.reduce((n, x) => n + x, 0);
    const vectors = documentTerms(
      segment,
      hits.map((hit) => hit.doc),
      weight,
      minDf,
      maxDf + deadCount,
    );
    hits.forEach((hit, i) => {
      const words = length(hit);
      if (words === 0) return;
      const share = hit.score / total / words;
      const { terms, tf } = vectors[i]!;
      for (let e = 0; e < terms.length; e++) {
        if (tf[e]! === 0) continue;
        const term = segment.term(terms[e]!);
        if (!query.has(term)) model.set(term, (model.get(term) ?? 0) + share * tf[e]!);
      }
    });
  }
  const scored: Array<{ term: string; weight: number; select: number }> = [];
  for (const [term, p] of model) {
    const df = liveDf(term, segments, dead);
    if (df < FEEDBACK_MIN_DF || df > maxDf) continue;
    scored.push({ term, weight: p, select: p * Math.log(1 + (liveCount - df + 0.5) / (df + 0.5)) });
  }
  scored.sort((x, y) => y.select - x.select || (x.term < y.term ? -1 : x.term > y.term ? 1 : 0));
  const chosen = scored.slice(0, Math.floor(feedback.terms));
  const sum = chosen.reduce((acc, t) => acc + t.weight, 0);
  const mass = feedback.weight * groups.length;
  return chosen.map((t) => ({ terms: [t.term], originals: [], weight: (mass * t.weight) / sum }));
}

interface Candidates {
  readonly found: number;
  readonly segment: Uint16Array;
  readonly doc: Uint32Array;
  readonly score: Float64Array;
}

/**
 * Every touched document that passes the filters, scored with coordination over the query's own
 * words: × (matched / words) ^ coordination. A document found only through feedback terms counts
 * as matching `floor` words.
 */
function candidates(run: Run, queryGroups: number, coordination: number, options: SearchOptions, floor = 0): Candidates {
  const { rows, segments } = run;
  const total = rows.reduce((sum, row) => sum + row.touched.length, 0);
  const segment = new Uint16Array(total);
  const doc = new Uint32Array(total);
  const score = new Float64Array(total);
  const filter = needsDocumentFilter(options);
  let found = 0;
  for (let s = 0; s < rows.length; s++) {
    const { touched, matched: matchedBits, score: rowScore } = rows[s]!;
    for (let t = 0; t < touched.length; t++) {
      const d = touched[t]!;
      if (filter && !keepDocument(segments[s]!, d, options)) continue;
      const matched = Math.max(floor, popcount(matchedBits[d]!));
      if (matched === 0) continue;
      segment[found] = s;
      doc[found] = d;
      score[found] =
        matched === queryGroups || coordination === 0 ? rowScore[d]! : rowScore[d]! * Math.pow(matched / queryGroups, coordination);
      found++;
    }
  }
  return { found, segment, doc, score };
}

/** The top `limit` candidates by score, ties broken by path. */
function topCandidates(run: Run, ranked: Candidates, limit: number): Array<{ s: number; doc: number; score: number; path: string }> {
  const { found } = ranked;
  const threshold = kthLargest(ranked.score, found, Math.min(limit, found));
  const top: Array<{ s: number; doc: number; score: number; path: string }> = [];
  for (let i = 0; i < found; i++) {
    if (ranked.score[i]! < threshold) continue;
    const s = ranked.segment[i]!;
    const doc = ranked.doc[i]!;
    top.push({ s, doc, score: ranked.score[i]!, path: run.segments[s]!.path(doc) });
  }
  top.sort((x, y) => y.score - x.score || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  top.length = Math.min(top.length, limit);
  return top;
}

interface FieldScoring {
  readonly weight: Float64Array;
  readonly c: Float64Array;
  readonly d: Float64Array;
  /** `SearchOptions.pathMatch`: the path field's own saturated score is added × this (0: not computed). */
  readonly pathMatch: number;
}

interface TermScan {
  /** Live documents containing the term (scope ignored): its share of the exact df. */
  readonly liveDf: number;
  /** Documents to score (live, in scope, weighted frequency > 0): `count` entries of each array. */
  readonly count: number;
  readonly docs: Uint32Array;
  readonly tf: Float64Array;
  /** The path field's length-normalised frequency alone (unweighted; all 0 when pathMatch is off). */
  readonly pathTf: Float64Array;
  readonly fields: Uint8Array;
}

/**
 * Decodes one term's postings straight from the segment bytes (no intermediate arrays) and computes
 * BM25F's weighted, length-normalised frequency per document. One fused, allocation-light loop
 * matters because every `brv query` is a fresh process running this code before V8 optimises it.
 */
function scanPostings(
  segment: Segment,
  rank: number,
  dead: Uint8Array | undefined,
  range: readonly [number, number],
  scoring: FieldScoring,
): TermScan {
  const lengths = segment.fieldLengthTable();
  const [from, to] = range;
  const { weight, c, d } = scoring;
  const pathMatch = scoring.pathMatch > 0;
  const w0 = weight[0]!,
    w1 = weight[1]!,
    w2 = weight[2]!,
    w3 = weight[3]!,
    w4 = weight[4]!;
  const c0 = c[0]!,
    c1 = c[1]!,
    c2 = c[2]!,
    c3 = c[3]!,
    c4 = c[4]!;
  const d0 = d[0]!,
    d1 = d[1]!,
    d2 = d[2]!,
    d3 = d[3]!,
    d4 = d[4]!;
  // The posting format (segment.ts) decoded inline, state in locals: this loop runs in V8's
  // interpreter for most of a fresh process's first query, where a method call per posting and per
  // field frequency cost more than the decoding (docs/archive/bench-notebook-2026.md, "Warm path, round 3").
  const bytes = segment.bytes;
  let pos = segment.postingsOffset(rank);
  let byte = bytes[pos++]!;
  let df = byte & 0x7f;
  for (let shift = 128; byte >= 0x80; shift *= 128) {
    byte = bytes[pos++]!;
    df += (byte & 0x7f) * shift;
  }
  const docs = new Uint32Array(df);
  const tfs = new Float64Array(df);
  const fields = new Uint8Array(df);
  const pathTfs = new Float64Array(df);
  let count = 0;
  let liveDf = 0;
  let doc = 0;
  for (let i = 0; i < df; i++) {
    byte = bytes[pos++]!;
    let delta = byte & 0x7f;
    for (let shift = 128; byte >= 0x80; shift *= 128) {
      byte = bytes[pos++]!;
      delta += (byte & 0x7f) * shift;
    }
    doc += delta;
    const mask = bytes[pos++]!;
    // Frequencies of the fields in `mask`, in field order; usually one byte each.
    const at = doc * FIELD_COUNT;
    let tf = 0;
    let pathTf = 0;
    let bits = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      if ((mask & (1 << f)) === 0) continue;
      byte = bytes[pos++]!;
      let freq = byte & 0x7f;
      for (let shift = 128; byte >= 0x80; shift *= 128) {
        byte = bytes[pos++]!;
        freq += (byte & 0x7f) * shift;
      }
      const w = f === 0 ? w0 : f === 1 ? w1 : f === 2 ? w2 : f === 3 ? w3 : w4;
      if (w === 0) continue;
      const length = lengths[at + f]!;
      const norm =
        f === 0
          ? c0 + d0 * length
          : f === 1
            ? c1 + d1 * length
            : f === 2
              ? c2 + d2 * length
              : f === 3
                ? c3 + d3 * length
                : c4 + d4 * length;
      tf += (w * freq) / norm;
      if (f === PATH_FIELD && pathMatch) pathTf = freq / norm;
      bits |= 1 << f;
    }
    if (dead !== undefined && dead[doc] === 1) continue;
    liveDf++;
    if (tf === 0 || doc < from || doc >= to) continue;
    docs[count] = doc;
    tfs[count] = tf;
    pathTfs[count] = pathTf;
    fields[count] = bits;
    count++;
  }
  if (df > 0 && doc >= segment.docCount) throw new RangeError(`a posting of term ${rank} names document ${doc}, beyond the segment`);
  return { liveDf, count, docs, tf: tfs, pathTf: pathTfs, fields };
}

/** Distinct analysed query terms in order; the last word prefix-expanded when it has no exact match. */
function queryGroups(query: string, segments: readonly Segment[], dead: LiveDead, prefix: boolean, question = true): TermGroup[] {
  const analyzed = question ? questionWords(query) : analyzeWithOriginals(query);
  const byTerm = new Map<string, string[]>();
  for (const { term, original } of analyzed) {
    const originals = byTerm.get(term);
    if (originals) {
      if (!originals.includes(original)) originals.push(original);
    } else if (byTerm.size < MAX_QUERY_TERMS) byTerm.set(term, [original]);
  }
  const groups: TermGroup[] = [...byTerm].map(([term, originals]) => ({ terms: [term], originals }));
  if (!prefix) return groups;

  const raw = words(query);
  const last = raw[raw.length - 1];
  if (last === undefined || [...last].length < MIN_PREFIX_LENGTH || isStopWord(last)) return groups;
  const lastTerm = analyzeWithOriginals(last)[0]?.term;
  if (lastTerm === undefined || liveDf(lastTerm, segments, dead) > 0) return groups;
  // Dictionary order, first MAX_EXPANSIONS live terms: the same set whether the stack is one segment or many
  // (short of more than 4 × MAX_EXPANSIONS dead terms under one prefix in a segment).
  // Forward from the word as typed, not its stem: stemming a partial word is arbitrary ("obs" → "ob").
  const expansions = new Set<string>();
  for (const segment of segments) for (const term of segment.termsWithPrefix(last, 4 * MAX_EXPANSIONS)) expansions.add(term);
  const forward = [...expansions]
    .filter((term) => term !== lastTerm)
    .sort(compareUtf8)
    .filter((term) => liveDf(term, segments, dead) > 0);
  // A partial word can run past its word's stem ("observab" of observ-ability, "rotati" of rotat-ion):
  // add the longest live term the word starts with, when it is most of the word.
  const chars = [...last];
  let stem: string | undefined;
  for (let n = chars.length - 1; n >= Math.max(MIN_STEM_PREFIX_LENGTH, chars.length - MAX_SUFFIX_LENGTH) && stem === undefined; n--) {
    const candidate = chars.slice(0, n).join('');
    if (candidate !== lastTerm && liveDf(candidate, segments, dead) > 0) stem = candidate;
  }
  const live = [...new Set([...(stem === undefined ? [] : [stem]), ...forward])].slice(0, MAX_EXPANSIONS);
  if (live.length === 0) return groups;
  const index = groups.findIndex((g) => g.terms[0] === lastTerm);
  const group = { terms: live, originals: index >= 0 ? groups[index]!.originals : [last] };
  if (index >= 0) groups[index] = group;
  else if (groups.length < MAX_QUERY_TERMS) groups.push(group);
  return groups;
}

type LiveDead = ReadonlyArray<Uint8Array | undefined>;

function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function liveDf(term: string, segments: readonly Segment[], dead: LiveDead): number {
  let df = 0;
  segments.forEach((segment, s) => {
    const rank = segment.termRank(term);
    if (rank < 0) return;
    const mask = dead[s];
    if (!mask) {
      df += segment.df(rank);
      return;
    }
    const p = segment.postingsAt(rank);
    for (let i = 0; i < p.df; i++) if (mask[p.docs[i]!] !== 1) df++;
  });
  return df;
}

/** Documents `[from, to)` of a segment inside `scope`; the whole segment without one. */
function scopeRange(segment: Segment, scope: string | undefined): [number, number] {
  const clean = (scope ?? '').replace(/^\/+|\/+$/g, '');
  if (clean === '') return [0, segment.docCount];
  // `scope` itself sorts right before `scope/…` unless a sibling like `scope-x` sits between them;
  // a topic at exactly `scope` and the topics below it are then not contiguous, so take the wider
  // range `[scope, scope/…]` and let `inScope` reject the siblings.
  const exact = segment.lowerBoundPath(clean);
  const [, to] = segment.pathPrefixRange(`${clean}/`);
  return [exact, Math.max(exact, to)];
}

function needsDocumentFilter(options: SearchOptions): boolean {
  return (
    (options.kinds !== undefined && options.kinds.length > 0) ||
    options.since !== undefined ||
    options.until !== undefined ||
    (options.scope ?? '').replace(/^\/+|\/+$/g, '') !== ''
  );
}

function keepDocument(segment: Segment, doc: number, options: SearchOptions): boolean {
  const scope = (options.scope ?? '').replace(/^\/+|\/+$/g, '');
  if (scope !== '') {
    const path = segment.path(doc);
    if (path !== scope && !path.startsWith(`${scope}/`)) return false;
  }
  if ((options.kinds === undefined || options.kinds.length === 0) && options.since === undefined && options.until === undefined)
    return true;
  const record = segment.doc(doc);
  if (options.kinds && options.kinds.length > 0 && !options.kinds.some((k) => record.kinds.includes(k))) return false;
  if (options.since !== undefined || options.until !== undefined) {
    const inRange = record.dates.some(
      (d) => (options.since === undefined || d >= options.since) && (options.until === undefined || d <= options.until),
    );
    if (!inRange) return false;
  }
  return true;
}

/** The k-th largest of `values[0, n)` (1 ≤ k ≤ n), counting repeats: a min-heap of the k largest seen, O(n log k). */
function kthLargest(values: Float64Array, n: number, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    if (size < k) {
      // Sift up.
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= value) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = value;
    } else if (value > heap[0]!) {
      // Replace the minimum and sift down.
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= k) break;
        const right = left + 1;
        const child = right < k && heap[right]! < heap[left]! ? right : left;
        if (heap[child]! >= value) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = value;
    }
  }
  return heap[0]!;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
