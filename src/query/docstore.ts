import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Rendered markdown of a segment's documents, in the segment's document order, stored next to it:
 * `u32 count`, `count + 1` u32 offsets, then UTF-8 text. Rendering happens when the index is built
 * (the HTML toolchain is loaded then anyway), so a query reads a few byte ranges and never loads
 * the HTML parser or the markdown renderer.
 */
const MAGIC = Buffer.from('BRVMD001');

export function buildDocstore(texts: readonly string[]): Buffer {
  const bodies = texts.map((t) => Buffer.from(t, 'utf8'));
  const header = Buffer.alloc(MAGIC.length + 4 + (bodies.length + 1) * 4);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(bodies.length, MAGIC.length);
  let offset = 0;
  bodies.forEach((body, i) => {
    header.writeUInt32LE(offset, MAGIC.length + 4 + i * 4);
    offset += body.length;
  });
  header.writeUInt32LE(offset, MAGIC.length + 4 + bodies.length * 4);
  return Buffer.concat([header, ...bodies]);
}

/**
 * Reads entries of a docstore file by position, without loading the whole file. Synchronous on
 * purpose: a query reads about twenty small ranges, and a promise round trip per read cost more
 * (~8 ms per query, measured) than the reads themselves.
 */
export function readDocstoreEntries(file: string, entries: readonly number[]): Map<number, string> {
  const result = new Map<number, string>();
  if (entries.length === 0) return result;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(MAGIC.length + 4);
    readSync(fd, head, 0, head.length, 0);
    if (!head.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error(`${file} is not a brv docstore`);
    const count = head.readUInt32LE(MAGIC.length);
    const dataStart = MAGIC.length + 4 + (count + 1) * 4;
    const pair = Buffer.alloc(8);
    for (const entry of new Set(entries)) {
      if (entry < 0 || entry >= count) continue;
      readSync(fd, pair, 0, 8, MAGIC.length + 4 + entry * 4);
      const from = pair.readUInt32LE(0);
      const to = pair.readUInt32LE(4);
      const text = Buffer.alloc(Math.max(0, to - from));
      if (to > from) readSync(fd, text, 0, to - from, dataStart + from);
      result.set(entry, text.toString('utf8'));
    }
  } finally {
    closeSync(fd);
  }
  return result;
}

/** A cheap check when an index is opened: the file exists, has the magic, and is as long as its offsets say. */
export function docstoreLooksValid(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(MAGIC.length + 4);
    if (readSync(fd, head, 0, head.length, 0) !== head.length || !head.subarray(0, MAGIC.length).equals(MAGIC)) return false;
    const count = head.readUInt32LE(MAGIC.length);
    const last = Buffer.alloc(4);
    if (readSync(fd, last, 0, 4, MAGIC.length + 4 + count * 4) !== 4) return false;
    return fstatSync(fd).size === MAGIC.length + 4 + (count + 1) * 4 + last.readUInt32LE(0);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A docstore held in memory as bytes (never as JS strings), for merging into a new one. */
export class DocstoreBytes {
  readonly count: number;
  private readonly dataStart: number;

  constructor(private readonly bytes: Buffer) {
    if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a brv docstore');
    this.count = bytes.readUInt32LE(MAGIC.length);
    this.dataStart = MAGIC.length + 4 + (this.count + 1) * 4;
  }

  entry(i: number): Buffer {
    const from = this.bytes.readUInt32LE(MAGIC.length + 4 + i * 4);
    const to = this.bytes.readUInt32LE(MAGIC.length + 8 + i * 4);
    return this.bytes.subarray(this.dataStart + from, this.dataStart + to);
  }
}

/** Writes a docstore from byte entries, streaming (a 100,000-topic store is never concatenated). */
export async function writeDocstoreFile(file: string, count: number, entry: (i: number) => Buffer): Promise<void> {
  const header = Buffer.alloc(MAGIC.length + 4 + (count + 1) * 4);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(count, MAGIC.length);
  let offset = 0;
  for (let i = 0; i < count; i++) {
    header.writeUInt32LE(offset, MAGIC.length + 4 + i * 4);
    offset += entry(i).length;
  }
  header.writeUInt32LE(offset, MAGIC.length + 4 + count * 4);
  const handle = await open(file, 'w');
  try {
    await handle.write(header);
    const batch: Buffer[] = [];
    let size = 0;
    for (let i = 0; i < count; i++) {
      const body = entry(i);
      batch.push(body);
      size += body.length;
      if (size > 1 << 20) {
        await handle.write(Buffer.concat(batch));
        batch.length = 0;
        size = 0;
      }
    }
    if (batch.length > 0) await handle.write(Buffer.concat(batch));
  } finally {
    await handle.close();
  }
}
