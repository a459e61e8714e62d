import type { Segment } from '../index/segment.js';
import { PostingReader } from '../index/posting-reader.js';

/**
 * The terms of a few documents of a segment, for pseudo-relevance feedback. A segment stores
 * postings by term only, so finding a document's terms means reading postings: the first feedback
 * query on a segment reads them for just its documents (one pass, stopping in each term's postings
 * past the last document wanted: what a one-shot `brv query` process pays); a process that asks
 * again inverts the segment once and keeps the vectors with it, so later queries read them directly.
 *
 * Only terms that can be expansion terms are read: in at least `minDf` documents (a term in one
 * document brings no other topic in) and at most `maxDf` (a term in most documents tells none
 * apart). The work is also bounded: when the terms in that window have more than
 * `FEEDBACK_POSTINGS_BUDGET` postings together, the most frequent of them are left out (rarer terms
 * are the better expansion terms), so feedback costs the same however large the tree grows.
 */
export interface DocumentTerms {
  /** Term ranks in the segment. */
  readonly terms: Uint32Array;
  /** Each term's frequency in the document: every field's count times the field's weight. */
  readonly tf: Float32Array;
}

/** Set bits per byte value: the number of frequencies after a posting's field mask. */

/** Postings read per segment at most (a few ms; the cached vectors take ~8 bytes each). */
const FEEDBACK_POSTINGS_BUDGET = 250_000;

interface TermVectors {
  /** Document `d`'s entries are `[start[d], start[d + 1])`. */
  readonly start: Uint32Array;
  readonly terms: Uint32Array;
  readonly tf: Float32Array;
}

/** What a segment keeps for feedback: for the latest window and field weights only (they change with the stack). */
interface SegmentState {
  /** Feedback reads answered without vectors. */
  scans: number;
  window: string;
  ranks: Uint32Array;
  key?: string;
  vectors?: TermVectors;
}

const states = new WeakMap<Segment, SegmentState>();

/** The expansion-candidate terms of each of `docs` (documents of `segment`), in the order given. */
export function documentTerms(
  segment: Segment,
  docs: readonly number[],
  weights: Float64Array,
  minDf: number,
  maxDf: number,
  budget = FEEDBACK_POSTINGS_BUDGET,
): DocumentTerms[] {
  const window = `${minDf}:${maxDf}:${budget}`;
  let state = states.get(segment);
  if (!state || state.window !== window)
    states.set(segment, (state = { scans: state?.scans ?? 0, window, ranks: termsToInvert(segment, minDf, maxDf, budget) }));
  const key = weights.join(',');
  if (state.key !== key) state.vectors = undefined;
  if (!state.vectors && state.scans > 0) {
    state.key = key;
    state.vectors = invert(segment, state.ranks, weights);
  }
  if (state.vectors) {
    const { start, terms, tf } = state.vectors;
    return docs.map((doc) => ({ terms: terms.subarray(start[doc]!, start[doc + 1]!), tf: tf.subarray(start[doc]!, start[doc + 1]!) }));
  }
  state.scans++;
  return scan(segment, state.ranks, weights, docs);
}

/** The terms to invert: df within [minDf, maxDf], lowering maxDf until their postings fit the budget. */
function termsToInvert(segment: Segment, minDf: number, maxDf: number, budget: number): Uint32Array {
  const reader = new PostingReader(segment);
  const dfs = new Uint32Array(segment.termCount);
  let total = 0;
  for (let rank = 0; rank < segment.termCount; rank++) {
    const df = reader.start(rank);
    dfs[rank] = df;
    if (df >= minDf && df <= maxDf) total += df;
  }
  let cutoff = maxDf;
  if (total > budget) {
    // Postings per df value (df ≤ maxDf), then drop the highest df values until the rest fits.
    const byDf = new Float64Array(maxDf + 1);
    for (let rank = 0; rank < dfs.length; rank++) {
      const df = dfs[rank]!;
      if (df >= minDf && df <= maxDf) byDf[df]! += df;
    }
    while (cutoff >= minDf && total > budget) total -= byDf[cutoff--]!;
  }
  const kept: number[] = [];
  for (let rank = 0; rank < dfs.length; rank++) if (dfs[rank]! >= minDf && dfs[rank]! <= cutoff) kept.push(rank);
  return Uint32Array.from(kept);
}

function invert(segment: Segment, ranks: Uint32Array, weights: Float64Array): TermVectors {
  const docCount = segment.docCount;
  // Pass 1 counts each document's entries, pass 2 fills them in.
  const start = new Uint32Array(docCount + 1);
  forEachPosting(segment, ranks, weights, docCount, (_, doc) => {
    start[doc + 1]!++;
  });
  for (let d = 0; d < docCount; d++) start[d + 1]! += start[d]!;
  const fill = start.slice(0, docCount);
  const terms = new Uint32Array(start[docCount]!);
  const tf = new Float32Array(start[docCount]!);
  forEachPosting(segment, ranks, weights, docCount, (rank, doc, weighted) => {
    const at = fill[doc]!++;
    terms[at] = rank;
    tf[at] = weighted;
  });
  return { start, terms, tf };
}

/** The terms of a few documents without inverting: their postings only, each term's read up to the last document wanted. */
function scan(segment: Segment, ranks: Uint32Array, weights: Float64Array, docs: readonly number[]): DocumentTerms[] {
  // slot[doc] = 1 + the document's index in `docs`, 0 for the documents not wanted.
  const slot = new Uint32Array(segment.docCount);
  docs.forEach((doc, i) => (slot[doc] = i + 1));
  const end = docs.reduce((max, doc) => Math.max(max, doc), -1) + 1;
  const terms = docs.map(() => [] as number[]);
  const tfs = docs.map(() => [] as number[]);
  forEachPosting(
    segment,
    ranks,
    weights,
    end,
    (rank, doc, tf) => {
      terms[slot[doc]! - 1]!.push(rank);
      tfs[slot[doc]! - 1]!.push(tf);
    },
    (doc) => slot[doc] !== 0,
  );
  return docs.map((_, i) => ({ terms: Uint32Array.from(terms[i]!), tf: Float32Array.from(tfs[i]!) }));
}

/** Decodes the postings of `ranks` below document `end` straight from the segment bytes: (term rank, document, field-weighted frequency). */
function forEachPosting(
  segment: Segment,
  ranks: Uint32Array,
  weights: Float64Array,
  end: number,
  visit: (rank: number, doc: number, tf: number) => void,
  /** Documents not accepted have their frequencies skipped undecoded. */
  accept?: (doc: number) => boolean,
): void {
  const reader = new PostingReader(segment);
  for (let k = 0; k < ranks.length; k++) {
    const rank = ranks[k]!;
    const df = reader.start(rank);
    for (let i = 0; i < df; i++) {
      reader.next();
      if (reader.doc >= end) break;
      if (accept && !accept(reader.doc)) reader.skipFrequencies();
      else visit(rank, reader.doc, reader.weightedFrequency(weights));
    }
  }
}
