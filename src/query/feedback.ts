import {FIELD_COUNT as FIELD_COUNT_EXPORT} from './fields.js'
import type {Segment} from './segment.js'

const FIELD_COUNT: number = FIELD_COUNT_EXPORT

/**
 * Per-document term vectors of a segment, for pseudo-relevance feedback: the segment stores postings
 * by term only, so the first feedback query over a segment inverts them once (one pass over the
 * postings bytes) and keeps the result with the segment. Only terms that can help feedback are kept:
 * a term in a single document cannot bring in another topic, and a term in most documents cannot
 * tell one apart.
 */
export interface TermVectors {
  /** Document `d`'s entries are `[start[d], start[d + 1])`. */
  readonly start: Uint32Array
  /** Term ranks in this segment. */
  readonly terms: Uint32Array
  /** Per-field frequencies, `FIELD_COUNT` per entry. */
  readonly freqs: Uint16Array
}

const cache = new WeakMap<Segment, Map<string, TermVectors>>()

export function termVectors(segment: Segment, minDf: number, maxDf: number): TermVectors {
  const key = `${minDf}:${maxDf}`
  let bySegment = cache.get(segment)
  const known = bySegment?.get(key)
  if (known) return known
  const vectors = invert(segment, minDf, maxDf)
  if (!bySegment) cache.set(segment, (bySegment = new Map()))
  bySegment.set(key, vectors)
  return vectors
}

function invert(segment: Segment, minDf: number, maxDf: number): TermVectors {
  const bytes = segment.bytes
  const docCount = segment.docCount
  const kept: number[] = []
  let entries = 0
  for (let rank = 0; rank < segment.termCount; rank++) {
    const df = segment.df(rank)
    if (df < minDf || df > maxDf) continue
    kept.push(rank)
    entries += df
  }
  // Pass 1: entries per document; pass 2: fill.
  const count = new Uint32Array(docCount + 1)
  const scan = (visit: (rank: number, doc: number, pos: number) => number) => {
    for (const rank of kept) {
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
        pos = visit(rank, doc, pos)
      }
    }
  }
  const skip = (pos: number): number => {
    const mask = bytes[pos++]!
    for (let f = 0; f < FIELD_COUNT; f++) {
      if ((mask & (1 << f)) === 0) continue
      while (bytes[pos++]! >= 0x80);
    }
    return pos
  }
  scan((_, doc, pos) => {
    count[doc + 1]!++
    return skip(pos)
  })
  for (let d = 0; d < docCount; d++) count[d + 1]! += count[d]!
  const start = count.slice()
  const fill = count.slice(0, docCount)
  const terms = new Uint32Array(entries)
  const freqs = new Uint16Array(entries * FIELD_COUNT)
  scan((rank, doc, pos) => {
    const at = fill[doc]!++
    terms[at] = rank
    const mask = bytes[pos++]!
    for (let f = 0; f < FIELD_COUNT; f++) {
      if ((mask & (1 << f)) === 0) continue
      let byte = bytes[pos++]!
      let freq = byte & 0x7f
      for (let shift = 128; byte >= 0x80; shift *= 128) {
        byte = bytes[pos++]!
        freq += (byte & 0x7f) * shift
      }
      freqs[at * FIELD_COUNT + f] = Math.min(freq, 0xffff)
    }
    return pos
  })
  return {start, terms, freqs}
}
