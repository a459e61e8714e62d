/**
 * git's own transfer progress ("Receiving objects:  45% (450/1000), 1.2 MiB | 300 KiB/s"), which
 * `git fetch --progress` and `git push --progress` write to stderr, each update ending in `\r`.
 */
export interface GitTransferProgress {
  /** As git names it: `Counting objects`, `Compressing objects`, `Receiving objects`, `Resolving deltas`, `Writing objects`… */
  phase: string;
  /** The remote's side of the work (git's `remote: ` lines). */
  remote: boolean;
  done: number;
  /** Absent when git only counts (`Enumerating objects: 5`). */
  total?: number;
}

const PROGRESS_LINE = /^(remote: )?([A-Z][a-z]+ (?:objects|deltas)): +(?:\d{1,3}% \((\d+)\/(\d+)\)|(\d+)(?=[,\s]|$))/;

/** The progress a line of git's stderr reports, or undefined for any other line. */
export function parseTransferLine(line: string): GitTransferProgress | undefined {
  const match = PROGRESS_LINE.exec(line.trim());
  if (!match) return undefined;
  const [, remote, phase, done, total, count] = match;
  return total === undefined
    ? { phase: phase!, remote: remote !== undefined, done: Number(count) }
    : { phase: phase!, remote: remote !== undefined, done: Number(done), total: Number(total) };
}

/**
 * Splits git's stderr as it arrives into progress updates (reported) and every other line (kept,
 * so that a failure's message is git's words without the progress noise).
 */
export class TransferLines {
  private pending = '';
  private readonly kept: string[] = [];

  constructor(private readonly report: (progress: GitTransferProgress) => void) {}

  push(chunk: string): void {
    const parts = (this.pending + chunk).split(/\r\n|\r|\n/);
    this.pending = parts.pop() ?? '';
    for (const line of parts) this.line(line);
  }

  /** Everything but the progress lines, once the process has ended. */
  end(): string {
    if (this.pending !== '') this.line(this.pending);
    this.pending = '';
    return this.kept.length > 0 ? `${this.kept.join('\n')}\n` : '';
  }

  private line(line: string): void {
    const progress = parseTransferLine(line);
    if (progress) this.report(progress);
    else if (line.trim() !== '') this.kept.push(line);
  }
}
