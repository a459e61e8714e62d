import { BrvError } from '../base/errors.js';
import { BatchProcess } from './batch-process.js';
import type { GitProcesses } from './processes.js';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitObject {
  oid: string;
  type: ObjectType;
  data: Buffer;
}

/**
 * An object whose header said it is larger than the read allowed: its data went by unread (dropped
 * chunk by chunk as the pipe delivered it, never held whole).
 */
export interface OversizedObject {
  oid: string;
  type: ObjectType;
  size: number;
  oversized: true;
}

/** One answer of `git cat-file --batch`: an object, one over the request's limit, or undefined (missing). */
export type BatchAnswer = GitObject | OversizedObject | undefined;

/**
 * One long-lived `git cat-file --batch` per repository: every object read after the first costs a
 * pipe round trip instead of a process start.
 */
export class ObjectReader extends BatchProcess<BatchAnswer> {
  /** The limit of the request being answered: requests are answered in order, the oldest pending first. */
  private readonly parser = new CatFileBatchParser(() => this.pendingLimit());

  constructor(processes: GitProcesses, gitDir: string) {
    super(processes, gitDir, ['cat-file', '--batch']);
  }

  /** Reads any object name git understands (`<oid>`, `<rev>:<path>`); undefined when missing. */
  read(name: string): Promise<GitObject | undefined> {
    return this.readWithin(name, Infinity) as Promise<GitObject | undefined>;
  }

  /**
   * Reads an object unless its header says it is over `maxBytes`: then its data is discarded as it
   * streams by (never more than a pipe chunk of it in memory) and the answer is an OversizedObject.
   */
  readWithin(name: string, maxBytes: number): Promise<BatchAnswer> {
    if (/[\n\r]/.test(name)) return Promise.reject(new BrvError('invalid-object-name', 'Object names cannot contain newlines.'));
    return this.request(`${name}\n`, maxBytes);
  }

  protected receive(chunk: Buffer): void {
    this.parser.push(chunk, (answer) => this.answer(answer));
  }
}

/** An object's header line: `<oid> <type> <size>`. Anything else answers a name that is missing or ambiguous. */
const OBJECT_HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (blob|tree|commit|tag) (\d{1,15})$/;

/**
 * The answers in `git cat-file --batch` output, however the pipe splits it: `<oid> <type> <size>\n`,
 * the data and a newline, or `<name> missing|ambiguous\n` (undefined). An object's data is copied out
 * once, straight from the chunks, when all of it has arrived: joining the chunks on every arrival was
 * quadratic in the object's size (a 200 MB blob took minutes), and joining them once per answer
 * copied every byte twice (docs/archive/bench-notebook-2026.md, "Cold path, round 5").
 */
export class CatFileBatchParser {
  /** The pipe's chunks, unread bytes only. */
  private chunks: Buffer[] = [];
  private length = 0;
  /**
   * The header of the object being received: its data's size, from the chunks' first byte on. An
   * object over its limit is `discarding`: `left` counts its bytes (and newline) still to drop.
   */
  private expected: { oid: string; type: ObjectType; size: number; discarding: boolean; left: number } | undefined;

  /** `limit`: the most bytes the answer now being received may load (asked when its header arrives). */
  constructor(private readonly limit: () => number = () => Infinity) {}

  /** Adds a chunk of output; `answer` is called for each answer it completes, in order. */
  push(chunk: Buffer, answer: (object: BatchAnswer) => void): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    for (;;) {
      if (this.expected === undefined) {
        const header = this.line();
        if (header === undefined) return;
        const object = OBJECT_HEADER.exec(header);
        if (!object) {
          answer(undefined); // "<name> missing" or "<name> ambiguous" (a name may hold spaces)
          continue;
        }
        const size = Number(object[3]);
        const discarding = size > this.limit();
        this.expected = { oid: object[1]!, type: object[2] as ObjectType, size, discarding, left: size + 1 };
      }
      const { oid, type, size, discarding } = this.expected;
      if (discarding) {
        // Dropped as it arrives: the chunks never hold more than the last one.
        const n = Math.min(this.length, this.expected.left);
        this.skip(n);
        this.expected.left -= n;
        if (this.expected.left > 0) return;
        this.expected = undefined;
        answer({ oid, type, size, oversized: true });
        continue;
      }
      if (this.length < size + 1) return;
      const data = this.take(size);
      this.skip(1); // the newline after the data
      this.expected = undefined;
      answer({ oid, type, data });
    }
  }

  /** The next line (without its newline), consumed; undefined until all of it has arrived. */
  private line(): string | undefined {
    let before = 0;
    for (const chunk of this.chunks) {
      const newline = chunk.indexOf(10);
      if (newline >= 0) {
        const text = this.take(before + newline).toString('utf8');
        this.skip(1);
        return text;
      }
      before += chunk.length;
    }
    return undefined;
  }

  /** The next `size` bytes, consumed: one new buffer (small ones from Node's pool), whatever chunks they span. */
  private take(size: number): Buffer {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= size) {
      const data = Buffer.from(first.subarray(0, size));
      this.skip(size);
      return data;
    }
    const data = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const chunk = this.chunks[0]!;
      const n = Math.min(chunk.length, size - filled);
      chunk.copy(data, filled, 0, n);
      filled += n;
      this.skip(n);
    }
    return data;
  }

  /** Drops the next `size` bytes (never more than have arrived). */
  private skip(size: number): void {
    this.length -= size;
    while (size > 0) {
      const chunk = this.chunks[0]!;
      if (chunk.length <= size) {
        size -= chunk.length;
        this.chunks.shift();
      } else {
        this.chunks[0] = chunk.subarray(size);
        size = 0;
      }
    }
  }
}
