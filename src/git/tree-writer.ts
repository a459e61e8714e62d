import { execa } from 'execa';
import { BrvError } from '../errors.js';
import { cleanGitEnvironment } from './env.js';
import { formatTreeForMktree, type TreeEntry } from './tree.js';

/**
 * One long-lived `git mktree -z --batch`: rewriting the trees along one topic's path costs a pipe
 * round trip per level, never a process per tree and never a pass over sibling topics.
 */
export class TreeWriter {
  private readonly process;
  private readonly pending: Array<{ resolve: (oid: string) => void; reject: (error: Error) => void }> = [];
  private buffered = '';
  private failure: Error | undefined;
  private closed = false;

  constructor(gitDir: string) {
    this.process = execa('git', [`--git-dir=${gitDir}`, 'mktree', '-z', '--batch'], {
      env: cleanGitEnvironment(),
      extendEnv: false,
      buffer: false,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      reject: false,
      encoding: 'utf8',
    });
    this.process.stdout.setEncoding('utf8');
    this.process.stdout.on('data', (chunk: string) => this.receive(chunk));
    this.process.stdin.on('error', (error: Error) => this.fail(error));
    void this.process.then((result) => {
      if (!this.closed || this.pending.length > 0) {
        this.fail(new BrvError('git-failed', `git mktree failed: ${String(result.stderr ?? '').trim()}`));
      }
    });
  }

  write(entries: readonly TreeEntry[]): Promise<string> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.process.stdin.write(formatTreeForMktree(entries));
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.process.stdin.end();
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    let newline;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const oid = this.buffered.slice(0, newline).trim();
      this.buffered = this.buffered.slice(newline + 1);
      this.pending.shift()?.resolve(oid);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const request of this.pending.splice(0)) request.reject(this.failure);
  }
}
