import { BrvError } from '../base/errors.js';
import type { DoctorReport } from '../setup/doctor.js';
import type { SyncProgress } from '../vc/sync.js';
import type { AdoptResult, UpstreamState } from '../vc/upstream.js';
import type { HooksReport, HooksStatusReport } from '../setup/hooks/repository-hooks.js';
import type { InstallChange, UninstallChange } from '../setup/hooks/install.js';
import type { PreCommitDecision } from '../setup/hooks/pre-commit.js';
import type { SettingScope, SettingState } from '../settings/settings.js';
import type { SettingValue } from '../settings/registry.js';
import { getSetting, listSettings, resetSetting, setSetting } from '../settings/settings.js';
import { branchRef, currentBranch, DEFAULT_BRANCH, FORMAT_VERSION, setCurrentBranch, validateBranchName } from '../store/layout.js';
import { topicPathFromBlobPath } from '../topic/path.js';
import type { RepositoryContext } from './context.js';
import type { History } from './vc.js';
import { absolute } from './paths.js';

export type { DoctorReport } from '../setup/doctor.js';
export type { HooksReport, HooksStatusReport } from '../setup/hooks/repository-hooks.js';
export type { UninstallChange } from '../setup/hooks/install.js';

export type { PreCommitDecision } from '../setup/hooks/pre-commit.js';
export type { AdoptResult, UpstreamState } from '../vc/upstream.js';
export type { SettingState, SettingScope } from '../settings/settings.js';

export interface HooksInstallReport extends HooksReport<InstallChange> {
  /** The remote whose fetch refspecs now bring knowledge on a plain `git pull`, and the refspecs added (none: they were there). */
  tracking?: { remote: string; added: string[] };
  /** Set when the clone had no brv branch yet and the remote's was looked for (see InitResult.adopted). */
  adopted?: AdoptResult;
}

export interface InitRequest {
  /** The remote to adopt knowledge from and track (`brv init --track <remote>`); default: the upstream, origin or the only remote. */
  remote?: string;
  /** The fetch step and git's transfer progress, when brv fetches the remote's brv branch. */
  onProgress?: (progress: SyncProgress) => void;
}

export interface InitResult {
  /** A new root commit was made (the remote had no knowledge, or there is no remote). */
  created: boolean;
  branch: string;
  ref: string;
  commit: string;
  /**
   * Set when the branch did not exist and the remote's brv branch was looked for: `commit` in it when
   * the branch now starts at the remote's tip (never a second root), `failed` when the fetch failed.
   */
  adopted?: AdoptResult;
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
  /**
   * Not initialized, in a clone with a remote brv has fetched nothing from (a plain `git clone`):
   * that remote, which may hold knowledge (`brv vc fetch <remote>` brings it; `brv init` would
   * start an unrelated history).
   */
  fetchFrom?: string;
  /**
   * The branch against its remote (upstream, origin or the only remote) as of the last fetch, from
   * local refs only; absent without a remote. `behind` > 0 means knowledge was fetched that this
   * branch does not have yet (all of it when `initialized` is false).
   */
  upstream?: StatusUpstream;
}

/** UpstreamState, and the review holding what was fetched when a hold does (see `brv review pending`). */
export interface StatusUpstream extends UpstreamState {
  held?: string;
}

export interface SettingsRequest {
  /** Only the user's global git config, not this repository's. */
  global?: boolean;
}

export interface SettingRequest extends SettingsRequest {
  /** e.g. `review.gate` (`brv.` prefix optional). */
  key: string;
}

export interface SetSettingRequest extends SettingRequest {
  /** Checked against the setting's type. */
  value: string;
}

export interface SetSettingResult {
  key: string;
  value: SettingValue;
  scope: SettingScope;
}

export interface ResetSettingResult {
  key: string;
  scope: SettingScope;
  /** What applies now (the global value or the default). */
  now: SettingState;
}

export interface HooksRequest {
  /** Hooks to act on (default: all of them). */
  hooks?: string[];
}

export interface PreCommitRequest {
  /** Only build the cited-files cache. */
  cacheOnly?: boolean;
  /** The index git is committing (GIT_INDEX_FILE in a hook), absolute. */
  indexFile?: string;
}

export interface WorktreeInfo {
  path: string;
  gitBranch: string | undefined;
  bare: boolean;
  /** null when that worktree's brv/HEAD is damaged: never shown as some other branch. */
  brvBranch: string | null;
  current: boolean;
}

export interface AddWorktreeRequest {
  /** The new worktree's directory, absolute (a front end resolves what the user typed). */
  directory: string;
  /** git's branch for it (`git worktree add -b`). */
  gitBranch?: string;
  commitish?: string;
  /** Its brv branch (default: the current one). */
  brvBranch?: string;
  /** Create `brvBranch` from the current tip. */
  createBrvBranch?: boolean;
}

export interface AddWorktreeResult {
  path: string;
  gitBranch: string | undefined;
  brvBranch: string;
}

export interface RemoveWorktreeRequest {
  /** Absolute. */
  directory: string;
  force?: boolean;
}

export interface GitConfigRequest {
  key: 'user.name' | 'user.email';
  /** Set it; omitted: read it. */
  value?: string;
}

export interface GitConfigResult {
  key: string;
  value: string | undefined;
}

/**
 * Setting a repository up and checking it: init, status, settings, git hooks (and the pre-commit
 * decision), worktrees, the git identity and `brv doctor`.
 */
export class Setup {
  constructor(
    private readonly ctx: RepositoryContext,
    private readonly history: History,
    private readonly diagnose: () => Promise<DoctorReport>,
  ) {}

  /**
   * Creates the brv branch. In a clone whose remote has knowledge (a plain `git clone`), the branch
   * starts at the remote's tip instead (see adopt): never a second, unrelated root.
   */
  async init(request: InitRequest = {}): Promise<InitResult> {
    const { repo, store, branch } = this.ctx;
    await repo.requireModernGit();
    const adopted = await this.adopt(request);
    if (adopted?.commit) return { created: false, branch, ref: branchRef(branch), commit: adopted.commit, adopted };
    const outcome = await store.commit<boolean>(branch, async (snapshot) =>
      snapshot.commit
        ? { stop: false }
        : { write: { edits: [], subject: 'brv: initialize context tree', meta: { op: 'init' } }, result: true },
    );
    const snapshot = outcome.commit ? undefined : await store.snapshot(branch);
    const commit = outcome.commit ?? snapshot?.commit?.oid;
    if (!commit) throw new BrvError('init-failed', 'Could not create the brv branch.');
    return { created: outcome.result, branch, ref: branchRef(branch), commit, ...(adopted ? { adopted } : {}) };
  }

  /**
   * When this clone has no brv branch yet: starts it at the remote's brv branch (the remote-tracking
   * ref when a fetch brought it, else after fetching the remote). Undefined when the branch exists
   * or there is no remote; a fetch that fails is reported in the result, not thrown.
   */
  async adopt(request: InitRequest = {}): Promise<AdoptResult | undefined> {
    const { adoptRemoteBranch } = await import('../vc/upstream.js');
    const { store, branch } = this.ctx;
    const report = (transfer?: SyncProgress['transfer']) => (remote: string) =>
      request.onProgress?.({ step: 'fetch', remote, branch, attempt: 1, ...(transfer ? { transfer } : {}) });
    let fetching = '';
    return adoptRemoteBranch(store, branch, {
      remote: request.remote,
      onFetch: (remote) => {
        fetching = remote;
        report()(remote);
      },
      onTransfer: request.onProgress && ((transfer) => report(transfer)(fetching)),
    });
  }

  async status(): Promise<StatusResult> {
    const { repo, store, sessions, branch } = this.ctx;
    const gitVersion = await repo.requireModernGit();
    const snapshot = await this.ctx.snapshotFor(undefined);
    const files = await store.listFiles(snapshot);
    const { location } = repo;
    const { upstreamState } = await import('../vc/upstream.js');
    const upstream: StatusUpstream | undefined = await upstreamState(repo, branch);
    if (upstream && upstream.behind > 0) {
      // What was fetched may be waiting on a hold (pull and sync apply nothing of it until decided).
      const { listHolds } = await import('../vc/removal.js');
      const hold = (await listHolds(store)).find((h) => h.branch === branch && h.source === `${upstream.remote}/${branch}`);
      if (hold) upstream.held = hold.id;
    }
    return {
      repository: location.workTree ?? location.gitDir,
      gitDir: location.gitDir,
      bare: location.bare,
      branch,
      ref: snapshot.ref,
      initialized: snapshot.commit !== undefined,
      tip: snapshot.commit?.oid,
      topics: files.filter((f) => topicPathFromBlobPath(f) !== undefined).length,
      openSessions: await sessions.prune(),
      format: FORMAT_VERSION,
      gitVersion,
      // Read-only: it only names the remote that may have knowledge, it fetches nothing.
      ...(!snapshot.commit && upstream && !upstream.fetched ? { fetchFrom: upstream.remote } : {}),
      ...(upstream ? { upstream } : {}),
    };
  }

  /** Every problem brv can see in this repository, each with its fix. */
  doctor(): Promise<DoctorReport> {
    return this.diagnose();
  }

  async settings(request: SettingsRequest = {}): Promise<SettingState[]> {
    return listSettings(this.ctx.repo, request);
  }

  async setting(request: SettingRequest): Promise<SettingState> {
    return getSetting(this.ctx.repo, request.key, request);
  }

  async setSetting(request: SetSettingRequest): Promise<SetSettingResult> {
    return setSetting(this.ctx.repo, request.key, request.value, request);
  }

  async resetSetting(request: SettingRequest): Promise<ResetSettingResult> {
    const result = await resetSetting(this.ctx.repo, request.key, request);
    return { ...result, now: await getSetting(this.ctx.repo, result.key, request) };
  }

  /**
   * Installs the hooks. post-merge and post-checkout integrate what a plain `git pull` fetched, so
   * the remote they integrate from (the branch's upstream, origin, or the only remote) gets brv's
   * fetch refspecs (as `brv init --track`); when there is no such remote, a note says what to run.
   */
  async installHooks(request: HooksRequest & Pick<InitRequest, 'onProgress'> = {}): Promise<HooksInstallReport> {
    const [{ installRepositoryHooks }, sync] = await Promise.all([import('../setup/hooks/repository-hooks.js'), import('../vc/sync.js')]);
    const report: HooksInstallReport = await installRepositoryHooks(this.ctx.repo, request.hooks, this.ctx.host.env.PATH);
    if (!report.hooks.some((h) => h.name !== 'pre-commit' && h.action !== 'skipped')) return report;
    const { repo, branch } = this.ctx;
    let remote: string | undefined;
    try {
      remote = await sync.resolveRemote(repo, branch);
    } catch (error) {
      if (!(error instanceof BrvError)) throw error;
      report.notes.push(
        error.kind === 'no-remote'
          ? 'No git remote yet: brv vc remote add origin <url> adds one that a plain git pull brings knowledge from.'
          : `Several git remotes and no upstream for brv branch ${branch}: run brv init --track <remote> so a plain git pull brings knowledge from it.`,
      );
      return report;
    }
    const added = await sync.trackRemote(repo, remote);
    report.tracking = { remote, added };
    if (added.length > 0)
      report.notes.push(
        `A plain git fetch or git pull from ${remote} now brings knowledge too (brv's fetch refspecs added to remote.${remote}.fetch).`,
      );
    // A plain clone: the hooks merge into a brv branch that starts at the remote's, not a root of its own.
    const adopted = await this.adopt({ remote, onProgress: request.onProgress });
    if (adopted) {
      report.adopted = adopted;
      report.notes.push(...adoptedNotes(adopted));
    }
    return report;
  }

  async uninstallHooks(request: HooksRequest = {}): Promise<HooksReport<UninstallChange>> {
    const { uninstallRepositoryHooks } = await import('../setup/hooks/repository-hooks.js');
    return uninstallRepositoryHooks(this.ctx.repo, request.hooks);
  }

  async hooksStatus(): Promise<HooksStatusReport> {
    const { repositoryHooksStatus } = await import('../setup/hooks/repository-hooks.js');
    return repositoryHooksStatus(this.ctx.repo, this.ctx.host.env.PATH);
  }

  /** The pre-commit hook's decision: which topics cite files this commit changes, and whether to refuse it. */
  async preCommit(request: PreCommitRequest = {}): Promise<PreCommitDecision> {
    const { preCommitDecision } = await import('../setup/hooks/pre-commit.js');
    const snapshot = await this.ctx.store.snapshot(this.ctx.branch);
    return preCommitDecision(this.ctx.store, snapshot, request);
  }

  /** Every worktree of the repository with the brv branch each one works on. */
  async worktrees(): Promise<WorktreeInfo[]> {
    const { listWorktrees } = await import('../git/worktree.js');
    const here = this.ctx.repo.location.gitDir;
    const list = await listWorktrees(this.ctx.repo);
    return Promise.all(
      list.map(async (w) => ({
        path: w.path,
        gitBranch: w.gitBranch,
        bare: w.bare,
        brvBranch: w.gitDir ? await currentBranch(w.gitDir).catch(() => null) : DEFAULT_BRANCH,
        current: w.gitDir === here,
      })),
    );
  }

  /** `git worktree add` plus the brv branch it works on (the current one unless named). */
  async addWorktree(request: AddWorktreeRequest): Promise<AddWorktreeResult> {
    const { addWorktree } = await import('../git/worktree.js');
    const brvBranch = request.brvBranch ?? this.ctx.branch;
    validateBranchName(brvBranch);
    if (request.createBrvBranch) await this.history.createBranch({ name: brvBranch });
    else if (request.brvBranch && !(await this.ctx.repo.resolve(branchRef(brvBranch)))) {
      throw new BrvError('branch-not-found', `No brv branch named ${brvBranch}. Pass --create-brv-branch to start it here.`);
    }
    const worktree = await addWorktree(this.ctx.repo, absolute(request.directory), request);
    await setCurrentBranch(worktree.gitDir, brvBranch);
    return { path: worktree.path, gitBranch: worktree.gitBranch, brvBranch };
  }

  async removeWorktree(request: RemoveWorktreeRequest): Promise<{ path: string }> {
    const { removeWorktree } = await import('../git/worktree.js');
    await removeWorktree(this.ctx.repo, absolute(request.directory), request);
    return { path: request.directory };
  }

  async gitConfig(request: GitConfigRequest): Promise<GitConfigResult> {
    if (request.value !== undefined) await this.ctx.repo.configSet(request.key, request.value);
    return { key: request.key, value: request.value ?? (await this.ctx.repo.configGet(request.key)) };
  }
}

/** Notes on what adopting the remote's brv branch did, for commands that report notes (hooks install, connectors install). */
function adoptedNotes(adopted: AdoptResult): string[] {
  const { branch } = adopted;
  if (adopted.commit)
    return [
      `Adopted ${adopted.remote}'s knowledge: brv branch ${branch} starts at ${adopted.remote}/${branch}, so brv query answers from it.`,
    ];
  if (adopted.failed)
    return [
      `Could not fetch knowledge from ${adopted.remote} (${adopted.failed.kind}): ${adopted.failed.message} Run brv init once it can be reached.`,
    ];
  if (adopted.refused)
    return [
      `${adopted.remote}'s brv branch ${branch} is not knowledge this brv reads (${adopted.refused.kind}): ${adopted.refused.message} It was not adopted.`,
    ];
  return [];
}
