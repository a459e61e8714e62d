import { BrvError } from '../base/errors.js';
import { TermIds } from './analyze.js';
import type { SegmentInput } from './fields.js';
import { FIELD_COUNT as FIELD_COUNT_EXPORT, FIELDS } from './fields.js';
import { SegmentFile } from './segment-file.js';
import { ByteWriter, readVarint, U32Column } from './varint.js';

// A local copy: hot loops read it per posting, and a module binding can cost a getter call under loaders.
const FIELD_COUNT: number = FIELD_COUNT_EXPORT;

/**
 * A segment: an immutable binary inverted index over some topics. A query process reads only what it
 * needs from the file (segment-file.ts): the header and section offsets on open, then a binary search
 * of the term dictionary, the postings of the query's terms, the field lengths and its hits' records.
 * Nothing is decoded up front.
 *
 * Layout (all integers little-endian; "varint" = unsigned LEB128):
 *
 *   header (96 bytes)   magic "BRVSEG\0\0", u32 format version, u32 docCount, u32 termCount,
 *                       u32 fieldCount (5), u32 × 8 section offsets (below, then end of file),
 *                       f64 × 5 sum of field lengths over all documents
 *   fieldLengths        u32 × fieldCount per document: terms per field (title, path, meta, key, body)
 *   docOffsets          u32 × (docCount + 1) into docData
 *   docData             per document: blob id (u8 length + raw bytes: 20 for SHA-1, 32 for SHA-256), varint+UTF-8 path, varint+UTF-8 title,
 *                       varint date count + YYYYMMDD varints, varint kind count + varint+UTF-8 kinds
 *   termOffsets         u32 × (termCount + 1) into termData
 *   termData            the terms' UTF-8 bytes, sorted bytewise, concatenated
 *   postingOffsets      u32 × (termCount + 1) into postingData
 *   postingData         per term: varint document frequency, then per document (ascending):
 *                       varint doc-number delta, a field bit mask byte, a varint frequency per set bit
 *
 * Documents are ordered by path (bytewise UTF-8, which is code point order), so a path or a path
 * prefix (a scope) is a binary search away and merging segments keeps postings sorted.
 */

const SEGMENT_FORMAT_VERSION = 2;
const MAGIC = [0x42, 0x52, 0x56, 0x53, 0x45, 0x47, 0x00, 0x00]; // "BRVSEG\0\0"
const HEADER_BYTES = 96;
const SECTION_COUNT = 7;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A document as read back from a segment. */
export interface SegmentDocument {
  readonly path: string;
  readonly title: string;
  readonly blob: string;
  /** Terms per field, in `FIELDS` order. */
  readonly fieldLengths: number[];
  readonly dates: string[];
  readonly kinds: string[];
}

/** One term's postings: document numbers ascending, and `FIELD_COUNT` frequencies per document. */
export interface Postings {
  readonly df: number;
  readonly docs: Uint32Array;
  /** `freqs[i * FIELD_COUNT + f]` = occurrences of the term in field `f` of `docs[i]`. */
  readonly freqs: Uint32Array;
}

const encoder = new TextEncoder();

function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function corrupt(detail: string): BrvError {
  return new BrvError(
    'index-corrupt',
    `The search index segment is unreadable (${detail}); delete it and brv rebuilds it on the next query.`,
  );
}

// ---------------------------------------------------------------------------------------------
// Writing

/** The parts both `buildSegment` and `mergeSegments` produce; `assemble` lays them out. */
interface SegmentParts {
  docCount: number;
  fieldLengths: Uint32Array;
  docOffsets: Uint32Array;
  docData: Uint8Array;
  termCount: number;
  termOffsets: Uint32Array;
  termData: Uint8Array;
  postingOffsets: Uint32Array;
  postingData: Uint8Array;
}

function assemble(parts: SegmentParts): Uint8Array {
  const sections: Uint8Array[] = [
    u32Bytes(parts.fieldLengths),
    u32Bytes(parts.docOffsets),
    parts.docData,
    u32Bytes(parts.termOffsets),
    parts.termData,
    u32Bytes(parts.postingOffsets),
    parts.postingData,
  ];
  const total = HEADER_BYTES + sections.reduce((sum, s) => sum + s.length, 0);
  if (total > 0xffffffff) throw new Error(`A search index segment would be ${total} bytes; the format holds at most 4 GiB.`);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, SEGMENT_FORMAT_VERSION, true);
  view.setUint32(12, parts.docCount, true);
  view.setUint32(16, parts.termCount, true);
  view.setUint32(20, FIELD_COUNT, true);
  let offset = HEADER_BYTES;
  sections.forEach((section, i) => {
    view.setUint32(24 + i * 4, offset, true);
    out.set(section, offset);
    offset += section.length;
  });
  view.setUint32(24 + SECTION_COUNT * 4, offset, true);
  const totals = new Array<number>(FIELD_COUNT).fill(0);
  for (let i = 0; i < parts.fieldLengths.length; i++) totals[i % FIELD_COUNT]! += parts.fieldLengths[i]!;
  totals.forEach((sum, f) => view.setFloat64(56 + f * 8, sum, true));
  return out;
}

function u32Bytes(values: Uint32Array): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint32(i * 4, values[i]!, true);
  return out;
}

// SHA-1 (40 hex) and SHA-256 (64 hex) repositories both exist; the id is stored length-prefixed.
const BLOB = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function writeDocument(out: ByteWriter, doc: SegmentInput, path: Uint8Array): void {
  const blob = doc.blob.toLowerCase();
  if (!BLOB.test(blob)) throw new Error(`Index document ${doc.path}: blob must be 40 or 64 hex digits, got "${doc.blob}".`);
  out.byte(blob.length / 2);
  out.raw(Buffer.from(blob, 'hex'));
  out.lengthPrefixed(path);
  out.lengthPrefixed(utf8(doc.title));
  const dates = doc.dates.map((d) => /^(\d{4})-(\d{2})-(\d{2})$/.exec(d)).filter((m) => m !== null);
  out.varint(dates.length);
  for (const m of dates) out.varint(Number(m[1]) * 10000 + Number(m[2]) * 100 + Number(m[3]));
  out.varint(doc.kinds.length);
  for (const kind of doc.kinds) out.lengthPrefixed(utf8(kind));
}

/** Builds a segment over `docs` (paths must be distinct). Deterministic: same documents, same bytes. */
export function buildSegment(docs: readonly SegmentInput[]): Uint8Array {
  const paths = docs.map((d) => utf8(d.path));
  const order = docs.map((_, i) => i).sort((a, b) => compareBytes(paths[a]!, paths[b]!) || a - b);
  const builder = new SegmentBuilder(docs.length);
  for (const i of order) builder.add(docs[i]!, paths[i]!);
  return builder.finish();
}

/** A topic path as segments order it (bytewise UTF-8): what `SegmentBuilder.add` takes documents in. */
export function pathOrderKey(path: string): Uint8Array {
  return utf8(path);
}

/** `compareBytes` over `pathOrderKey`s: the order of documents in a segment. */
export function comparePathKeys(a: Uint8Array, b: Uint8Array): number {
  return compareBytes(a, b);
}

/**
 * `buildSegment`, one document at a time, in path order (`pathOrderKey`, `comparePathKeys`): each
 * document is analysed as it comes, so its texts need not outlive it (a first query's scan of a
 * fetched tree extracts and analyses each topic in turn). The same documents give the same bytes.
 */
export class SegmentBuilder {
  private docCount = 0;
  private fieldLengths: Uint32Array;
  private docOffsets: Uint32Array;
  private readonly docData: ByteWriter;
  // Postings in document order: term id, document, and the encoded (mask, frequencies) record.
  private readonly termIds = new TermIds();
  private readonly fieldTerms: number[] = [];
  private readonly postingTerm = new U32Column();
  private readonly postingDoc = new U32Column();
  private readonly recordEnd = new U32Column();
  private readonly records: ByteWriter;
  // Per document: the distinct term ids in first-seen order and their frequencies per field, found
  // through `seenIn`/`slotOf` (indexed by term id) instead of a map and an array per term.
  private seenIn = new Int32Array(1024).fill(-1);
  private slotOf = new Uint32Array(1024);
  private readonly docTermIds: number[] = [];
  private counts = new Uint32Array(256 * FIELD_COUNT);
  private previousPath: Uint8Array | undefined;

  /** `expected`: about how many documents (room is made for more). */
  constructor(expected: number) {
    this.fieldLengths = new Uint32Array(Math.max(1, expected) * FIELD_COUNT);
    this.docOffsets = new Uint32Array(Math.max(1, expected) + 1);
    this.docData = new ByteWriter(expected * 96);
    this.records = new ByteWriter(expected * 256);
  }

  /** Adds the next document; `path` is `pathOrderKey(doc.path)`, after the previous one's. */
  add(doc: SegmentInput, path: Uint8Array = utf8(doc.path)): void {
    if (this.previousPath !== undefined) {
      const order = compareBytes(this.previousPath, path);
      if (order === 0) throw new Error(`Index documents must have distinct paths; "${doc.path}" appears twice.`);
      if (order > 0) throw new Error(`Index documents must come in path order; "${doc.path}" came late.`);
    }
    this.previousPath = path;
    const docNo = this.docCount++;
    if ((docNo + 1) * FIELD_COUNT > this.fieldLengths.length) {
      const grown = new Uint32Array(this.fieldLengths.length * 2);
      grown.set(this.fieldLengths);
      this.fieldLengths = grown;
    }
    if (docNo + 2 > this.docOffsets.length) {
      const grown = new Uint32Array(this.docOffsets.length * 2);
      grown.set(this.docOffsets);
      this.docOffsets = grown;
    }
    const { termIds, fieldTerms, docTermIds } = this;
    const terms = termIds.terms;
    this.docOffsets[docNo] = this.docData.length;
    writeDocument(this.docData, doc, path);
    docTermIds.length = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      fieldTerms.length = 0;
      this.fieldLengths[docNo * FIELD_COUNT + f] = termIds.add(doc.fields[FIELDS[f]!], fieldTerms);
      if (terms.length > this.seenIn.length) {
        let size = this.seenIn.length * 2;
        while (size < terms.length) size *= 2;
        const grownSeen = new Int32Array(size).fill(-1);
        grownSeen.set(this.seenIn);
        this.seenIn = grownSeen;
        const grownSlot = new Uint32Array(size);
        grownSlot.set(this.slotOf);
        this.slotOf = grownSlot;
      }
      const { seenIn, slotOf } = this;
      for (const id of fieldTerms) {
        if (seenIn[id] !== docNo) {
          seenIn[id] = docNo;
          const slot = docTermIds.length;
          slotOf[id] = slot;
          docTermIds.push(id);
          if ((slot + 1) * FIELD_COUNT > this.counts.length) {
            const grown = new Uint32Array(this.counts.length * 2);
            grown.set(this.counts);
            this.counts = grown;
          }
          this.counts.fill(0, slot * FIELD_COUNT, (slot + 1) * FIELD_COUNT);
        }
        this.counts[slotOf[id]! * FIELD_COUNT + f]!++;
      }
    }
    for (let slot = 0; slot < docTermIds.length; slot++) {
      this.postingTerm.push(docTermIds[slot]!);
      this.postingDoc.push(docNo);
      writeRecord(this.records, this.counts, slot * FIELD_COUNT);
      this.recordEnd.push(this.records.length);
    }
  }

  /** The segment's bytes (the builder is spent). */
  finish(): Uint8Array {
    const { docCount, postingTerm, postingDoc, recordEnd, records } = this;
    const terms = this.termIds.terms;
    const docOffsets = this.docOffsets.slice(0, docCount + 1);
    docOffsets[docCount] = this.docData.length;

    // Group postings by term (a counting sort keeps each term's documents ascending), terms sorted bytewise.
    const termBytes = terms.map(utf8);
    const termOrder = terms.map((_, i) => i).sort((a, b) => compareBytes(termBytes[a]!, termBytes[b]!));
    const start = new Uint32Array(terms.length + 1);
    for (let p = 0; p < postingTerm.length; p++) start[postingTerm.values[p]! + 1]!++;
    for (let t = 0; t < terms.length; t++) start[t + 1]! += start[t]!;
    const fill = start.slice(0, terms.length);
    const grouped = new Uint32Array(postingTerm.length);
    for (let p = 0; p < postingTerm.length; p++) grouped[fill[postingTerm.values[p]!]!++] = p;

    const termOffsets = new Uint32Array(terms.length + 1);
    const termData = new ByteWriter(terms.length * 8);
    const postingOffsets = new Uint32Array(terms.length + 1);
    const postingData = new ByteWriter(records.length + postingTerm.length * 2);
    for (let rank = 0; rank < termOrder.length; rank++) {
      const id = termOrder[rank]!;
      termOffsets[rank] = termData.length;
      termData.raw(termBytes[id]!);
      postingOffsets[rank] = postingData.length;
      postingData.varint(start[id + 1]! - start[id]!);
      let previous = 0;
      for (let g = start[id]!; g < start[id + 1]!; g++) {
        const p = grouped[g]!;
        const doc = postingDoc.values[p]!;
        postingData.varint(doc - previous);
        previous = doc;
        postingData.raw(records.bytes, p === 0 ? 0 : recordEnd.values[p - 1]!, recordEnd.values[p]!);
      }
    }
    termOffsets[terms.length] = termData.length;
    postingOffsets[terms.length] = postingData.length;

    return assemble({
      docCount,
      fieldLengths: this.fieldLengths.slice(0, docCount * FIELD_COUNT),
      docOffsets,
      docData: this.docData.view(),
      termCount: terms.length,
      termOffsets,
      termData: termData.view(),
      postingOffsets,
      postingData: postingData.view(),
    });
  }
}

function writeRecord(out: ByteWriter, freqs: Uint32Array, at: number): void {
  let mask = 0;
  for (let f = 0; f < FIELD_COUNT; f++) if (freqs[at + f]! > 0) mask |= 1 << f;
  out.byte(mask);
  for (let f = 0; f < FIELD_COUNT; f++) if (freqs[at + f]! > 0) out.varint(freqs[at + f]!);
}

/**
 * Merges segments into one, keeping only documents not marked in `dead` (1 = drop). Live paths must
 * be distinct across the inputs (a stack guarantees it by shadowing). The result has the same bytes
 * as `buildSegment` over the live documents: postings and document records are copied, not re-analysed.
 */
export function mergeSegments(inputs: ReadonlyArray<{ segment: Segment; dead?: Uint8Array | undefined }>): Uint8Array {
  for (const { segment } of inputs) segment.loadAll();
  // Live documents, sorted by path, and each input document's new number.
  const live: Array<{ input: number; doc: number; path: Uint8Array }> = [];
  const renumber = inputs.map(({ segment, dead }, input) => {
    for (let d = 0; d < segment.docCount; d++) if (!dead || dead[d] !== 1) live.push({ input, doc: d, path: segment.pathBytes(d) });
    return new Int32Array(segment.docCount).fill(-1);
  });
  live.sort((a, b) => compareBytes(a.path, b.path));
  for (let i = 1; i < live.length; i++) {
    if (compareBytes(live[i - 1]!.path, live[i]!.path) === 0)
      throw new Error(`Cannot merge: two live documents have the path "${inputs[live[i]!.input]!.segment.path(live[i]!.doc)}".`);
  }

  const docCount = live.length;
  const fieldLengths = new Uint32Array(docCount * FIELD_COUNT);
  const docOffsets = new Uint32Array(docCount + 1);
  const docData = new ByteWriter(docCount * 96);
  for (let docNo = 0; docNo < docCount; docNo++) {
    const { input, doc } = live[docNo]!;
    const segment = inputs[input]!.segment;
    renumber[input]![doc] = docNo;
    for (let f = 0; f < FIELD_COUNT; f++) fieldLengths[docNo * FIELD_COUNT + f] = segment.fieldLength(doc, f);
    docOffsets[docNo] = docData.length;
    const [from, to] = segment.documentSpan(doc);
    docData.raw(segment.bytes, from, to);
  }
  docOffsets[docCount] = docData.length;

  // Terms: a k-way merge of the sorted dictionaries (a heap of cursors, ordered by their current term).
  const cursors = inputs.map(({ segment }, input) => ({ input, rank: 0, term: segment.termCount > 0 ? segment.termBytes(0) : undefined }));
  const heap = new TermHeap(cursors.filter((c) => c.term !== undefined) as TermCursor[]);
  const termOffsets = new U32Column();
  const termData = new ByteWriter();
  const postingOffsets = new U32Column();
  const postingData = new ByteWriter();
  // This term's live postings: new document number, source input, record byte span.
  const gatheredDoc = new U32Column();
  const gatheredInput = new U32Column();
  const gatheredFrom = new U32Column();
  const gatheredTo = new U32Column();
  const contributors: TermCursor[] = [];
  while (heap.size > 0) {
    const term = heap.top().term;
    contributors.length = 0;
    while (heap.size > 0 && compareBytes(heap.top().term, term) === 0) contributors.push(heap.pop());
    gatheredDoc.length = gatheredInput.length = gatheredFrom.length = gatheredTo.length = 0;
    let sorted = true;
    for (const cursor of contributors) {
      const segment = inputs[cursor.input]!.segment;
      const map = renumber[cursor.input]!;
      const bytes = segment.bytes;
      const state = { pos: segment.postingsOffset(cursor.rank) };
      const df = readVarint(bytes, state);
      let doc = 0;
      for (let i = 0; i < df; i++) {
        doc += readVarint(bytes, state);
        const from = state.pos;
        const mask = bytes[state.pos++]!;
        for (let f = 0; f < FIELD_COUNT; f++) if ((mask & (1 << f)) !== 0) readVarint(bytes, state);
        const docNo = map[doc]!;
        if (docNo < 0) continue;
        if (gatheredDoc.length > 0 && docNo < gatheredDoc.values[gatheredDoc.length - 1]!) sorted = false;
        gatheredDoc.push(docNo);
        gatheredInput.push(cursor.input);
        gatheredFrom.push(from);
        gatheredTo.push(state.pos);
      }
      cursor.rank++;
      if (cursor.rank < segment.termCount) {
        cursor.term = segment.termBytes(cursor.rank);
        heap.push(cursor);
      }
    }
    const count = gatheredDoc.length;
    if (count === 0) continue;
    let order: ArrayLike<number> | undefined;
    if (!sorted) order = Uint32Array.from({ length: count }, (_, i) => i).sort((a, b) => gatheredDoc.values[a]! - gatheredDoc.values[b]!);
    termOffsets.push(termData.length);
    termData.raw(term);
    postingOffsets.push(postingData.length);
    postingData.varint(count);
    let previous = 0;
    for (let j = 0; j < count; j++) {
      const g = order ? order[j]! : j;
      const doc = gatheredDoc.values[g]!;
      postingData.varint(doc - previous);
      previous = doc;
      postingData.raw(inputs[gatheredInput.values[g]!]!.segment.bytes, gatheredFrom.values[g]!, gatheredTo.values[g]!);
    }
  }
  const termCount = termOffsets.length;
  termOffsets.push(termData.length);
  postingOffsets.push(postingData.length);
  return assemble({
    docCount,
    fieldLengths,
    docOffsets,
    docData: docData.view(),
    termCount,
    termOffsets: termOffsets.values.slice(0, termOffsets.length),
    termData: termData.view(),
    postingOffsets: postingOffsets.values.slice(0, postingOffsets.length),
    postingData: postingData.view(),
  });
}

interface TermCursor {
  readonly input: number;
  rank: number;
  term: Uint8Array;
}

/** A binary min-heap of dictionary cursors by current term (ties by input, so merges are deterministic). */
class TermHeap {
  private readonly items: TermCursor[];

  constructor(items: TermCursor[]) {
    this.items = [];
    for (const item of items) this.push(item);
  }

  get size(): number {
    return this.items.length;
  }

  top(): TermCursor {
    return this.items[0]!;
  }

  private less(a: TermCursor, b: TermCursor): boolean {
    const c = compareBytes(a.term, b.term);
    return c < 0 || (c === 0 && a.input < b.input);
  }

  push(item: TermCursor): void {
    const items = this.items;
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): TermCursor {
    const items = this.items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < items.length && this.less(items[l]!, items[smallest]!)) smallest = l;
        if (r < items.length && this.less(items[r]!, items[smallest]!)) smallest = r;
        if (smallest === i) break;
        [items[i], items[smallest]] = [items[smallest]!, items[i]!];
        i = smallest;
      }
    }
    return top;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

export class Segment {
  /**
   * The segment's bytes. Over a file read as needed, a range holds zeros until a method has asked for
   * it: code that reads `bytes` itself goes through `postingsOffset` (a term's postings), or
   * `loadPostings` / `loadAll` first.
   */
  readonly bytes: Uint8Array;
  readonly docCount: number;
  readonly termCount: number;
  /** Sum over documents of each field's length, in `FIELDS` order (average = total / docCount). */
  readonly fieldTotals: readonly number[];
  private readonly view: DataView;
  private readonly text: Buffer;
  private readonly lengthsAt: number;
  private readonly docOffsetsAt: number;
  private readonly docDataAt: number;
  private readonly termOffsetsAt: number;
  private readonly termDataAt: number;
  private readonly postingOffsetsAt: number;
  private readonly postingDataAt: number;
  /** Where the bytes come from when they are read as needed (segment-file.ts); none when all are in. */
  private readonly file: SegmentFile | undefined;

  private constructor(source: Uint8Array | SegmentFile) {
    const bytes = source instanceof SegmentFile ? source.bytes : source;
    this.file = source instanceof SegmentFile ? source : undefined;
    this.file?.need(0, HEADER_BYTES);
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const view = this.view;
    if (bytes.length < HEADER_BYTES || MAGIC.some((b, i) => bytes[i] !== b)) throw corrupt('not a brv index segment');
    const version = view.getUint32(8, true);
    if (version !== SEGMENT_FORMAT_VERSION) throw corrupt(`format version ${version}, this brv reads ${SEGMENT_FORMAT_VERSION}`);
    this.docCount = view.getUint32(12, true);
    this.termCount = view.getUint32(16, true);
    if (view.getUint32(20, true) !== FIELD_COUNT) throw corrupt('unexpected field count');
    const at = Array.from({ length: SECTION_COUNT + 1 }, (_, i) => view.getUint32(24 + i * 4, true));
    [this.lengthsAt, this.docOffsetsAt, this.docDataAt, this.termOffsetsAt, this.termDataAt, this.postingOffsetsAt, this.postingDataAt] =
      at as [number, number, number, number, number, number, number];
    const sizes = [
      this.docCount * FIELD_COUNT * 4,
      (this.docCount + 1) * 4,
      -1,
      (this.termCount + 1) * 4,
      -1,
      (this.termCount + 1) * 4,
      -1,
    ];
    if (at[0] !== HEADER_BYTES || at[SECTION_COUNT] !== bytes.length) throw corrupt('truncated');
    for (let i = 0; i < SECTION_COUNT; i++) {
      if (at[i + 1]! < at[i]! || (sizes[i]! >= 0 && at[i + 1]! - at[i]! !== sizes[i])) throw corrupt(`section ${i} has the wrong size`);
    }
    const last = (offsetsAt: number, count: number) => {
      this.need(offsetsAt + count * 4, offsetsAt + count * 4 + 4);
      return view.getUint32(offsetsAt + count * 4, true);
    };
    if (last(this.docOffsetsAt, this.docCount) !== this.termOffsetsAt - this.docDataAt) throw corrupt('document table');
    if (last(this.termOffsetsAt, this.termCount) !== this.postingOffsetsAt - this.termDataAt) throw corrupt('term dictionary');
    if (last(this.postingOffsetsAt, this.termCount) !== bytes.length - this.postingDataAt) throw corrupt('postings');
    this.fieldTotals = Array.from({ length: FIELD_COUNT }, (_, f) => view.getFloat64(56 + f * 8, true));
  }

  /**
   * Opens a segment over `bytes` (not copied, so keep them unchanged), or over a file read as its
   * parts are needed. Checks the structure, decodes nothing.
   */
  static open(source: Uint8Array | SegmentFile): Segment {
    return new Segment(source);
  }

  /** Makes `bytes[start, end)` hold the segment's bytes (a no-op when all are in). */
  private need(start: number, end: number): void {
    this.file?.need(start, end);
  }

  /** Reads the whole segment in (for merging, which copies raw ranges of `bytes`). */
  loadAll(): void {
    this.file?.needAll();
  }

  /** Reads all postings in (feedback reads every term's document frequency). */
  loadPostings(): void {
    this.need(this.postingOffsetsAt, this.bytes.length);
  }

  private lengthsIn = false;

  fieldLength(doc: number, field: number): number {
    if (!this.lengthsIn) this.needLengths();
    return this.view.getUint32(this.lengthsAt + (doc * FIELD_COUNT + field) * 4, true);
  }

  private needLengths(): void {
    this.need(this.lengthsAt, this.docOffsetsAt);
    this.lengthsIn = true;
  }

  private lengths: Uint32Array | undefined;

  /** All field lengths, `[doc * FIELD_COUNT + field]`: a view of the bytes when aligned, else a copy. */
  fieldLengthTable(): Uint32Array {
    if (this.lengths) return this.lengths;
    if (!this.lengthsIn) this.needLengths();
    const at = this.bytes.byteOffset + this.lengthsAt;
    const count = this.docCount * FIELD_COUNT;
    if (at % 4 === 0 && LITTLE_ENDIAN) this.lengths = new Uint32Array(this.bytes.buffer, at, count);
    else this.lengths = Uint32Array.from({ length: count }, (_, i) => this.view.getUint32(this.lengthsAt + i * 4, true));
    return this.lengths;
  }

  /** Byte range of document `doc`'s record. */
  documentSpan(doc: number): [number, number] {
    this.checkDoc(doc);
    const at = this.docOffsetsAt + doc * 4;
    this.need(at, at + 8);
    const span: [number, number] = [this.docDataAt + this.view.getUint32(at, true), this.docDataAt + this.view.getUint32(at + 4, true)];
    this.need(span[0], span[1]);
    return span;
  }

  doc(doc: number): SegmentDocument {
    const [start] = this.documentSpan(doc);
    const blobBytes = this.bytes[start]!;
    const state = { pos: start + 1 + blobBytes };
    const blob = this.text.toString('hex', start + 1, start + 1 + blobBytes);
    const path = this.string(state);
    const title = this.string(state);
    const dates = Array.from({ length: readVarint(this.bytes, state) }, () => {
      const n = readVarint(this.bytes, state);
      return `${String(Math.floor(n / 10000)).padStart(4, '0')}-${String(Math.floor(n / 100) % 100).padStart(2, '0')}-${String(n % 100).padStart(2, '0')}`;
    });
    const kinds = Array.from({ length: readVarint(this.bytes, state) }, () => this.string(state));
    const fieldLengths = Array.from({ length: FIELD_COUNT }, (_, f) => this.fieldLength(doc, f));
    return { path, title, blob, fieldLengths, dates, kinds };
  }

  /** The document's blob id (hex), as given to `buildSegment`. */
  blob(doc: number): string {
    const [start] = this.documentSpan(doc);
    return this.text.toString('hex', start + 1, start + 1 + this.bytes[start]!);
  }

  path(doc: number): string {
    const [start] = this.documentSpan(doc);
    return this.string({ pos: start + 1 + this.bytes[start]! });
  }

  /** The path's UTF-8 bytes (a view into the segment). */
  pathBytes(doc: number): Uint8Array {
    const [start] = this.documentSpan(doc);
    const state = { pos: start + 1 + this.bytes[start]! };
    const length = readVarint(this.bytes, state);
    return this.bytes.subarray(state.pos, state.pos + length);
  }

  /** The first document whose path is ≥ `path` bytewise (`docCount` if none). */
  lowerBoundPath(path: string | Uint8Array): number {
    const target = typeof path === 'string' ? utf8(path) : path;
    let lo = 0;
    let hi = this.docCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(this.pathBytes(mid), target) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The document with exactly this path, or -1. */
  findPath(path: string | Uint8Array): number {
    const target = typeof path === 'string' ? utf8(path) : path;
    const doc = this.lowerBoundPath(target);
    return doc < this.docCount && compareBytes(this.pathBytes(doc), target) === 0 ? doc : -1;
  }

  /** Documents `[from, to)` whose paths start with `prefix` (bytewise). */
  pathPrefixRange(prefix: string): [number, number] {
    const bytes = utf8(prefix);
    const from = this.lowerBoundPath(bytes);
    let to = from;
    let hi = this.docCount;
    while (to < hi) {
      const mid = (to + hi) >>> 1;
      if (startsWith(this.pathBytes(mid), bytes)) to = mid + 1;
      else hi = mid;
    }
    return [from, to];
  }

  /** The dictionary term at `rank` (0 … termCount - 1), as UTF-8 bytes (a view). */
  termBytes(rank: number): Uint8Array {
    const [start, end] = this.termSpan(rank);
    return this.bytes.subarray(start, end);
  }

  term(rank: number): string {
    const [start, end] = this.termSpan(rank);
    return this.text.toString('utf8', start, end);
  }

  private termSpan(rank: number): [number, number] {
    const at = this.termOffsetsAt + rank * 4;
    this.need(at, at + 8);
    const span: [number, number] = [this.termDataAt + this.view.getUint32(at, true), this.termDataAt + this.view.getUint32(at + 4, true)];
    this.need(span[0], span[1]);
    return span;
  }

  /** Rank of the first term ≥ `term` bytewise. */
  private lowerBoundTerm(term: Uint8Array): number {
    let lo = 0;
    let hi = this.termCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareTerm(mid, term) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private compareTerm(rank: number, term: Uint8Array): number {
    const [start, end] = this.termSpan(rank);
    const length = end - start;
    const n = Math.min(length, term.length);
    const bytes = this.bytes;
    for (let i = 0; i < n; i++) if (bytes[start + i] !== term[i]) return bytes[start + i]! - term[i]!;
    return length - term.length;
  }

  /** The dictionary rank of `term`, or -1. */
  termRank(term: string): number {
    const bytes = utf8(term);
    const rank = this.lowerBoundTerm(bytes);
    return rank < this.termCount && this.compareTerm(rank, bytes) === 0 ? rank : -1;
  }

  /** Document frequency of the term at `rank` (one varint read). */
  df(rank: number): number {
    return readVarint(this.bytes, { pos: this.postingStart(rank) });
  }

  lookup(term: string): Postings | undefined {
    const rank = this.termRank(term);
    return rank < 0 ? undefined : this.postingsAt(rank);
  }

  postingsAt(rank: number): Postings {
    const bytes = this.bytes;
    const state = { pos: this.postingStart(rank) };
    const df = readVarint(bytes, state);
    const docs = new Uint32Array(df);
    const freqs = new Uint32Array(df * FIELD_COUNT);
    let pos = state.pos;
    let doc = 0;
    for (let i = 0; i < df; i++) {
      let byte = bytes[pos++]!;
      let delta = byte & 0x7f;
      for (let shift = 128; byte >= 0x80; shift *= 128) {
        byte = bytes[pos++]!;
        delta += (byte & 0x7f) * shift;
      }
      doc += delta;
      docs[i] = doc;
      const mask = bytes[pos++]!;
      for (let f = 0; f < FIELD_COUNT; f++) {
        if ((mask & (1 << f)) === 0) continue;
        byte = bytes[pos++]!;
        let tf = byte & 0x7f;
        for (let shift = 128; byte >= 0x80; shift *= 128) {
          byte = bytes[pos++]!;
          tf += (byte & 0x7f) * shift;
        }
        freqs[i * FIELD_COUNT + f] = tf;
      }
    }
    if (doc >= this.docCount && df > 0) throw corrupt('a posting names a document beyond the table');
    return { df, docs, freqs };
  }

  /** Byte offset of the postings of the term at `rank` (its df varint), with all of them read in: for decoding them from `bytes`. */
  postingsOffset(rank: number): number {
    return this.postingStart(rank);
  }

  /** Up to `max` dictionary terms starting with `prefix`, in dictionary order. */
  termsWithPrefix(prefix: string, max: number): string[] {
    const bytes = utf8(prefix);
    const found: string[] = [];
    for (let rank = this.lowerBoundTerm(bytes); rank < this.termCount && found.length < max; rank++) {
      if (!startsWith(this.termBytes(rank), bytes)) break;
      found.push(this.term(rank));
    }
    return found;
  }

  /** Where the postings of the term at `rank` start (its df varint), with all of them read in. */
  private postingStart(rank: number): number {
    if (rank < 0 || rank >= this.termCount) throw new RangeError(`term rank ${rank} out of range`);
    const at = this.postingOffsetsAt + rank * 4;
    this.need(at, at + 8);
    const start = this.postingDataAt + this.view.getUint32(at, true);
    this.need(start, this.postingDataAt + this.view.getUint32(at + 4, true));
    return start;
  }

  private checkDoc(doc: number): void {
    if (!(doc >= 0 && doc < this.docCount)) throw new RangeError(`document ${doc} out of range (segment has ${this.docCount})`);
  }

  private string(state: { pos: number }): string {
    const length = readVarint(this.bytes, state);
    const value = this.text.toString('utf8', state.pos, state.pos + length);
    state.pos += length;
    return value;
  }
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
