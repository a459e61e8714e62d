import { BrvError } from '../errors.js';
import { BatchProcess } from './batch-process.js';
import type { GitProcesses } from './processes.js';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitObject {
  oid: string;
  type: ObjectType;
  data: Buffer;
}

/**
 * One long-lived `git cat-file --batch` per repository: every object read after the first costs a
 * pipe round trip instead of a process start.
 */
export class ObjectReader extends BatchProcess<GitObject | undefined> {
  // Chunks are joined once per answer, not per chunk: joining on every chunk is quadratic in the
  // object's size (a 200 MB blob took minutes).
  private chunks: Buffer[] = [];
  private length = 0;
  /** The header of the object being received: where its data ends in the joined chunks. */
  private expected: { oid: string; type: ObjectType; start: number; end: number } | undefined;

  constructor(processes: GitProcesses, gitDir: string) {
    super(processes, gitDir, ['cat-file', '--batch']);
  }

  /** Reads any object name git understands (`<oid>`, `<rev>:<path>`); undefined when missing. */
  read(name: string): Promise<GitObject | undefined> {
    if (/[\n\r]/.test(name)) return Promise.reject(new BrvError('invalid-object-name', 'Object names cannot contain newlines.'));
    return this.request(`${name}\n`);
  }

  protected receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    for (;;) {
      if (this.expected === undefined) {
        const buffered = this.joined();
        const newline = buffered.indexOf(10);
        if (newline < 0) return;
        const parts = buffered.subarray(0, newline).toString('utf8').split(' ');
        if (parts.length !== 3) {
          // "<name> missing" or "<name> ambiguous"
          this.keep(buffered.subarray(newline + 1));
          this.answer(undefined);
          continue;
        }
        this.expected = { oid: parts[0]!, type: parts[1] as ObjectType, start: newline + 1, end: newline + 1 + Number(parts[2]) };
      }
      const { oid, type, start, end } = this.expected;
      if (this.length < end + 1) return;
      const buffered = this.joined();
      const data = Buffer.from(buffered.subarray(start, end));
      this.expected = undefined;
      this.keep(buffered.subarray(end + 1));
      this.answer({ oid, type, data });
    }
  }

  private joined(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0]!;
  }

  private keep(rest: Buffer): void {
    this.chunks = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
  }
}
