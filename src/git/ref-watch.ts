import { existsSync, watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { GitRepository } from './repository.js';

/** One ref that moved: `from` undefined means created, `to` undefined means deleted. */
export interface RefMove {
  ref: string;
  from: string | undefined;
  to: string | undefined;
}

export interface RefWatchOptions {
  /** How long to wait after the first file event before reading the refs (coalesces a burst). */
  debounceMs?: number;
  /** The interval of the fallback poll, used when the ref files cannot be watched. */
  pollMs?: number;
  /** Poll even though the ref files could be watched (tests of the fallback). */
  poll?: boolean;
}

export interface RefWatchHandlers {
  onMoves(moves: RefMove[]): void;
  /** A snapshot that could not be read; the watch goes on and the next change reads again. */
  onError(error: unknown): void;
}

const DEFAULT_DEBOUNCE_MS = 50;
const DEFAULT_POLL_MS = 2000;

/**
 * Watches the refs under one prefix of a repository, whoever writes them (this process, a CLI in
 * another, `git fetch`, `git update-ref`, `git pack-refs`). Git keeps refs as loose files under
 * `<common-dir>/refs/…` (written by renaming `<ref>.lock`) and as lines of `<common-dir>/packed-refs`
 * (rewritten the same way), so the watch is inotify (`fs.watch`) on every directory below the prefix,
 * on the directories above it (for the prefix's own directory appearing) and on the common dir (for
 * packed-refs). A file event is only a hint: ~50 ms later one `for-each-ref` is diffed against the last
 * snapshot and only real moves are reported. Nothing runs while nothing changes. Where the files cannot
 * be watched (a reftable repository, no inotify watches left) it falls back to a slow poll and says so
 * in `fallback`. Watchers and timers never keep the process alive.
 */
export class RefWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly looseRoot: string;
  private readonly debounceMs: number;
  private readonly pollMs: number;
  private snapshot = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private fallbackReason: string | undefined;

  private constructor(
    private readonly repo: GitRepository,
    private readonly prefix: string,
    private readonly handlers: RefWatchHandlers,
    options: RefWatchOptions,
  ) {
    this.looseRoot = path.join(repo.location.commonDir, ...prefix.split('/').filter(Boolean));
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  }

  /** Starts watching; resolves once the first snapshot is read (moves after that are reported). */
  static async start(repo: GitRepository, prefix: string, handlers: RefWatchHandlers, options: RefWatchOptions = {}): Promise<RefWatcher> {
    const watcher = new RefWatcher(repo, prefix, handlers, options);
    // Watchers first, snapshot second: a move between the two is read by the snapshot or reported.
    if (options.poll) watcher.startPolling('polling was asked for');
    else if (existsSync(path.join(repo.location.commonDir, 'reftable')))
      watcher.startPolling('refs are stored in a reftable, not in files');
    else await watcher.reconcile();
    // A file event during the first read must not be diffed against an empty snapshot: it waits.
    const first = watcher.read().then((snapshot) => void (watcher.snapshot = snapshot));
    watcher.running = first.catch(() => {});
    try {
      await first;
    } catch (error) {
      watcher.close();
      throw error;
    } finally {
      watcher.running = undefined;
    }
    if (watcher.again) void watcher.refresh();
    return watcher;
  }

  /** 'watch': file events; 'poll': a `for-each-ref` every `pollMs` (see `fallback` for why). */
  get mode(): 'watch' | 'poll' {
    return this.fallbackReason === undefined ? 'watch' : 'poll';
  }

  /** Why this watcher polls, when it does. */
  get fallback(): string | undefined {
    return this.fallbackReason;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pollTimer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private async read(): Promise<Map<string, string>> {
    return new Map((await this.repo.listRefs(this.prefix)).map(({ ref, oid }) => [ref, oid]));
  }

  /** A file event: read the refs once the burst it belongs to is over. */
  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, this.debounceMs);
    this.timer.unref();
  }

  private refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        if (this.closed) return;
        try {
          if (this.mode === 'watch') await this.reconcile();
          const next = await this.read();
          if (this.closed) return;
          const moves = diffSnapshots(this.snapshot, next);
          this.snapshot = next;
          if (moves.length > 0) this.handlers.onMoves(moves);
        } catch (error) {
          if (!this.closed) this.handlers.onError(error);
        }
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Watches exactly the directories that exist below the prefix, plus the fixed ones above it.
   * Directories appear (a first ref in a new namespace) and disappear (git prunes empty ones).
   */
  private async reconcile(): Promise<void> {
    const { commonDir } = this.repo.location;
    const wanted = new Map<string, (name: string | null) => boolean>();
    // Above the prefix: only the next path component (and packed-refs in the common dir) matter.
    const components = path.relative(commonDir, this.looseRoot).split(path.sep);
    let dir = commonDir;
    for (const component of components) {
      const here = dir;
      wanted.set(here, (name) => name === null || name === component || (here === commonDir && name === 'packed-refs'));
      dir = path.join(dir, component);
    }
    const relevant = (name: string | null) => name === null || !name.endsWith('.lock');
    for (const below of await directoriesUnder(this.looseRoot)) wanted.set(below, relevant);

    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    for (const [dir, filter] of wanted) {
      if (this.watchers.has(dir) || this.closed || this.mode === 'poll') continue;
      let w: FSWatcher;
      try {
        w = watch(dir, { persistent: false, encoding: 'utf8' }, (_event, name) => {
          if (filter(name)) this.schedule();
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          this.schedule(); // gone since it was listed: look again
          continue;
        }
        this.startPolling(`the ref files cannot be watched (${code ?? (error as Error).message})`);
        return;
      }
      // A watched directory that is removed ends its watcher; the next reconcile decides again.
      w.on('error', () => {
        w.close();
        if (this.watchers.get(dir) === w) this.watchers.delete(dir);
        this.schedule();
      });
      this.watchers.set(dir, w);
    }
  }

  private startPolling(reason: string): void {
    this.fallbackReason = reason;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    if (this.closed || this.pollTimer) return;
    this.pollTimer = setInterval(() => void this.refresh(), this.pollMs);
    this.pollTimer.unref();
  }
}

/** Every directory at and below `root` (none if it does not exist); symlinks are not followed. */
async function directoriesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // absent, or removed while walking
    }
    found.push(dir);
    for (const entry of entries) if (entry.isDirectory()) pending.push(path.join(dir, entry.name));
  }
  return found;
}

/** The refs that differ between two snapshots, by ref name. */
function diffSnapshots(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): RefMove[] {
  const moves: RefMove[] = [];
  for (const ref of new Set([...before.keys(), ...after.keys()])) {
    const from = before.get(ref);
    const to = after.get(ref);
    if (from !== to) moves.push({ ref, from, to });
  }
  return moves.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}
