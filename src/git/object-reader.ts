import { execa } from 'execa';
import { BrvError } from '../errors.js';
import { cleanGitEnvironment } from './env.js';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitObject {
  oid: string;
  type: ObjectType;
  data: Buffer;
}

interface PendingRead {
  resolve: (object: GitObject | undefined) => void;
  reject: (error: Error) => void;
}

/**
 * One long-lived `git cat-file --batch` process per repository: every object read after the first
 * costs a pipe round trip instead of a process start.
 */
export class ObjectReader {
  private readonly process;
  private readonly pending: PendingRead[] = [];
  private buffered: Buffer = Buffer.alloc(0);
  private failure: Error | undefined;
  private closed = false;

  constructor(gitDir: string) {
    this.process = execa('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch'], {
      env: cleanGitEnvironment(),
      extendEnv: false,
      buffer: false,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      reject: false,
    });
    this.process.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.process.stdin.on('error', (error: Error) => this.fail(error));
    void this.process.then((result) => {
      if (!this.closed) this.fail(new BrvError('git-failed', `git cat-file exited unexpectedly: ${String(result.stderr ?? '').trim()}`));
    });
  }

  /** Reads any object name git understands (`<oid>`, `<rev>:<path>`); undefined when missing. */
  read(name: string): Promise<GitObject | undefined> {
    if (/[\n\r]/.test(name)) return Promise.reject(new BrvError('invalid-object-name', 'Object names cannot contain newlines.'));
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new BrvError('git-failed', 'The object reader is closed.'));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.process.stdin.write(`${name}\n`);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.process.stdin.end();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const newline = this.buffered.indexOf(10);
      if (newline < 0) return;
      const header = this.buffered.subarray(0, newline).toString('utf8');
      const parts = header.split(' ');
      if (parts.length === 2) {
        this.buffered = this.buffered.subarray(newline + 1);
        this.pending.shift()?.resolve(undefined);
        continue;
      }
      const size = Number(parts[2]);
      const end = newline + 1 + size;
      if (this.buffered.length < end + 1) return;
      const data = Buffer.from(this.buffered.subarray(newline + 1, end));
      this.buffered = this.buffered.subarray(end + 1);
      this.pending.shift()?.resolve({ oid: parts[0]!, type: parts[1] as ObjectType, data });
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const request of this.pending.splice(0)) request.reject(this.failure);
  }
}
