import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { BrvError } from '../base/errors.js';

/** What the docstore holds of a topic: its rendered markdown, and its plain text for search excerpts. */
export interface RenderedTopic {
  readonly markdown: string;
  readonly text: string;
}

/** A topic's docstore entry: its markdown, U+0000, its plain text (neither holds a U+0000: both replace control characters). */
export function docstoreEntry(topic: RenderedTopic): string {
  return `${topic.markdown}\u0000${topic.text}`;
}

export function parseDocstoreEntry(entry: string): RenderedTopic {
  const at = entry.indexOf('\u0000');
  return at < 0 ? { markdown: entry, text: '' } : { markdown: entry.slice(0, at), text: entry.slice(at + 1) };
}

/**
 * Rendered markdown and plain text (`docstoreEntry`) of a segment's documents, in the segment's document order, stored next to it:
 * magic, `u32 count`, `count + 1` u32 offsets, `count` u32 CRC-32s (one per entry), then UTF-8 text.
 * Rendering happens when the index is built (the HTML toolchain is loaded then anyway), so a query
 * reads a few byte ranges and never loads the HTML parser or the markdown renderer. Every entry read
 * is checked against its CRC: a damaged docstore is an `index-corrupt` error (brv rebuilds), never
 * damaged text in an answer.
 */
const MAGIC = Buffer.from('BRVMD002');

/**
 * CRC-32 (IEEE): zlib's, native. The CLI's launcher loads `node:zlib` for its code cache anyway; an
 * index build checksums every rendered topic (megabytes on a fetched tree), where the JavaScript
 * slicing-by-8 it replaces cost ~23 ms of a cold 50-topic first query (docs/archive/bench-notebook-2026.md, "Cold path, round 2").
 */
export function crc32(bytes: Uint8Array): number {
  return zlibCrc32(bytes);
}
const HEAD = MAGIC.length + 4;

/** Opened without following a symlink or blocking on a FIFO (local state is not trusted). */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function damaged(file: string, why: string): BrvError {
  return new BrvError('index-corrupt', `The search index docstore ${file} is damaged (${why}); brv rebuilds the index.`);
}

function headerBytes(count: number): number {
  return HEAD + (count + 1) * 4 + count * 4;
}

function header(bodies: readonly Buffer[]): Buffer {
  const out = Buffer.alloc(headerBytes(bodies.length));
  MAGIC.copy(out, 0);
  out.writeUInt32LE(bodies.length, MAGIC.length);
  const crcs = HEAD + (bodies.length + 1) * 4;
  let offset = 0;
  bodies.forEach((body, i) => {
    out.writeUInt32LE(offset, HEAD + i * 4);
    out.writeUInt32LE(crc32(body), crcs + i * 4);
    offset += body.length;
  });
  out.writeUInt32LE(offset, HEAD + bodies.length * 4);
  return out;
}

export function buildDocstore(texts: readonly string[]): Buffer {
  const bodies = texts.map((t) => Buffer.from(t, 'utf8'));
  return Buffer.concat([header(bodies), ...bodies]);
}

/** Opens a docstore file for reading: a regular file or an `index-corrupt` error (missing, special, a symlink). */
function openDocstore(file: string): number {
  let fd;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    throw damaged(file, `cannot be opened: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw damaged(file, 'not a regular file');
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/**
 * Reads entries of a docstore file by position, without loading the whole file, each checked
 * against its CRC. Synchronous on purpose: a query reads about twenty small ranges, and a promise
 * round trip per read cost more (~8 ms per query, measured) than the reads themselves.
 */
export function readDocstoreEntries(file: string, entries: readonly number[]): Map<number, string> {
  const result = new Map<number, string>();
  if (entries.length === 0) return result;
  const fd = openDocstore(file);
  try {
    const head = Buffer.alloc(HEAD);
    if (readSync(fd, head, 0, head.length, 0) !== head.length || !head.subarray(0, MAGIC.length).equals(MAGIC))
      throw damaged(file, 'no docstore header');
    const count = head.readUInt32LE(MAGIC.length);
    const dataStart = headerBytes(count);
    const pair = Buffer.alloc(8);
    const check = Buffer.alloc(4);
    for (const entry of new Set(entries)) {
      if (entry < 0 || entry >= count) throw damaged(file, `no entry ${entry}`);
      if (readSync(fd, pair, 0, 8, HEAD + entry * 4) !== 8) throw damaged(file, 'truncated offsets');
      if (readSync(fd, check, 0, 4, HEAD + (count + 1) * 4 + entry * 4) !== 4) throw damaged(file, 'truncated checksums');
      const from = pair.readUInt32LE(0);
      const to = pair.readUInt32LE(4);
      if (to < from || to - from > 1 << 30) throw damaged(file, `entry ${entry} has a bad range`);
      const text = Buffer.alloc(to - from);
      if (to > from && readSync(fd, text, 0, to - from, dataStart + from) !== to - from) throw damaged(file, `entry ${entry} is truncated`);
      if (crc32(text) !== check.readUInt32LE(0)) throw damaged(file, `entry ${entry} does not match its checksum`);
      result.set(entry, text.toString('utf8'));
    }
  } finally {
    closeSync(fd);
  }
  return result;
}

/**
 * A cheap check when an index is opened: a regular file with the magic, `count` entries, and as long
 * as its offsets say. Entries are checked against their CRCs as they are read.
 */
export function docstoreLooksValid(file: string, count: number): boolean {
  let fd: number | undefined;
  try {
    fd = openDocstore(file);
    const head = Buffer.alloc(HEAD);
    if (readSync(fd, head, 0, head.length, 0) !== head.length || !head.subarray(0, MAGIC.length).equals(MAGIC)) return false;
    if (head.readUInt32LE(MAGIC.length) !== count) return false;
    const last = Buffer.alloc(4);
    if (readSync(fd, last, 0, 4, HEAD + count * 4) !== 4) return false;
    return fstatSync(fd).size === headerBytes(count) + last.readUInt32LE(0);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A docstore held in memory as bytes (never as JS strings), for merging into a new one; entries are CRC-checked. */
export class DocstoreBytes {
  readonly count: number;
  private readonly dataStart: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly name = 'in memory',
  ) {
    if (bytes.length < HEAD || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw damaged(name, 'no docstore header');
    this.count = bytes.readUInt32LE(MAGIC.length);
    this.dataStart = headerBytes(this.count);
    if (this.dataStart > bytes.length || this.dataStart + bytes.readUInt32LE(HEAD + this.count * 4) !== bytes.length)
      throw damaged(name, 'its length does not match its offsets');
  }

  entry(i: number): Buffer {
    if (i < 0 || i >= this.count) throw damaged(this.name, `no entry ${i}`);
    const from = this.bytes.readUInt32LE(HEAD + i * 4);
    const to = this.bytes.readUInt32LE(HEAD + 4 + i * 4);
    if (to < from || this.dataStart + to > this.bytes.length) throw damaged(this.name, `entry ${i} has a bad range`);
    const body = this.bytes.subarray(this.dataStart + from, this.dataStart + to);
    if (crc32(body) !== this.bytes.readUInt32LE(HEAD + (this.count + 1) * 4 + i * 4))
      throw damaged(this.name, `entry ${i} does not match its checksum`);
    return body;
  }
}

/**
 * A docstore from byte entries, as chunks of about 1 MB to write one after another (a 100,000-topic
 * store is never concatenated). Entries are asked for twice: once for the header, once for the data.
 */
export function* docstoreChunks(count: number, entry: (i: number) => Buffer): Generator<Buffer> {
  const out = Buffer.alloc(headerBytes(count));
  MAGIC.copy(out, 0);
  out.writeUInt32LE(count, MAGIC.length);
  const crcs = HEAD + (count + 1) * 4;
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const body = entry(i);
    out.writeUInt32LE(offset, HEAD + i * 4);
    out.writeUInt32LE(crc32(body), crcs + i * 4);
    offset += body.length;
  }
  out.writeUInt32LE(offset, HEAD + count * 4);
  yield out;
  const batch: Buffer[] = [];
  let size = 0;
  for (let i = 0; i < count; i++) {
    const body = entry(i);
    batch.push(body);
    size += body.length;
    if (size > 1 << 20) {
      yield Buffer.concat(batch);
      batch.length = 0;
      size = 0;
    }
  }
  if (batch.length > 0) yield Buffer.concat(batch);
}

/** A docstore in memory, from byte entries (when the index cannot be written, it is served from memory). */
export function docstoreBytes(count: number, entry: (i: number) => Buffer): Buffer {
  const bodies = Array.from({ length: count }, (_, i) => entry(i));
  return Buffer.concat([header(bodies), ...bodies]);
}

/**
 * A docstore file read entry by entry, each CRC-checked, through one descriptor and a read-ahead
 * buffer: entries asked for in increasing order (a merge walks each part so) cost one read per
 * ~256 KiB; any other order still works, a read each. Only the offsets and CRCs are held. For a
 * build's own temporary parts: anything wrong is `index-corrupt`, as for any docstore.
 */
export class DocstoreFile {
  readonly count: number;
  private readonly fd: number;
  private readonly table: Buffer;
  private readonly dataStart: number;
  private window = Buffer.alloc(0);
  private windowAt = 0;

  constructor(private readonly file: string) {
    this.fd = openDocstore(file);
    try {
      const head = Buffer.alloc(HEAD);
      if (readSync(this.fd, head, 0, HEAD, 0) !== HEAD || !head.subarray(0, MAGIC.length).equals(MAGIC))
        throw damaged(file, 'no docstore header');
      this.count = head.readUInt32LE(MAGIC.length);
      this.dataStart = headerBytes(this.count);
      if (this.dataStart > fstatSync(this.fd).size) throw damaged(file, 'truncated header');
      this.table = Buffer.alloc(this.dataStart - HEAD);
      if (readSync(this.fd, this.table, 0, this.table.length, HEAD) !== this.table.length) throw damaged(file, 'truncated header');
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
  }

  entry(i: number): Buffer {
    if (i < 0 || i >= this.count) throw damaged(this.file, `no entry ${i}`);
    const from = this.dataStart + this.table.readUInt32LE(i * 4);
    const to = this.dataStart + this.table.readUInt32LE(i * 4 + 4);
    if (to < from || to - from > 1 << 30) throw damaged(this.file, `entry ${i} has a bad range`);
    if (from < this.windowAt || to > this.windowAt + this.window.length) {
      this.window = Buffer.allocUnsafeSlow(Math.max(to - from, 256 * 1024));
      this.windowAt = from;
      const read = readSync(this.fd, this.window, 0, this.window.length, from);
      this.window = this.window.subarray(0, read);
      if (to > from + read) throw damaged(this.file, `entry ${i} is truncated`);
    }
    // The window is replaced, never overwritten, so a body handed out stays valid.
    const body = this.window.subarray(from - this.windowAt, to - this.windowAt);
    if (crc32(body) !== this.table.readUInt32LE((this.count + 1) * 4 + i * 4))
      throw damaged(this.file, `entry ${i} does not match its checksum`);
    return body;
  }

  close(): void {
    closeSync(this.fd);
  }
}
