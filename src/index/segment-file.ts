import { closeSync, fstatSync, readSync, type BigIntStats } from 'node:fs';
import { BrvError } from '../base/errors.js';

/** Bytes read at a time: a few pages, so a dictionary probe or a short posting list is one read. */
const BLOCK = 16 * 1024;

/** Descriptors of segment files collected before they were read whole. */
const descriptors = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/**
 * A segment file whose bytes are read as they are first needed. A query touches a small part of a
 * large segment (the dictionary's binary search, its terms' postings, the field lengths, the records
 * of its hits), and reading all of it cost ~3 ms a MB here, most of it the page faults of fresh
 * memory (docs/archive/bench-notebook-2026.md, "Warm path, round 4"). `bytes` is the file's size, zero-filled by the
 * allocator (pages the kernel maps only when written); `need` reads the blocks of a range that are not
 * in yet. The descriptor stays open until the whole file is in or the object is collected, so a file
 * pruned meanwhile still reads: segment files are immutable and named by their contents.
 */
export class SegmentFile {
  readonly bytes: Uint8Array;
  private readonly loaded: Uint8Array;
  private missing: number;
  private fd: number | undefined;

  constructor(
    fd: number,
    size: number,
    private readonly name: string,
  ) {
    this.bytes = new Uint8Array(size);
    this.loaded = new Uint8Array(Math.ceil(size / BLOCK));
    this.missing = this.loaded.length;
    this.fd = fd;
    descriptors.register(this, fd, this);
    if (this.missing === 0) this.close();
  }

  /** Makes `bytes[start, end)` hold the file's bytes (clamped to the file). */
  need(start: number, end: number): void {
    if (this.missing === 0) return;
    this.fill(start, end);
    if (this.missing === 0) this.close();
  }

  private fill(start: number, end: number): void {
    const last = Math.ceil(Math.min(end, this.bytes.length) / BLOCK);
    for (let block = Math.max(0, Math.floor(start / BLOCK)); block < last; block++) {
      if (this.loaded[block] === 1) continue;
      let to = block + 1;
      while (to < last && this.loaded[to] === 0) to++;
      this.read(block * BLOCK, Math.min(to * BLOCK, this.bytes.length));
      this.loaded.fill(1, block, to);
      this.missing -= to - block;
      block = to - 1;
    }
  }

  /** Bytes read from the file so far. */
  get bytesRead(): number {
    let blocks = 0;
    for (let b = 0; b < this.loaded.length; b++) blocks += this.loaded[b]!;
    const lastPartial =
      this.loaded.length > 0 && this.loaded[this.loaded.length - 1] === 1 ? this.loaded.length * BLOCK - this.bytes.length : 0;
    return blocks * BLOCK - lastPartial;
  }

  /** Reads whatever is not in yet. */
  needAll(): void {
    this.need(0, this.bytes.length);
  }

  /**
   * Reads whatever is not in yet and returns the status of the file as read: the descriptor's, taken
   * after the last read (a file changed while it was read shows a newer one). Undefined when the
   * descriptor was already closed.
   */
  readAllWithStatus(): BigIntStats | undefined {
    this.fill(0, this.bytes.length);
    const fd = this.fd;
    if (fd === undefined) return undefined;
    try {
      return fstatSync(fd, { bigint: true });
    } catch {
      return undefined;
    } finally {
      this.close();
    }
  }

  private read(from: number, to: number): void {
    const fd = this.fd;
    if (fd === undefined) throw this.damaged('it could not be read');
    try {
      for (let at = from; at < to;) {
        const n = readSync(fd, this.bytes, at, to - at, at);
        if (n === 0) throw this.damaged('it is shorter than when it was opened');
        at += n;
      }
    } catch (error) {
      this.close();
      throw error instanceof BrvError ? error : this.damaged(`it could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  private damaged(why: string): BrvError {
    return new BrvError('index-corrupt', `Search index segment ${this.name} is unreadable: ${why}.`);
  }

  private close(): void {
    if (this.fd === undefined) return;
    descriptors.unregister(this);
    try {
      closeSync(this.fd);
    } catch {
      // Nothing to do: the bytes read are kept.
    }
    this.fd = undefined;
  }
}
