import type { Segment } from './segment.js';

/** Set bits per mask byte: how many field frequencies follow a posting's mask. */
const BITS_SET = Uint8Array.from({ length: 256 }, (_, mask) => {
  let n = 0;
  for (let m = mask; m > 0; m >>= 1) n += m & 1;
  return n;
});

/**
 * Walks one term's postings straight from the segment bytes: `start` reads the document count, then
 * each `next` moves to the following posting (`doc`, and the `mask` of fields it occurs in), after
 * which the caller reads its `weightedFrequency` or `skipFrequencies`. One small monomorphic class,
 * so V8 inlines it into feedback's loops once they are hot (search.ts decodes postings inline: its
 * loop runs interpreted for most of a query process).
 */
export class PostingReader {
  pos = 0;
  doc = 0;
  mask = 0;
  private readonly bytes: Uint8Array;

  constructor(private readonly segment: Segment) {
    segment.loadPostings();
    this.bytes = segment.bytes;
  }

  /** Positions at a term's postings and returns its document frequency. */
  start(rank: number): number {
    this.pos = this.segment.postingsOffset(rank);
    this.doc = 0;
    return this.varint();
  }

  next(): void {
    this.doc += this.varint();
    this.mask = this.bytes[this.pos++]!;
  }

  /** The posting's frequencies summed with one weight per field (reads them all). */
  weightedFrequency(weights: Float64Array): number {
    let tf = 0;
    for (let f = 0, mask = this.mask; mask !== 0; f++, mask >>= 1) if ((mask & 1) !== 0) tf += this.varint() * weights[f]!;
    return tf;
  }

  skipFrequencies(): void {
    for (let n = BITS_SET[this.mask]!; n > 0;) if (this.bytes[this.pos++]! < 0x80) n--;
  }

  private varint(): number {
    const bytes = this.bytes;
    let byte = bytes[this.pos++]!;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    for (let shift = 128; byte >= 0x80; shift *= 128) {
      byte = bytes[this.pos++]!;
      value += (byte & 0x7f) * shift;
    }
    return value;
  }
}
