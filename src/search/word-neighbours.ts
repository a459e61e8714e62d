import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { brvPackageRoot } from '../base/package-root.js';
import { analyze } from '../index/analyze.js';

/**
 * A table of word neighbours: for an English word, the words nearest it in GloVe's vector space (cosine),
 * as brv's analyser stems them — "pets" → pet, cat, anim. The ranking adds a few of them to a query
 * with a low weight (search.ts, `NeighbourOptions`). The table ships with brv (data/word-neighbours.txt,
 * built by scripts/build-word-neighbours.ts); a query looks its words up with a few positioned reads of
 * the sorted file instead of loading it, so a query that uses it reads a few kilobytes, not megabytes.
 *
 * Format: a header line starting `TABLE_HEADER`, then one line per word, sorted by word:
 * `word<TAB>stem:cc stem:cc …`, cc the cosine in hundredths, best first. A damaged or missing file
 * yields no neighbours (the ranking goes on without them); it never throws.
 */

export const TABLE_HEADER = '# brv word neighbours 1:';

export interface WordNeighbour {
  /** An analysed term (a stem), as the index holds it. */
  readonly term: string;
  readonly cosine: number;
}

export interface WordNeighbourTable {
  /** The neighbours of a lowercased word, best first; none for a word the table does not hold. */
  neighbours(word: string): readonly WordNeighbour[];
}

/** A line longer than this is damage, not data (real lines are under 100 bytes). */
const MAX_LINE = 512;
/** Binary search narrows the byte range to this, then reads it whole. */
const WINDOW = 4096;
const WORD = /^[a-z]{1,40}$/;
const NONE: readonly WordNeighbour[] = [];
const MEMO_LIMIT = 10_000;

let shipped: WordNeighbourTable | null | undefined;

/** The table brv ships (data/word-neighbours.txt), opened once; undefined when the package lacks it. */
export function shippedWordNeighbours(): WordNeighbourTable | undefined {
  if (shipped === undefined) {
    try {
      shipped = openWordNeighbourTable(path.join(brvPackageRoot(), 'data', 'word-neighbours.txt')) ?? null;
    } catch {
      shipped = null; // no package directory: no table
    }
  }
  return shipped ?? undefined;
}

/** Opens the table at `file`; undefined when it is missing or not a table. The descriptor stays open for the process. */
export function openWordNeighbourTable(file: string): WordNeighbourTable | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const head = read(fd, 0, MAX_LINE);
    const end = head.indexOf(10);
    if (end < 0 || !head.subarray(0, end).toString('latin1').startsWith(TABLE_HEADER)) throw new Error('not a table');
    return new FileTable(fd, end + 1, size);
  } catch {
    closeSync(fd);
    return undefined;
  }
}

class FileTable implements WordNeighbourTable {
  private readonly memo = new Map<string, readonly WordNeighbour[]>();

  constructor(
    private readonly fd: number,
    private readonly start: number,
    private readonly size: number,
  ) {}

  neighbours(word: string): readonly WordNeighbour[] {
    if (!WORD.test(word)) return NONE;
    let found = this.memo.get(word);
    if (found === undefined) {
      try {
        found = this.find(word);
      } catch {
        found = NONE; // an unreadable table is an empty one
      }
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      this.memo.set(word, found);
    }
    return found;
  }

  /** Binary search over byte offsets; `lo` is always the start of a line, `hi` the start of a line or the end. */
  private find(word: string): readonly WordNeighbour[] {
    let lo = this.start;
    let hi = this.size;
    while (hi - lo > WINDOW) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const buffer = read(this.fd, mid - 1, 2 * MAX_LINE);
      const before = buffer.indexOf(10);
      const after = before < 0 ? -1 : buffer.indexOf(10, before + 1);
      if (after < 0) return NONE; // no whole line within reach: not a table
      const lineStart = mid + before;
      const line = buffer.subarray(before + 1, after).toString('latin1');
      const key = line.slice(0, line.indexOf('\t'));
      if (key === word) return parse(line);
      if (key < word) lo = mid + after;
      else hi = lineStart;
    }
    const window = read(this.fd, lo, hi - lo).toString('latin1');
    for (const line of window.split('\n')) if (line.startsWith(`${word}\t`)) return parse(line);
    return NONE;
  }
}

function read(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  const n = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, n);
}

function parse(line: string): readonly WordNeighbour[] {
  const neighbours: WordNeighbour[] = [];
  for (const entry of line.slice(line.indexOf('\t') + 1).split(' ')) {
    const colon = entry.indexOf(':');
    const term = entry.slice(0, colon);
    const hundredths = Number(entry.slice(colon + 1));
    if (colon < 1 || !Number.isInteger(hundredths) || hundredths < 0 || hundredths > 100) continue;
    neighbours.push({ term, cosine: hundredths / 100 });
  }
  return neighbours;
}

/**
 * What the table's stems depend on: the analyser's stems of the table's own words, hashed. The build
 * writes it in the header; a test compares it with today's analyser, so a stemming change that would
 * make the table's terms miss the index is caught (rebuild with scripts/build-word-neighbours.ts).
 */
export function analyserFingerprint(words: readonly string[]): string {
  const hash = createHash('sha256');
  for (const word of words) hash.update(`${word} ${analyze(word).join(' ')}\n`);
  return hash.digest('hex').slice(0, 16);
}
