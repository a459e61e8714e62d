import type { ChildProcess } from 'node:child_process';
import { BrvError } from '../base/errors.js';
import type { GitProcesses } from './processes.js';
import { spawnFailure, spawnGit } from './run.js';

/**
 * A long-lived git process fed requests on stdin, answering in order on stdout
 * (`cat-file --batch`, `mktree --batch`). Subclasses parse the answers.
 */
export abstract class BatchProcess<T> {
  private readonly child: ChildProcess;
  /** Requests not answered yet, oldest first; `limit`: what the request allows the answer to load (the reader's). */
  protected readonly pending: Array<{ resolve: (value: T) => void; reject: (error: Error) => void; limit: number }> = [];
  private failure: Error | undefined;
  private closed = false;
  private stderr = '';

  constructor(
    private readonly processes: GitProcesses,
    gitDir: string,
    args: readonly string[],
  ) {
    // A start that failed (EMFILE: no pipes) throws the typed error here: no request is ever made of it.
    this.child = spawnGit(processes, [`--git-dir=${gitDir}`, ...args], { stdin: true });
    this.child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    // EPIPE when git is gone (killed, crashed): a typed failure like its exit, whichever is seen first.
    this.child.stdin!.on('error', (error: Error) =>
      this.fail(
        new BrvError(
          'git-failed',
          `git ${args[0]} stopped reading its input (${error.message}${this.stderr ? `: ${this.stderr.trim()}` : ''}). Run the command again.`,
        ),
      ),
    );
    this.child.on('error', (error) => this.fail(spawnFailure(error)));
    this.child.on('close', () => {
      if (!this.closed || this.pending.length > 0)
        this.fail(new BrvError('git-failed', `git ${args[0]} exited unexpectedly: ${this.stderr.trim()}`));
    });
  }

  protected request(input: string, limit = Infinity): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new BrvError('git-failed', 'The git process is closed.'));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject, limit });
      this.child.stdin!.write(input);
    });
  }

  protected answer(value: T): void {
    this.pending.shift()?.resolve(value);
  }

  /** The limit of the request the next answer belongs to. */
  protected pendingLimit(): number {
    return this.pending[0]?.limit ?? Infinity;
  }

  protected abstract receive(chunk: Buffer): void;

  /** Ends the request stream; git exits on EOF by itself, so brv does not wait for it to go. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // git exits on EOF; nothing left to stop at exit.
    this.processes.untrack(this.child);
    this.child.stdin!.end();
    this.child.unref();
    for (const stream of [this.child.stdout, this.child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const request of this.pending.splice(0)) request.reject(this.failure);
  }
}
