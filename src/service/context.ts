import { BrvError } from '../base/errors.js';
import type { GitRepository } from '../git/repository.js';
import { SessionStore } from '../curate/sessions.js';
import type { ActiveConnection } from '../models/llm/active.js';
import type { LlmClient } from '../models/llm/client.js';
import type { TreeIndexStore } from '../index/tree-index.js';
import { readSettings } from '../settings/settings.js';
import { ContextStore, type Snapshot } from '../store/context-store.js';
import { branchRef, localStateDir, parseSourceRef, SOURCES_PREFIX } from '../store/layout.js';
import { importFetched, type KnowledgeArrival } from '../vc/arrival.js';
import type { Host } from './host.js';

/** The key of `Brv`'s accessor for its context: service modules (the repository pool) use it, front ends cannot name it. */
export const CONTEXT = Symbol('brv repository context');

/**
 * What the capabilities of one opened repository share: the repository, its store and curate
 * sessions, the brv branch this worktree is on, and the search indexes kept warm between calls.
 * Internal to src/service/: front ends see the capabilities, never this.
 */
export class RepositoryContext {
  readonly store: ContextStore;
  readonly sessions: SessionStore;
  private indexStore: Promise<TreeIndexStore> | undefined;
  private llmClient: { key: string; client: Promise<LlmClient | undefined> } | undefined;
  private arriving: Promise<KnowledgeArrival> | undefined;
  /** What the last read-time import of fetched knowledge found (see `arrive`); undefined before the first read. */
  arrival: KnowledgeArrival | undefined;

  constructor(
    readonly repo: GitRepository,
    /** This worktree's brv branch (re-read by `Brv.refreshBranch`). */
    public branch: string,
    readonly host: Host,
    /** Why brv/HEAD could not be read (opened with `repairHead`): `branch` is then only a placeholder. */
    readonly headProblem?: BrvError,
  ) {
    // The store's review policy comes from the settings, read only when a commit could open a review.
    this.store = new ContextStore(repo, () =>
      readSettings(repo).then((settings) => ({ enabled: settings['review.enabled'], gate: settings['review.gate'] })),
    );
    this.sessions = new SessionStore(localStateDir(repo.location.commonDir, 'sessions'));
  }

  /**
   * Brings fetched knowledge into use before a read of the branch tip (src/vc/arrival.ts: a
   * fast-forward to the upstream's remote-tracking ref when it can, never a merge, never the
   * network; no process when nothing moved). Every read of the tip calls it, in every front end and
   * on every call of a long-lived server (another process's fetch moves the remote-tracking ref).
   * Concurrent reads share one import. What it found is kept in `arrival` for the front end to tell.
   */
  async arrive(): Promise<KnowledgeArrival | undefined> {
    if (this.headProblem) return undefined;
    if (!this.arriving) {
      const run = importFetched(this.store, this.branch);
      this.arriving = run;
      void run
        .finally(() => {
          if (this.arriving === run) this.arriving = undefined;
        })
        .catch(() => {});
    }
    this.arrival = await this.arriving;
    return this.arrival;
  }

  /** The snapshot a read works on: the branch tip (fetched knowledge brought in first: `arrive`), or `at` (see ContextStore.snapshotAt). */
  async snapshotFor(at: string | undefined): Promise<Snapshot> {
    if (at) return this.store.snapshotAt(this.branch, at);
    await this.arrive();
    return this.store.snapshot(this.branch);
  }

  /**
   * The snapshot a read of topics works on: a knowledge source's fetched tip (`source`, its alias),
   * else the branch tip or `at`. A source is read only at its tip.
   */
  async readSnapshot(request: { at?: string; source?: string }): Promise<Snapshot> {
    if (request.source === undefined) return this.snapshotFor(request.at);
    if (request.at !== undefined)
      throw new BrvError('usage', 'A knowledge source is read at its fetched tip: give either a source or a revision (at), not both.');
    const found = (await this.sourceSnapshots()).find((s) => s.alias === request.source);
    if (!found)
      throw new BrvError(
        'source-not-found',
        `No fetched knowledge source ${JSON.stringify(request.source.slice(0, 100))}: list them with brv source list (brv source add <path> adds one).`,
      );
    return found.snapshot;
  }

  async tipCommit() {
    await this.arrive();
    const commit = await this.repo.readRefCommit(branchRef(this.branch));
    if (!commit) throw new BrvError('not-initialized', `brv branch ${this.branch} has no commits yet. Run brv init.`);
    return commit;
  }

  /** One index store per repository: it keeps the last indexes it opened (a long-lived server queries warm). */
  indexes(): Promise<TreeIndexStore> {
    this.indexStore ??= import('../index/tree-index.js').then(
      ({ TreeIndexStore }) => new TreeIndexStore(this.repo, localStateDir(this.repo.location.commonDir, 'index')),
    );
    return this.indexStore;
  }

  /**
   * The connected model (src/llm), or undefined when no provider is connected: features that can use
   * one check this and behave exactly as without a model otherwise. Loaded lazily: nothing of the
   * model layer is loaded by an operation that does not ask.
   */
  async llm(): Promise<LlmClient | undefined> {
    // A long-lived server (MCP, the dashboard, the TUI) sees a provider connected, switched or
    // disconnected since its last call: the client is kept only while the connection is the same,
    // and a failure (no key yet) is not kept at all.
    const connection = await this.llmConnection();
    const key = connection ? JSON.stringify([connection.from, connection.connection]) : '';
    if (this.llmClient?.key !== key) {
      const client = connection
        ? import('./llm.js').then((m) => m.repositoryClient(this.repo, this.host, connection))
        : Promise.resolve(undefined);
      this.llmClient = { key, client };
      client.catch(() => {
        if (this.llmClient?.client === client) this.llmClient = undefined;
      });
    }
    return this.llmClient.client;
  }

  /** Whether a model is connected, and which (reads one small file; loads no SDK). */
  llmConnection(): Promise<ActiveConnection | undefined> {
    return import('./llm-connection.js').then((m) => m.connectionOf(this.host));
  }

  /** Snapshots of every fetched knowledge source; costs no process when there are none. */
  async sourceSnapshots(): Promise<Array<{ alias: string; snapshot: Snapshot }>> {
    if (!(await this.repo.refsMayExist(SOURCES_PREFIX))) return [];
    const snapshots = [];
    for (const { ref, oid } of await this.repo.listRefs(SOURCES_PREFIX)) {
      const commit = await this.repo.readCommit(oid);
      const source = parseSourceRef(ref);
      if (!commit || !source) continue;
      snapshots.push({ alias: source.alias, snapshot: { branch: source.branch, ref, commit: { oid: commit.oid, tree: commit.tree } } });
    }
    return snapshots;
  }
}
