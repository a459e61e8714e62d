// What was typed at the prompt: recalled with ↑/↓, searched with Ctrl-R, kept per repository in
// a file under its git directory (`brv/tui-history`): never in the work tree, never committed.
import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cleanInput, MAX_LINE } from './line-editor.js';

/** Lines kept; the file is rewritten to this many once it holds twice as many. */
export const MAX_HISTORY = 1000;
/** A history file larger than this is not read (it is not ours any more). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The lines entered, oldest first, with the position ↑/↓ have reached. */
export class InputHistory {
  private readonly lines: string[];
  /** Index into `lines` being shown, or `lines.length` for the line being typed. */
  private at: number;
  private draft = '';

  constructor(lines: readonly string[] = []) {
    this.lines = lines.slice(-MAX_HISTORY);
    this.at = this.lines.length;
  }

  get entries(): readonly string[] {
    return this.lines;
  }

  /** Records an entered line (not a blank one, nor the same as the last); back to the end. */
  add(line: string): boolean {
    this.at = this.lines.length;
    const clean = line.trim();
    if (clean === '' || this.lines[this.lines.length - 1] === clean) {
      this.at = this.lines.length;
      return false;
    }
    this.lines.push(clean);
    if (this.lines.length > MAX_HISTORY) this.lines.shift();
    this.at = this.lines.length;
    return true;
  }

  /** ↑: the previous line (the one being typed is kept for ↓); undefined at the oldest. */
  older(current: string): string | undefined {
    if (this.at === 0) return undefined;
    if (this.at === this.lines.length) this.draft = current;
    this.at--;
    return this.lines[this.at];
  }

  /** ↓: the next line, then the line that was being typed; undefined when already there. */
  newer(): string | undefined {
    if (this.at >= this.lines.length) return undefined;
    this.at++;
    return this.at === this.lines.length ? this.draft : this.lines[this.at];
  }

  /** Back to the line being typed (after an entry, Esc, or an edit). */
  reset(): void {
    this.at = this.lines.length;
  }

  /**
   * Ctrl-R: the most recent line containing `query` (case-insensitive) strictly before `before`
   * (an index; the end by default), with its index, for the next Ctrl-R to continue from.
   */
  search(query: string, before = this.lines.length): { index: number; line: string } | undefined {
    const needle = query.toLowerCase();
    for (let i = Math.min(before, this.lines.length) - 1; i >= 0; i--) {
      if (this.lines[i]!.toLowerCase().includes(needle)) return { index: i, line: this.lines[i]! };
    }
    return undefined;
  }
}

/** Where a repository's prompt history lives: its common git directory (shared by its worktrees). */
export function historyFile(commonGitDir: string): string {
  return path.join(commonGitDir, 'brv', 'tui-history');
}

/** The history saved in `file` (none if it is missing, unreadable or absurd). One line per entry. */
export async function loadHistory(file: string): Promise<string[]> {
  try {
    if ((await stat(file)).size > MAX_FILE_BYTES) return [];
    const text = await readFile(file, 'utf8');
    return text
      .split('\n')
      .map((line) => cleanInput(line).slice(0, MAX_LINE).trim())
      .filter((line) => line !== '')
      .slice(-MAX_HISTORY);
  } catch {
    return [];
  }
}

/** Appends one entry; rewrites the file to its last MAX_HISTORY lines once it has grown to twice that. */
export async function saveHistoryLine(file: string, line: string, history: InputHistory): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${cleanInput(line)}\n`, { mode: 0o600 });
  const { size } = await stat(file);
  // A cheap check first: only a large file is counted.
  if (size > MAX_HISTORY * 80) {
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
    if (lines.length > 2 * MAX_HISTORY) await writeFile(file, `${history.entries.join('\n')}\n`, { mode: 0o600 });
  }
}
