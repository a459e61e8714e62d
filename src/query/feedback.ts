import {FIELD_COUNT as FIELD_COUNT_EXPORT} from './fields.js'
import type {Segment} from './segment.js'

// A local copy: hot loops read it per posting, and a module binding can cost a getter call under loaders.
const FIELD_COUNT: number = FIELD_COUNT_EXPORT

/**
 * Per-document term vectors of a segment, for pseudo-relevance feedback. A segment stores postings
 * by term only, so the first feedback query over a segment inverts them (one pass over the postings
 * bytes) and keeps the result with the segment for later queries in the same process.
 *
 * Only terms that can be expansion terms are inverted: at least `minDf` documents (a term in one
 * document brings no other topic in) and at most `maxDf` (a term in most documents tells none apart).
 * The inversion is also bounded: when the terms in that window have more than `budget` postings
 * together, the most frequent of them are left out (rarer terms are the better expansion terms), so
 * the cost and memory of the first feedback query stay flat however large the tree grows.
 */
export interface TermVectors {
  /** Document `d`'s entries are `[start[d], start[d + 1])`. */
  readonly start: Uint32Array
  /** Term ranks in this segment. */
  readonly terms: Uint32Array
  /** The term's frequency in the document, each field's count times its weight. */
  readonly tf: Float32Array
}

/** Postings inverted per segment at most: ~8 bytes each, and about 10 ms per million. */
export const FEEDBACK_POSTINGS_BUDGET = 1_000_000

const cache = new WeakMap<Segment, Map<string, TermVectors>>()

export function termVectors(segment: Segment, weights: Float64Array, minDf: number, maxDf: number, budget = FEEDBACK_POSTINGS_BUDGET): TermVectors {
  const key = `${minDf}:${maxDf}:${budget}:${weights.join(',')}`
  let bySegment = cache.get(segment)
  const known = bySegment?.get(key)
  if (known) return known
  const vectors = invert(segment, weights, minDf, maxDf, budget)
  if (!bySegment) cache.set(segment, (bySegment = new Map()))
  bySegment.set(key, vectors)
  return vectors
}

/** The terms to invert: df within [minDf, maxDf], lowering maxDf until their postings fit the budget. */
function termsToInvert(segment: Segment, minDf: number, maxDf: number, budget: number): Uint32Array {
  const dfs = new Uint32Array(segment.termCount)
  let total = 0
  for (let rank = 0; rank < segment.termCount; rank++) {
    const df = segment.df(rank)
    dfs[rank] = df
    if (df >= minDf && df <= maxDf) total += df
  }
  let cutoff = maxDf
  if (total > budget) {
    // Postings per df value (df ≤ maxDf), then drop the highest df values until the rest fits.
    const byDf = new Float64Array(maxDf + 1)
    for (let rank = 0; rank < dfs.length; rank++) {
      const df = dfs[rank]!
      if (df >= minDf && df <= maxDf) byDf[df]! += df
    }
    while (cutoff >= minDf && total > budget) total -= byDf[cutoff--]!
  }
  const kept: number[] = []
  for (let rank = 0; rank < dfs.length; rank++) if (dfs[rank]! >= minDf && dfs[rank]! <= cutoff) kept.push(rank)
  return Uint32Array.from(kept)
}

function invert(segment: Segment, weights: Float64Array, minDf: number, maxDf: number, budget: number): TermVectors {
  const docCount = segment.docCount
  const kept = termsToInvert(segment, minDf, maxDf, budget)
  // Pass 1 counts each document's entries, pass 2 fills them in.
  const start = new Uint32Array(docCount + 1)
  forEachPosting(segment, kept, weights, (_, doc) => {
    start[doc + 1]!++
  })
  for (let d = 0; d < docCount; d++) start[d + 1]! += start[d]!
  const fill = start.slice(0, docCount)
  const terms = new Uint32Array(start[docCount]!)
  const tf = new Float32Array(start[docCount]!)
  forEachPosting(segment, kept, weights, (rank, doc, weighted) => {
    const at = fill[doc]!++
    terms[at] = rank
    tf[at] = weighted
  })
  return {start, terms, tf}
}

/** Decodes the postings of `ranks` straight from the segment bytes: (term rank, document, field-weighted frequency). */
function forEachPosting(segment: Segment, ranks: Uint32Array, weights: Float64Array, visit: (rank: number, doc: number, tf: number) => void): void {
  const bytes = segment.bytes
  const w0 = weights[0]!, w1 = weights[1]!, w2 = weights[2]!, w3 = weights[3]!, w4 = weights[4]!
  for (let k = 0; k < ranks.length; k++) {
    const rank = ranks[k]!
    let pos = segment.postingsOffset(rank)
    let byte = bytes[pos++]!
    let df = byte & 0x7f
    for (let shift = 128; byte >= 0x80; shift *= 128) {
      byte = bytes[pos++]!
      df += (byte & 0x7f) * shift
    }
    let doc = 0
    for (let i = 0; i < df; i++) {
      byte = bytes[pos++]!
      let delta = byte & 0x7f
      for (let shift = 128; byte >= 0x80; shift *= 128) {
        byte = bytes[pos++]!
        delta += (byte & 0x7f) * shift
      }
      doc += delta
      const mask = bytes[pos++]!
      let tf = 0
      for (let f = 0; f < FIELD_COUNT; f++) {
        if ((mask & (1 << f)) === 0) continue
        byte = bytes[pos++]!
        let freq = byte & 0x7f
        for (let shift = 128; byte >= 0x80; shift *= 128) {
          byte = bytes[pos++]!
          freq += (byte & 0x7f) * shift
        }
        tf += freq * (f === 0 ? w0 : f === 1 ? w1 : f === 2 ? w2 : f === 3 ? w3 : w4)
      }
      visit(rank, doc, tf)
    }
  }
}
