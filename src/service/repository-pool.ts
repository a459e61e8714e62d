import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { discoverRepository } from '../git/discover.js';
import type { GitProcesses } from '../git/processes.js';
import { RefWatcher, type RefMove, type RefWatchOptions } from '../git/ref-watch.js';
import { BRV_REF_PREFIX, parseBrvRef, type BrvRefName } from '../store/layout.js';
import type { Brv } from './brv.js';
import { CONTEXT } from './context.js';

/**
 * A brv ref that moved, whoever moved it, typed by what it names (front ends never look at ref names):
 * `kind` 'branch' (a brv branch: `branch`), 'review' (`review`, its id, and `action`), 'remote' (a
 * remote's copy, `remote` and its `branch` or `review`), 'source' (a knowledge source `source`, its
 * `branch`) or 'other' (fetch's staging refs). `from` undefined: created; `to` undefined: deleted.
 */
export type RefChangeEvent = RefMoveOf<BrvRefName>;

/** The move itself, whatever the ref names. */
interface RefMoveBase {
  /** The repository's common git dir (shared by its worktrees, like the refs); `Subscription.repository`. */
  repository: string;
  /** The full ref name, `refs/brv/…`, for logs and wire formats: what it names is in the other fields. */
  ref: string;
  /** The old tip; undefined: the ref was created. */
  from: string | undefined;
  /** The new tip; undefined: the ref was deleted. */
  to: string | undefined;
}

/** A review's ref created (a change waits for review), moved, or deleted (the review was decided). */
export type ReviewAction = 'opened' | 'updated' | 'closed';

type RefMoveOf<N> = N extends { kind: 'review' } ? RefMoveBase & N & { action: ReviewAction } : N extends unknown ? RefMoveBase & N : never;

/** The typed event of one ref move. */
export function refChange(repository: string, move: { ref: string; from: string | undefined; to: string | undefined }): RefChangeEvent {
  const name = parseBrvRef(move.ref);
  const base = { repository, ref: move.ref, from: move.from, to: move.to };
  if (name.kind === 'review') return { ...base, ...name, action: reviewAction(move.from, move.to) };
  return { ...base, ...name };
}

/**
 * Two moves of one ref as one event (a front end that coalesces a burst): the first's `from`, the
 * last's `to`, and for a review what that amounts to.
 */
export function coalesceChanges(first: RefChangeEvent, last: RefChangeEvent): RefChangeEvent {
  return refChange(first.repository, { ref: first.ref, from: first.from, to: last.to });
}

function reviewAction(from: string | undefined, to: string | undefined): ReviewAction {
  if (to === undefined) return 'closed';
  return from === undefined ? 'opened' : 'updated';
}

export type RefChangeListener = (event: RefChangeEvent) => void;

export interface WatchRequest {
  /** The project directory, as for `resolve`; omitted: the repository the pool was launched in. */
  cwd?: string;
  /** A change that could not be read (the refs are read again on the next change), or this listener's own exception. */
  onError?: (error: unknown) => void;
}

export interface Subscription {
  /** The repository's common git dir, as in each event. */
  readonly repository: string;
  /** 'watch': file events, no cost while nothing changes; 'poll': a ref listing every few seconds. */
  readonly mode: 'watch' | 'poll';
  /** Why this repository is polled rather than watched. */
  readonly fallback: string | undefined;
  /** Stops this listener; the repository is no longer watched once its last listener is gone. */
  unsubscribe(): void;
}

export interface RepositoryPoolOptions {
  /** Opens a repository (BrvService.open). */
  open: (cwd: string) => Promise<Brv>;
  /** The git processes of the service (discovery runs git too). */
  processes: GitProcesses;
  /** How the server names itself in errors (default "brv server"). */
  serverName?: string;
  /** Debounce and poll intervals of the ref watch (tests). */
  watch?: RefWatchOptions;
}

interface Watched {
  repository: string;
  watcher: Promise<RefWatcher>;
  listeners: Set<{ listener: RefChangeListener; onError?: (error: unknown) => void }>;
}

/**
 * The repositories a long-lived server (MCP, later the web dashboard and the TUI) may touch.
 * Launched inside a repository, the pool serves that repository only: a `cwd` anywhere else is
 * refused. Launched outside one (a desktop client), every call names its repository with `cwd`.
 * Each repository stays open between calls, so its object reader and search index stay warm; every
 * call re-reads the brv branch and tip, so writes by other processes (CLI curates, `git fetch`,
 * `brv vc checkout`) are seen on the next call. `watch` reports every move of a `refs/brv/*` ref as
 * it happens, whichever process made it (see `RefWatcher`: file events, no cost while idle).
 */
export class RepositoryPool {
  private readonly open = new Map<string, Promise<Brv>>();
  private readonly watched = new Map<string, Watched>();
  private home: Promise<{ commonDir: string; gitDir: string } | undefined> | undefined;
  private closed = false;
  private readonly serverName: string;

  constructor(
    private readonly launchDir: string,
    private readonly options: RepositoryPoolOptions,
  ) {
    this.serverName = options.serverName ?? 'brv server';
  }

  async resolve(cwd: string | undefined): Promise<Brv> {
    this.refuseIfClosed();
    const home = await this.homeRepository();
    if (cwd === undefined) {
      if (!home)
        throw new BrvError(
          'cwd-required',
          `This ${this.serverName} was started outside a git repository: pass cwd, the project directory.`,
        );
      return this.brvFor(home.gitDir, this.launchDir);
    }
    if (!path.isAbsolute(cwd)) throw new BrvError('invalid-cwd', `cwd must be an absolute path, not "${cwd}".`);
    const location = await discoverRepository(cwd, this.options.processes).catch((error: unknown) => {
      throw new BrvError('not-a-git-repository', `cwd ${cwd} is not inside a git repository (${(error as Error).message}).`);
    });
    if (home && location.commonDir !== home.commonDir) {
      throw new BrvError('outside-repository', `cwd ${cwd} is outside the repository this ${this.serverName} serves (${home.commonDir}).`);
    }
    // Keyed by git dir: worktrees of one repository share knowledge but each has its own brv branch.
    return this.brvFor(location.gitDir, cwd);
  }

  /**
   * Calls `listener` for every `refs/brv/*` ref of the repository at `cwd` that is created, moved or
   * deleted from now on, by this process or any other, about 50 ms after the write. One watch per
   * repository, shared by its listeners; listeners are called in ref-name order per change, and an
   * exception a listener throws goes to its own `onError`.
   */
  async watch(listener: RefChangeListener, request: WatchRequest = {}): Promise<Subscription> {
    const brv = await this.resolve(request.cwd);
    const repository = brv.repository.commonDir;
    let watched = this.watched.get(repository);
    if (!watched) {
      const listeners: Watched['listeners'] = new Set();
      const handlers = {
        onMoves: (moves: RefMove[]) => {
          for (const move of moves) {
            const event = refChange(repository, move);
            for (const { listener, onError } of [...listeners]) {
              try {
                listener(event);
              } catch (error) {
                onError?.(error); // one listener's failure is its own: the others still hear of the move
              }
            }
          }
        },
        onError: (error: unknown) => {
          for (const { onError } of [...listeners]) onError?.(error);
        },
      };
      const entry: Watched = {
        repository,
        listeners,
        watcher: RefWatcher.start(brv[CONTEXT]().repo, BRV_REF_PREFIX, handlers, this.options.watch),
      };
      entry.watcher.catch(() => {
        if (this.watched.get(repository) === entry) this.watched.delete(repository);
      });
      this.watched.set(repository, entry);
      watched = entry;
    }
    const entry = watched;
    const member = { listener, onError: request.onError };
    entry.listeners.add(member);
    let watcher: RefWatcher;
    try {
      watcher = await entry.watcher;
    } catch (error) {
      entry.listeners.delete(member);
      throw error;
    }
    if (this.closed) {
      watcher.close();
      this.refuseIfClosed();
    }
    return {
      repository,
      get mode() {
        return watcher.mode;
      },
      get fallback() {
        return watcher.fallback;
      },
      unsubscribe: () => {
        if (!entry.listeners.delete(member) || entry.listeners.size > 0) return;
        if (this.watched.get(repository) === entry) this.watched.delete(repository);
        watcher.close();
      },
    };
  }

  /** Stops every watch and closes every repository (their long-lived git processes), including ones still opening; none opens after. */
  async close(): Promise<void> {
    this.closed = true;
    const watching = [...this.watched.values()];
    this.watched.clear();
    for (const entry of watching) {
      entry.listeners.clear();
      void entry.watcher.then(
        (w) => w.close(),
        () => {},
      );
    }
    const opening = [...this.open.values()];
    this.open.clear();
    await Promise.all([
      ...watching.map((entry) => entry.watcher.catch(() => {})),
      ...opening.map((brv) => brv.then((b) => b.close()).catch(() => {})),
    ]);
  }

  private refuseIfClosed(): void {
    if (this.closed) throw new BrvError('server-closing', `This ${this.serverName} is shutting down: reconnect and call again.`);
  }

  private homeRepository(): Promise<{ commonDir: string; gitDir: string } | undefined> {
    this.home ??= discoverRepository(this.launchDir, this.options.processes).then(
      (location) => ({ commonDir: location.commonDir, gitDir: location.gitDir }),
      () => undefined,
    );
    return this.home;
  }

  private async brvFor(gitDir: string, cwd: string): Promise<Brv> {
    let brv = this.open.get(gitDir);
    if (!brv) {
      brv = this.options.open(cwd);
      this.open.set(gitDir, brv);
      brv.catch(() => this.open.delete(gitDir));
    }
    const ready = await brv;
    if (this.closed) {
      // Opened while the pool was closing: close() may have missed it.
      ready.close();
      this.refuseIfClosed();
    }
    await ready.refreshBranch();
    return ready;
  }
}
