import { BrvError } from '../errors.js';
import { BatchProcess } from './batch-process.js';

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
  private buffered: Buffer = Buffer.alloc(0);

  constructor(gitDir: string) {
    super(gitDir, ['cat-file', '--batch']);
  }

  /** Reads any object name git understands (`<oid>`, `<rev>:<path>`); undefined when missing. */
  read(name: string): Promise<GitObject | undefined> {
    if (/[\n\r]/.test(name)) return Promise.reject(new BrvError('invalid-object-name', 'Object names cannot contain newlines.'));
    return this.request(`${name}\n`);
  }

  protected receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const newline = this.buffered.indexOf(10);
      if (newline < 0) return;
      const parts = this.buffered.subarray(0, newline).toString('utf8').split(' ');
      if (parts.length !== 3) {
        // "<name> missing" or "<name> ambiguous"
        this.buffered = this.buffered.subarray(newline + 1);
        this.answer(undefined);
        continue;
      }
      const end = newline + 1 + Number(parts[2]);
      if (this.buffered.length < end + 1) return;
      const data = Buffer.from(this.buffered.subarray(newline + 1, end));
      this.buffered = this.buffered.subarray(end + 1);
      this.answer({ oid: parts[0]!, type: parts[1] as ObjectType, data });
    }
  }
}
