import { BatchProcess } from './batch-process.js';
import type { GitProcesses } from './processes.js';
import { formatTreeForMktree, type TreeEntry } from './tree.js';

/**
 * One long-lived `git mktree -z --batch`: rewriting the trees along one topic's path costs a pipe
 * round trip per level, never a process per tree and never a pass over sibling topics.
 */
export class TreeWriter extends BatchProcess<string> {
  private buffered = '';

  constructor(processes: GitProcesses, gitDir: string) {
    super(processes, gitDir, ['mktree', '-z', '--batch']);
  }

  write(entries: readonly TreeEntry[]): Promise<string> {
    return this.request(formatTreeForMktree(entries));
  }

  protected receive(chunk: Buffer): void {
    this.buffered += chunk.toString('utf8');
    let newline;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const oid = this.buffered.slice(0, newline).trim();
      this.buffered = this.buffered.slice(newline + 1);
      this.answer(oid);
    }
  }
}
