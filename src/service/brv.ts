import { BrvError } from '../errors.js';
import { GitRepository } from '../git/repository.js';
import type { CurateRequest } from '../curate/protocol.js';
import type { QueryOptions, QueryResult } from '../query/query-topics.js';
import type { CurateEnvelope } from '../curate/envelope.js';
import { SessionStore } from '../curate/sessions.js';
import { ContextStore, tipRevisions, type Snapshot } from '../store/context-store.js';
import { readHistory, type HistoryEntry } from '../store/history.js';
import { branchRef, currentBranch, DEFAULT_BRANCH, FORMAT_VERSION, localStateDir } from '../store/layout.js';
import { normalizeTopicPath, topicBlobPath, topicPathFromBlobPath } from '../topic/path.js';

export interface InitResult {
  created: boolean;
  branch: string;
  ref: string;
  commit: string;
}

export interface StatusResult {
  repository: string;
  gitDir: string;
  bare: boolean;
  branch: string;
  ref: string;
  initialized: boolean;
  tip: string | undefined;
  topics: number;
  openSessions: number;
  format: string;
  gitVersion: string;
}

export interface ReadResult {
  path: string;
  topicPath: string;
  format: 'markdown' | 'html';
  content: string;
  commit: string;
}

export interface ListResult {
  prefix: string;
  commit: string | undefined;
  topics: string[];
}

export interface RemoveResult {
  removed: string[];
  commit: string;
}

/** One repository's brv: the façade every front end (CLI, TUI, MCP, web) goes through. */
export class Brv {
  readonly store: ContextStore;
  readonly sessions: SessionStore;

  private constructor(
    readonly repo: GitRepository,
    readonly branch: string,
  ) {
    this.store = new ContextStore(repo);
    this.sessions = new SessionStore(localStateDir(repo.location.commonDir, 'sessions'));
  }

  static async open(cwd: string): Promise<Brv> {
    // The default branch's tip is resolved by the discovery process itself (one git start fewer).
    const repo = await GitRepository.open(cwd, tipRevisions(DEFAULT_BRANCH));
    performance.mark('repository discovered');
    try {
      return new Brv(repo, await currentBranch(repo.location.gitDir));
    } catch (error) {
      repo.close();
      throw error;
    }
  }

  async init(): Promise<InitResult> {
    await this.repo.requireModernGit();
    const outcome = await this.store.commit<boolean>(this.branch, async (snapshot) =>
      snapshot.commit
        ? { stop: false }
        : { write: { edits: [], subject: 'brv: initialize context tree', meta: { op: 'init' } }, result: true },
    );
    const snapshot = outcome.commit ? undefined : await this.store.snapshot(this.branch);
    const commit = outcome.commit ?? snapshot?.commit?.oid;
    if (!commit) throw new BrvError('init-failed', 'Could not create the brv branch.');
    return { created: outcome.result, branch: this.branch, ref: branchRef(this.branch), commit };
  }

  async status(): Promise<StatusResult> {
    const gitVersion = await this.repo.requireModernGit();
    const snapshot = await this.store.snapshot(this.branch);
    const files = await this.store.listFiles(snapshot);
    const { location } = this.repo;
    return {
      repository: location.workTree ?? location.gitDir,
      gitDir: location.gitDir,
      bare: location.bare,
      branch: this.branch,
      ref: snapshot.ref,
      initialized: snapshot.commit !== undefined,
      tip: snapshot.commit?.oid,
      topics: files.filter((f) => topicPathFromBlobPath(f) !== undefined).length,
      openSessions: await this.sessions.prune(),
      format: FORMAT_VERSION,
      gitVersion,
    };
  }

  async curate(request: CurateRequest): Promise<CurateEnvelope> {
    // Loaded on demand: HTML parsing is the heaviest code in brv and most commands never need it.
    const { runCurate } = await import('../curate/protocol.js');
    return runCurate({ store: this.store, sessions: this.sessions, branch: this.branch, agent: process.env.BRV_AGENT }, request);
  }

  /** Imports a folder of `<bv-topic>` files (e.g. a ByteRover `.brv/context-tree`) as one commit. */
  async importFolder(dir: string, options: { overwrite?: boolean; skipInvalid?: boolean } = {}) {
    const { findTopicFiles, importTopics } = await import('../curate/import.js');
    let files: string[];
    try {
      files = await findTopicFiles(dir);
    } catch (error) {
      throw new BrvError('import-read-error', `Cannot read ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
    }
    return importTopics(this.store, this.branch, files, {
      overwrite: options.overwrite ?? false,
      skipInvalid: options.skipInvalid ?? false,
      source: dir,
    });
  }

  /** Removes a topic (or, with `recursive`, every topic under a folder) in one DELETE commit. */
  async remove(rawPath: string, options: { recursive?: boolean; reason?: string } = {}): Promise<RemoveResult> {
    const normalized = normalizeTopicPath(rawPath.replace(/\/+$/, ''));
    if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
    const topicPath = normalized.path;
    const outcome = await this.store.commit<string[]>(this.branch, async (snapshot) => {
      const fileKind = await this.store.pathKind(snapshot, topicBlobPath(topicPath));
      let target: string;
      let removed: string[];
      if (fileKind === 'file') {
        target = topicBlobPath(topicPath);
        removed = [topicPath];
      } else if ((await this.store.pathKind(snapshot, topicPath)) === 'folder') {
        if (!options.recursive) {
          throw new BrvError('is-a-folder', `${topicPath} is a folder of topics. Pass --recursive to remove all of them.`);
        }
        target = topicPath;
        removed = (await this.store.listFiles(snapshot))
          .filter((f) => f.startsWith(`${topicPath}/`))
          .map((f) => topicPathFromBlobPath(f))
          .filter((p): p is NonNullable<typeof p> => p !== undefined);
      } else {
        throw new BrvError(
          'not-found',
          `No topic at ${topicPath} on brv branch ${this.branch}. List topics with brv status or brv curate view.`,
        );
      }
      return {
        write: {
          edits: [{ path: target, remove: true }],
          subject: `delete: ${topicPath}${removed.length > 1 ? ` (${removed.length} topics)` : ''}`,
          meta: { op: 'delete', type: 'DELETE', reason: options.reason, agent: process.env.BRV_AGENT },
        },
        result: removed,
      };
    });
    return { removed: outcome.result, commit: outcome.commit! };
  }

  /** The snapshot a read command works on: the branch tip, or `at` (see ContextStore.snapshotAt). */
  snapshotFor(at: string | undefined): Promise<Snapshot> {
    return at ? this.store.snapshotAt(this.branch, at) : this.store.snapshot(this.branch);
  }

  /** One topic, rendered as markdown for agents or as its stored HTML. */
  async read(rawPath: string, options: { raw?: boolean; at?: string } = {}): Promise<ReadResult> {
    const normalized = normalizeTopicPath(rawPath);
    if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
    const snapshot = await this.snapshotFor(options.at);
    const filePath = topicBlobPath(normalized.path);
    const blob = await this.store.readFile(snapshot, filePath);
    if (!blob) {
      const hint =
        (await this.store.pathKind(snapshot, normalized.path)) === 'folder'
          ? ` It is a folder: list it with brv ls ${normalized.path}.`
          : ' List topics with brv ls.';
      throw new BrvError('not-found', `No topic at ${normalized.path}${options.at ? ` at ${options.at}` : ''}.${hint}`);
    }
    const html = blob.toString('utf8');
    if (options.raw) return { path: filePath, topicPath: normalized.path, format: 'html', content: html, commit: snapshot.commit!.oid };
    const { renderStoredTopic } = await import('../topic/stored.js');
    return {
      path: filePath,
      topicPath: normalized.path,
      format: 'markdown',
      content: renderStoredTopic(html),
      commit: snapshot.commit!.oid,
    };
  }

  /** Topic paths under a folder prefix (all topics without one). */
  async list(prefix: string | undefined, options: { at?: string } = {}): Promise<ListResult> {
    let folder = '';
    if (prefix && prefix.replace(/\/+$/, '') !== '') {
      const normalized = normalizeTopicPath(prefix.replace(/\/+$/, ''));
      if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
      folder = `${normalized.path}/`;
    }
    const snapshot = await this.snapshotFor(options.at);
    const topics = (await this.store.listFiles(snapshot))
      .filter((f) => f.startsWith(folder))
      .map((f) => topicPathFromBlobPath(f))
      .filter((p): p is NonNullable<typeof p> => p !== undefined);
    return { prefix: folder, commit: snapshot.commit?.oid, topics };
  }

  /** Ranked topics for a question, rendered for agents (ByteRover's `query` JSON shape). */
  async query(question: string, options: QueryOptions & { at?: string } = {}): Promise<QueryResult> {
    const [{ queryTopics }, snapshot] = await Promise.all([import('../query/query-topics.js'), this.snapshotFor(options.at)]);
    return queryTopics(await this.indexes(), snapshot, question, options);
  }

  /** Paths, titles, scores and excerpts for a question. */
  async search(question: string, options: QueryOptions & { at?: string } = {}) {
    const [{ searchTopics }, snapshot] = await Promise.all([import('../query/query-topics.js'), this.snapshotFor(options.at)]);
    return searchTopics(await this.indexes(), snapshot, question, options);
  }

  private async indexes() {
    const { TreeIndexStore } = await import('../query/tree-index.js');
    return new TreeIndexStore(this.repo, localStateDir(this.repo.location.commonDir, 'index'));
  }

  async history(limit: number): Promise<HistoryEntry[]> {
    const snapshot = await this.store.snapshot(this.branch);
    if (!snapshot.commit) return [];
    return readHistory(this.repo, snapshot.ref, limit);
  }

  close(): void {
    this.repo.close();
  }
}
