import path from 'node:path';
import { BrvError } from '../errors.js';
import type { GitProcesses } from '../git/processes.js';
import { GitRepository } from '../git/repository.js';
import type { CurateRequest } from '../curate/protocol.js';
import type { QueryOptions } from '../query/query-topics.js';
import type { SkippedTopic, TreeIndexStore } from '../query/tree-index.js';
// Small and pure: merging with knowledge sources costs no extra module load on the query path.
import { federateQuery, federateSearch } from '../query/federate.js';
import type { CurateEnvelope, CurateError } from '../curate/envelope.js';
import { SessionStore } from '../curate/sessions.js';
import { ContextStore, tipRevisions, type Snapshot } from '../store/context-store.js';
import { readHistory, type HistoryEntry } from '../store/history.js';
import {
  branchRef,
  currentBranch,
  DEFAULT_BRANCH,
  FORMAT_VERSION,
  localStateDir,
  parseRemoteBranchRef,
  parseSourceRef,
  REMOTES_PREFIX,
  SOURCES_PREFIX,
  validateBranchName,
} from '../store/layout.js';
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

/**
 * Who is acting, passed in by the front end on every write (recorded as the Brv-Agent trailer): the
 * CLI's BRV_AGENT, the MCP client's name; the library reads no environment for it.
 */
export interface Actor {
  readonly agent?: string | undefined;
}

/** One repository's brv: the façade every front end (CLI, TUI, MCP, web) goes through. */
export class Brv {
  readonly store: ContextStore;
  readonly sessions: SessionStore;

  private indexStore: Promise<TreeIndexStore> | undefined;

  private constructor(
    readonly repo: GitRepository,
    public branch: string,
    /** Why this worktree's brv/HEAD could not be read (opened with `repairHead`); `branch` is then only a placeholder. */
    private readonly headProblem?: BrvError,
  ) {
    this.store = new ContextStore(repo);
    this.sessions = new SessionStore(localStateDir(repo.location.commonDir, 'sessions'));
  }

  /**
   * `repairHead`: a damaged brv/HEAD does not stop the opening (only `checkout`, which rewrites it, should
   * pass it); every other command reports `corrupt-local-state` rather than act on a guessed branch.
   */
  static async open(cwd: string, options: { repairHead?: boolean; processes: GitProcesses }): Promise<Brv> {
    // The default branch's tip is resolved by the discovery process itself (one git start fewer).
    const repo = await GitRepository.open(cwd, options.processes, tipRevisions(DEFAULT_BRANCH));
    performance.mark('repository discovered');
    try {
      return await currentBranch(repo.location.gitDir).then(
        (branch) => new Brv(repo, branch),
        (error: unknown) => {
          if (options.repairHead && error instanceof BrvError && error.kind === 'corrupt-local-state')
            return new Brv(repo, DEFAULT_BRANCH, error);
          throw error;
        },
      );
    } catch (error) {
      repo.close();
      throw error;
    }
  }

  /**
   * `git clone` a repository and bring its knowledge: brv's fetch refspecs on `origin`, its brv
   * branches and reviews fetched, local brv branches created from them.
   */
  static async clone(url: string, dir: string, cwd: string, processes: GitProcesses) {
    const { cloneRepository } = await import('../git/remote.js');
    const sync = await import('../sync/sync.js');
    await cloneRepository(url, dir, cwd, processes);
    const brv = await Brv.open(path.resolve(cwd, dir), { processes });
    try {
      await sync.trackRemote(brv.repo, 'origin');
      const fetched = await sync.fetchRemote(brv.store, 'origin');
      const branches = await sync.createMissingBranches(brv.repo, 'origin');
      return {
        directory: brv.repo.location.workTree ?? brv.repo.location.gitDir,
        branches,
        reviews: fetched.reviews.opened,
        refused: fetched.refused,
      };
    } finally {
      brv.close();
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

  async curate(request: CurateRequest, actor: Actor = {}): Promise<CurateEnvelope> {
    // Loaded on demand: HTML parsing is the heaviest code in brv and most commands never need it.
    const { runCurate } = await import('../curate/protocol.js');
    return runCurate({ store: this.store, sessions: this.sessions, branch: this.branch, agent: actor.agent }, request);
  }

  /**
   * Imports a ByteRover context tree (a project, its `.brv/`, or the tree itself) as one commit: HTML
   * topics as they are, legacy Markdown topics converted, generated files skipped, with a report.
   */
  async importFolder(dir: string, options: { overwrite?: boolean; skipInvalid?: boolean } & Actor = {}) {
    const [{ planByteRoverImport }, { commitImport }] = await Promise.all([
      import('../curate/byterover-tree.js'),
      import('../curate/import.js'),
    ]);
    const plan = await planByteRoverImport(dir);
    const result = await commitImport(this.store, this.branch, plan.topics, plan.problems, {
      overwrite: options.overwrite ?? false,
      skipInvalid: options.skipInvalid ?? false,
      source: plan.root,
      agent: options.agent,
    });
    return { ...result, source: plan.root, imported: plan.imported, converted: plan.converted, skipped: plan.skipped };
  }

  /** Writes the context tree (or the tree `at` a revision) as files in ByteRover's layout under `dir`. */
  async exportTo(dir: string, options: { force?: boolean; at?: string } = {}) {
    const { exportTree, readTopicBlobs } = await import('../curate/export.js');
    const snapshot = await this.snapshotFor(options.at);
    return {
      ...(await exportTree(await readTopicBlobs(this.store, snapshot), dir, { force: options.force })),
      commit: snapshot.commit?.oid,
    };
  }

  /** Removes a topic (or, with `recursive`, every topic under a folder) in one DELETE commit. */
  async remove(rawPath: string, options: { recursive?: boolean; reason?: string } & Actor = {}): Promise<RemoveResult> {
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
          meta: { op: 'delete', type: 'DELETE', reason: options.reason, agent: options.agent },
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
    const { MAX_STORED_TOPIC_BYTES, renderStoredTopic } = await import('../topic/stored.js');
    const blob = await this.store.readFile(snapshot, filePath, { maxBytes: MAX_STORED_TOPIC_BYTES });
    if (!blob) {
      const hint =
        (await this.store.pathKind(snapshot, normalized.path)) === 'folder'
          ? ` It is a folder: list it with brv ls ${normalized.path}.`
          : ' List topics with brv ls.';
      throw new BrvError('not-found', `No topic at ${normalized.path}${options.at ? ` at ${options.at}` : ''}.${hint}`);
    }
    const html = blob.toString('utf8');
    if (options.raw) return { path: filePath, topicPath: normalized.path, format: 'html', content: html, commit: snapshot.commit!.oid };
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

  /**
   * Ranked topics for a question, rendered for agents (ByteRover's `query` JSON shape). Knowledge
   * sources (`brv source add`) are searched too, their results marked `origin: shared`; `--at`
   * reads this repository's history only.
   */
  async query(question: string, options: QueryOptions & { at?: string } = {}) {
    const { queryTopics } = await import('../query/query-topics.js');
    return this.federated(options, (indexes, snapshot) => queryTopics(indexes, snapshot, question, options), federateQuery);
  }

  /** Paths, titles, scores and excerpts for a question (knowledge sources included, as for query). */
  async search(question: string, options: QueryOptions & { at?: string } = {}) {
    const { searchTopics } = await import('../query/query-topics.js');
    return this.federated(options, (indexes, snapshot) => searchTopics(indexes, snapshot, question, options), federateSearch);
  }

  /**
   * Blobs at topic paths that search leaves out, with their problem (`too-large`, `too-deep`,
   * `not-a-topic`, `duplicate-path`, `missing`): this repository's (or `at`'s) and, unless `at` is
   * set, every knowledge source's (`source` names it). Builds the indexes if needed; for `brv doctor`.
   */
  async skippedTopics(options: { at?: string } = {}): Promise<Array<SkippedTopic & { source?: string }>> {
    const [indexes, snapshot] = await Promise.all([this.indexes(), this.snapshotFor(options.at)]);
    const local = await indexes.skippedTopics(snapshot.commit?.tree);
    const sources = options.at ? [] : await this.sourceSnapshots();
    const shared = await Promise.all(
      sources.map(async (s) => (await indexes.skippedTopics(s.snapshot.commit?.tree)).map((skip) => ({ ...skip, source: s.alias }))),
    );
    return [...local, ...shared.flat()];
  }

  /** Runs a retrieval on this repository's snapshot and, unless `at` is set, on every knowledge source. */
  private async federated<R, F>(
    options: { at?: string; limit?: number },
    retrieve: (indexes: TreeIndexStore, snapshot: Snapshot) => Promise<R>,
    merge: (local: R, shared: Array<{ alias: string; commit: string | undefined; result: R }>, limit: number) => F,
  ): Promise<R | F> {
    const [indexes, snapshot] = await Promise.all([this.indexes(), this.snapshotFor(options.at)]);
    const local = await retrieve(indexes, snapshot);
    const sources = options.at ? [] : await this.sourceSnapshots();
    if (sources.length === 0) return local;
    const shared = await Promise.all(
      sources.map(async (s) => ({ alias: s.alias, commit: s.snapshot.commit?.oid, result: await retrieve(indexes, s.snapshot) })),
    );
    return merge(local, shared, Math.min(options.limit ?? 10, 50));
  }

  /** Snapshots of every fetched knowledge source; costs no process when there are none. */
  private async sourceSnapshots(): Promise<Array<{ alias: string; snapshot: Snapshot }>> {
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

  /** Re-reads this worktree's brv branch (a long-lived server must see `brv vc checkout` from elsewhere). */
  async refreshBranch(): Promise<string> {
    this.branch = await currentBranch(this.repo.location.gitDir);
    return this.branch;
  }

  /** One index store per Brv: it keeps the last indexes it opened (a long-lived server queries warm). */
  private indexes(): Promise<TreeIndexStore> {
    this.indexStore ??= import('../query/tree-index.js').then(
      ({ TreeIndexStore }) => new TreeIndexStore(this.repo, localStateDir(this.repo.location.commonDir, 'index')),
    );
    return this.indexStore;
  }

  /** The one-shot write behind MCP's brv-curate: the same validator and writer as `brv curate`. */
  async curateHtml(html: string, meta: unknown, overwrite: boolean, actor: Actor = {}) {
    const [{ writeTopic }, { parseMeta }] = await Promise.all([import('../curate/write-topic.js'), import('../curate/envelope.js')]);
    const parsed = parseMeta(meta);
    if (!parsed.ok) {
      const errors: CurateError[] = [{ kind: 'invalid-response-format', message: parsed.message }];
      return { ok: false as const, errors };
    }
    return writeTopic(this.store, html, parsed.meta, { branch: this.branch, overwrite, agent: actor.agent ?? 'mcp' });
  }

  async history(limit: number, options: { all?: boolean; path?: string } = {}): Promise<HistoryEntry[]> {
    let filePath: string | undefined;
    if (options.path) {
      const normalized = normalizeTopicPath(options.path.replace(/\/+$/, ''));
      if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
      const snapshot = await this.store.snapshot(this.branch);
      filePath = (await this.store.pathKind(snapshot, normalized.path)) === 'folder' ? normalized.path : topicBlobPath(normalized.path);
    }
    if (options.all) {
      const refs = (await this.store.listBranches()).map((b) => branchRef(b.branch));
      return refs.length === 0 ? [] : readHistory(this.repo, refs, limit, { path: filePath, firstParent: false });
    }
    const snapshot = await this.store.snapshot(this.branch);
    if (!snapshot.commit) return [];
    return readHistory(this.repo, snapshot.ref, limit, { path: filePath });
  }

  // ---- version control (brv vc …): feature code loaded on demand ----

  /** Topic-level diff: no rev = the last commit; `rev` = rev..tip; `a..b`. */
  async diff(range: string | undefined, options: { patch?: boolean; paths?: string[] } = {}) {
    const { diffCommits } = await import('../vc/inspect.js');
    const tip = await this.tipCommit();
    let from;
    let to = tip;
    if (!range) {
      from = tip.parents[0] ? await this.repo.readCommit(tip.parents[0]) : undefined;
    } else if (range.includes('..')) {
      const [left, right] = range.split(/\.\.\.?/);
      from = await this.store.resolveCommit(this.branch, left || this.branch);
      to = await this.store.resolveCommit(this.branch, right || this.branch);
    } else {
      from = await this.store.resolveCommit(this.branch, range);
    }
    return diffCommits(this.store, from, to, options);
  }

  /** One commit (with its topic changes), or with `rev:path` one topic as it was then. */
  async show(spec: string | undefined, options: { patch?: boolean } = {}) {
    const colon = spec ? spec.indexOf(':') : -1;
    if (spec && colon >= 0) {
      const at = spec.slice(0, colon) || this.branch;
      return { kind: 'topic' as const, topic: await this.read(spec.slice(colon + 1), { at }) };
    }
    const { showCommit } = await import('../vc/inspect.js');
    const commit = spec ? await this.store.resolveCommit(this.branch, spec) : await this.tipCommit();
    return { kind: 'commit' as const, commit: await showCommit(this.store, commit, options) };
  }

  async vcStatus() {
    const { listReviews } = await import('../review/review.js');
    const { resolveRemote } = await import('../sync/sync.js');
    const { remoteBranchRef } = await import('../store/layout.js');
    const snapshot = await this.store.snapshot(this.branch);
    const remote = await resolveRemote(this.repo, this.branch).catch(() => undefined);
    const tracking = remote ? remoteBranchRef(remote, this.branch) : undefined;
    // A plain `git fetch` can point the tracking ref at anything (even a blob): only a commit counts.
    const trackingTip = tracking ? await this.repo.resolve(`${tracking}^{commit}`) : undefined;
    const counts = snapshot.commit && trackingTip ? await this.repo.aheadBehind(snapshot.commit.oid, trackingTip) : undefined;
    const reviews = await listReviews(this.store, this.branch);
    return {
      branch: this.branch,
      ref: snapshot.ref,
      tip: snapshot.commit?.oid,
      remote,
      tracking: trackingTip ? tracking : undefined,
      ahead: counts?.ahead ?? (snapshot.commit && remote && !trackingTip ? await this.countCommits(snapshot.ref) : 0),
      behind: counts?.behind ?? 0,
      openReviews: reviews.tasks.length,
      pendingChanges: reviews.pendingCount,
    };
  }

  async branches(options: { all?: boolean } = {}) {
    const local = (await this.store.listBranches()).map((b) => ({
      ...b,
      current: b.branch === this.branch,
      remote: undefined as string | undefined,
    }));
    if (!options.all) return local;
    const remote = [];
    for (const { ref, oid } of await this.repo.listRefs(REMOTES_PREFIX)) {
      const tracked = parseRemoteBranchRef(ref);
      if (tracked) remote.push({ branch: `${tracked.remote}/${tracked.branch}`, commit: oid, current: false, remote: tracked.remote });
    }
    return [...local, ...remote];
  }

  /** A new brv branch at the current tip (or `start`). */
  async createBranch(name: string, start?: string) {
    const commit = start ? await this.store.resolveCommit(this.branch, start) : await this.tipCommit();
    await this.store.createBranch(name, commit.oid);
    return { branch: name, commit: commit.oid };
  }

  async deleteBranch(name: string, options: { force?: boolean } = {}) {
    validateBranchName(name);
    if (name === this.branch)
      throw new BrvError('branch-in-use', `brv branch ${name} is checked out here. Check out another branch first.`);
    const tip = await this.repo.resolve(branchRef(name));
    if (!tip) throw new BrvError('branch-not-found', `No brv branch named ${name}.`);
    const current = await this.repo.resolve(branchRef(this.branch));
    if (!options.force && (!current || !(await this.repo.isAncestor(tip, current)))) {
      throw new BrvError(
        'branch-not-merged',
        `brv branch ${name} has knowledge not merged into ${this.branch}. Merge it, or delete with --force.`,
      );
    }
    await this.store.deleteBranch(name, tip);
    return { branch: name, commit: tip };
  }

  /** Makes `name` this worktree's brv branch (creating it from the current tip with `create`). */
  async checkout(name: string, options: { create?: boolean } = {}) {
    const { setCurrentBranch } = await import('../store/layout.js');
    validateBranchName(name);
    let created = false;
    // -b starts the new branch at the current one's tip, which a damaged brv/HEAD no longer names.
    if (options.create && this.headProblem) throw this.headProblem;
    if (options.create) {
      await this.createBranch(name);
      created = true;
    } else if (!(await this.repo.resolve(branchRef(name)))) {
      // A branch only on a remote: start tracking it, as git checkout does.
      const remoteTip = (await this.branches({ all: true })).find((b) => b.remote && b.branch.endsWith(`/${name}`));
      if (!remoteTip) throw new BrvError('branch-not-found', `No brv branch named ${name}. Create it with brv vc checkout -b ${name}.`);
      await this.store.createBranch(name, remoteTip.commit);
      created = true;
    }
    await setCurrentBranch(this.repo.location.gitDir, name);
    const previous = this.headProblem ? null : this.branch;
    return { branch: name, previous, created, commit: await this.repo.resolve(branchRef(name)) };
  }

  /** Merges another brv branch (local, or `<remote>/<branch>`) into the current one. */
  async merge(source: string, actor: Actor = {}) {
    const { mergeIntoBranch } = await import('../vc/merge.js');
    const { remoteBranchRef } = await import('../store/layout.js');
    // "<branch>" or "<remote>/<branch>": both are valid branch names, so one check covers them.
    validateBranchName(source);
    let theirs = await this.repo.resolve(branchRef(source));
    if (!theirs && source.includes('/')) {
      const slash = source.indexOf('/');
      theirs = await this.repo.resolve(remoteBranchRef(source.slice(0, slash), source.slice(slash + 1)));
    }
    if (!theirs) throw new BrvError('branch-not-found', `No brv branch named ${source}. List them with brv vc branch -a.`);
    if (source === this.branch) throw new BrvError('invalid-merge', `Cannot merge brv branch ${source} into itself.`);
    return mergeIntoBranch(this.store, this.branch, theirs, {
      subject: `merge: ${source} into ${this.branch}`,
      theirsLabel: source,
      agent: actor.agent,
    });
  }

  async remotes() {
    const { listRemotes } = await import('../git/remote.js');
    return listRemotes(this.repo);
  }

  async remoteAdd(name: string, url: string) {
    const { addRemote } = await import('../git/remote.js');
    await addRemote(this.repo, name, url);
    return { name, url };
  }

  async remoteSetUrl(name: string, url: string) {
    const { setRemoteUrl } = await import('../git/remote.js');
    await setRemoteUrl(this.repo, name, url);
    return { name, url };
  }

  async remoteRemove(name: string) {
    const { removeRemote } = await import('../git/remote.js');
    await removeRemote(this.repo, name);
    return { name };
  }

  /** `brv init --track <remote>`: a plain `git fetch` brings knowledge too. */
  async track(remote: string) {
    const { trackRemote } = await import('../sync/sync.js');
    return { remote, added: await trackRemote(this.repo, remote) };
  }

  async fetch(remote?: string) {
    const sync = await import('../sync/sync.js');
    const name = await sync.resolveRemote(this.repo, this.branch, remote);
    const result = await sync.fetchRemote(this.store, name);
    const created = await sync.createMissingBranches(this.repo, name);
    return { ...result, createdBranches: created };
  }

  async pull(remote?: string, actor: Actor = {}) {
    const sync = await import('../sync/sync.js');
    const name = await sync.resolveRemote(this.repo, this.branch, remote);
    const fetch = await sync.fetchRemote(this.store, name);
    const merge = await sync.integrateRemote(this.store, this.branch, name, actor.agent, fetch);
    if (!merge && !(await this.repo.resolve(branchRef(this.branch)))) {
      throw new BrvError('branch-not-found', `The remote ${name} has no brv branch ${this.branch}.`);
    }
    return { remote: name, branch: this.branch, fetch, merge: merge ?? { status: 'up-to-date' as const, merged: [], conflicts: [] } };
  }

  async push(remote?: string, options: { setUpstream?: boolean } = {}) {
    const sync = await import('../sync/sync.js');
    const name = await sync.resolveRemote(this.repo, this.branch, remote);
    const result = await sync.pushBranch(this.store, this.branch, name, options);
    if (result.refs.some((r) => r.ref === branchRef(this.branch) && r.status === 'rejected')) {
      throw new BrvError(
        'non-fast-forward',
        `The remote ${name} has knowledge on ${this.branch} that is not here. Run brv vc pull ${name} (or brv sync), then push again.`,
      );
    }
    return result;
  }

  /** Fetch, integrate and push the current brv branch (and refresh knowledge sources). */
  async sync(remote?: string, actor: Actor = {}) {
    const sync = await import('../sync/sync.js');
    const name = await sync.resolveRemote(this.repo, this.branch, remote);
    const result = await sync.syncBranch(this.store, this.branch, name, actor.agent);
    return { ...result, sources: await this.sourceRefresh() };
  }

  /** For git hooks: merge whatever `git fetch`/`git pull` brought into brv's remote-tracking refs. */
  async integrateFetched() {
    const sync = await import('../sync/sync.js');
    const remote = await sync.resolveRemote(this.repo, this.branch).catch(() => undefined);
    if (!remote) return undefined;
    // Reviews a plain `git fetch` brought (or that vanished from the remote) are mirrored too.
    await sync.mirrorReviews(this.store, remote, await sync.seenReviews(this.store, remote));
    return sync.integrateRemote(this.store, this.branch, remote, process.env.BRV_AGENT);
  }

  async reviews() {
    const { listReviews } = await import('../review/review.js');
    return listReviews(this.store, this.branch);
  }

  async approve(id: string, files: string[] = []) {
    const { approveReview } = await import('../review/review.js');
    return approveReview(this.store, this.branch, id, files);
  }

  async reject(id: string, files: string[] = []) {
    const { rejectReview } = await import('../review/review.js');
    return rejectReview(this.store, this.branch, id, files);
  }

  /**
   * `git worktree add` plus this worktree's brv branch for it (the current one unless named; a new
   * brv branch from the current tip with `createBrvBranch`).
   */
  async worktreeAdd(dir: string, options: { gitBranch?: string; commitish?: string; brvBranch?: string; createBrvBranch?: boolean } = {}) {
    const { addWorktree } = await import('../git/worktree.js');
    const { setCurrentBranch } = await import('../store/layout.js');
    const brvBranch = options.brvBranch ?? this.branch;
    validateBranchName(brvBranch);
    if (options.createBrvBranch) await this.createBranch(brvBranch);
    else if (options.brvBranch && !(await this.repo.resolve(branchRef(brvBranch)))) {
      throw new BrvError('branch-not-found', `No brv branch named ${brvBranch}. Pass --create-brv-branch to start it here.`);
    }
    const worktree = await addWorktree(this.repo, path.resolve(dir), options);
    await setCurrentBranch(worktree.gitDir, brvBranch);
    return { path: worktree.path, gitBranch: worktree.gitBranch, brvBranch };
  }

  async worktreeRemove(dir: string, options: { force?: boolean } = {}) {
    const { removeWorktree } = await import('../git/worktree.js');
    await removeWorktree(this.repo, path.resolve(dir), options);
    return { path: path.resolve(dir) };
  }

  /** Every worktree of the repository with the brv branch each one works on. */
  async worktrees() {
    const { listWorktrees } = await import('../git/worktree.js');
    const here = this.repo.location.gitDir;
    const list = await listWorktrees(this.repo);
    return Promise.all(
      list.map(async (w) => ({
        path: w.path,
        gitBranch: w.gitBranch,
        bare: w.bare,
        // null when that worktree's brv/HEAD is damaged: never shown as some other branch
        brvBranch: w.gitDir ? await currentBranch(w.gitDir).catch(() => null) : DEFAULT_BRANCH,
        current: w.gitDir === here,
      })),
    );
  }

  async sources() {
    const { listSources } = await import('../source/sources.js');
    return listSources(this.repo);
  }

  /** Reads another repository's knowledge (fetched into refs/brv/sources/<alias>/); never writes to it. */
  async sourceAdd(location: string, options: { alias?: string; branch?: string; cwd: string }) {
    const { addSource } = await import('../source/sources.js');
    return addSource(this.repo, location, options);
  }

  async sourceRemove(aliasOrLocation: string) {
    const { removeSource } = await import('../source/sources.js');
    return removeSource(this.repo, aliasOrLocation);
  }

  async sourceRefresh() {
    const { refreshSources } = await import('../source/sources.js');
    return refreshSources(this.repo);
  }

  async gitConfig(key: 'user.name' | 'user.email', value?: string) {
    if (value !== undefined) await this.repo.configSet(key, value);
    return { key, value: value ?? (await this.repo.configGet(key)) };
  }

  private async tipCommit() {
    const commit = await this.repo.readRefCommit(branchRef(this.branch));
    if (!commit) throw new BrvError('not-initialized', `brv branch ${this.branch} has no commits yet. Run brv init.`);
    return commit;
  }

  private async countCommits(ref: string): Promise<number> {
    const { stdout } = await this.repo.git(['rev-list', '--count', ref, '--']);
    return Number(stdout.trim()) || 0;
  }

  close(): void {
    this.repo.close();
  }
}
