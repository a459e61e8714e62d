import { BrvError } from '../base/errors.js';
import type { MergeResult } from '../vc/merge.js';
import type { DiffResult, ShowResult as CommitShown } from '../vc/inspect.js';
import type { BranchInfo } from '../vc/branches.js';
import { readHistory, type HistoryEntry } from '../store/log.js';
import { branchRef, remoteBranchRef, setCurrentBranch, validateBranchName } from '../store/layout.js';
import { normalizeTopicPath, topicBlobPath } from '../topic/path.js';
import type { RepositoryContext } from './context.js';
import { findSetting, gitKey } from '../settings/registry.js';
import type { Actor } from './host.js';
import type { Knowledge, ReadResult } from './knowledge.js';

export type { BranchInfo } from '../vc/branches.js';
export type { DiffResult } from '../vc/inspect.js';
export type { HistoryEntry } from '../store/log.js';
export type { MergeResult } from '../vc/merge.js';

export interface LogRequest {
  /** At most this many commits, newest first. */
  limit: number;
  /** Every brv branch, not only the current one. */
  all?: boolean;
  /** Only commits that changed this topic (or a topic under this folder). */
  path?: string;
}

export interface DiffRequest {
  /** No range: the last commit; `rev`: rev..tip; `a..b`. */
  range?: string;
  /** A unified diff of each changed topic's rendered markdown. */
  patch?: boolean;
  /** Only these topics. */
  paths?: string[];
}

export interface ShowRequest {
  /** A revision (default: the tip), or `<rev>:<path>` for one topic as it was then. */
  spec?: string;
  patch?: boolean;
  /** Only these topics (and topics under these folders) among the commit's changes. */
  paths?: string[];
}

export interface TopicDiffRequest {
  /** The topic path (`security/auth`; `.html` accepted). */
  path: string;
  /** A revision (commit, brv branch expression, tag, date). */
  from: string;
  /** Default: the tip of the current brv branch. */
  to?: string;
}

export interface TopicDiffResult {
  path: string;
  /** The commits compared. */
  from: string;
  to: string;
  /** `unchanged` (empty diff) when the topic is the same at both, or absent from both. */
  status: 'added' | 'removed' | 'changed' | 'unchanged';
  /** A unified diff of the topic's rendered markdown between the two. */
  diff: string;
}

/** A local brv branch and the remote-tracking branch it is compared with. */
export interface BranchUpstream {
  branch: string;
  remote: string;
  /** The remote-tracking ref (`refs/brv/remotes/<remote>/heads/<branch>`). */
  tracking: string;
  ahead: number;
  behind: number;
  /** The review holding what was fetched (it removes many topics), when one does. */
  held?: string;
}

export type ShowResult = { kind: 'commit'; commit: CommitShown } | { kind: 'topic'; topic: ReadResult };

export interface VcStatusResult {
  branch: string;
  ref: string;
  tip: string | undefined;
  remote: string | undefined;
  /** The remote-tracking ref of this branch; undefined when brv has never seen the branch on the remote. */
  tracking: string | undefined;
  /**
   * Commits on this branch that are not on its remote-tracking ref, and the reverse; both 0 when
   * there is no remote-tracking ref (see `tracking`: "not pushed yet", not a count of the history).
   * Without a local branch, `behind` counts every commit of the remote-tracking ref.
   */
  ahead: number;
  behind: number;
  /**
   * Whether brv has fetched any brv branch from the remote (false in a plain `git clone`: the remote
   * may have knowledge brv has not seen); undefined without a remote.
   */
  fetched: boolean | undefined;
  /** Whether a plain `git fetch`/`git pull` from the remote brings knowledge; undefined without a remote. */
  plainFetch: boolean | undefined;
  openReviews: number;
  pendingChanges: number;
  /** Incoming knowledge held for review because it removes many topics (pull and sync apply nothing of it until decided). */
  held: Array<{ id: string; source: string; subject: string }>;
}

export interface BranchesRequest {
  /** Remote-tracking branches too. */
  all?: boolean;
}

export interface CreateBranchRequest {
  name: string;
  /** A revision to start at (default: the current tip). */
  start?: string;
}

export interface BranchResult {
  branch: string;
  commit: string;
}

export interface DeleteBranchRequest {
  name: string;
  /** Delete even with knowledge not merged into the current branch. */
  force?: boolean;
}

export interface CheckoutRequest {
  name: string;
  /** Create the branch from the current tip. */
  create?: boolean;
}

export interface CheckoutResult {
  branch: string;
  /** The branch this worktree was on; null when its brv/HEAD was damaged. */
  previous: string | null;
  created: boolean;
  commit: string | undefined;
}

export interface MergeRequest {
  /** A local brv branch, or `<remote>/<branch>`. */
  source: string;
}

/** Branches compared with their remote at most (each costs git processes). */
const MAX_UPSTREAMS = 200;

/** The brv branch's history and its branches: log, diff, show, status, branch, checkout, merge. */
export class History {
  constructor(
    private readonly ctx: RepositoryContext,
    private readonly knowledge: Knowledge,
  ) {}

  async log(request: LogRequest): Promise<HistoryEntry[]> {
    const { store, repo } = this.ctx;
    let filePath: string | undefined;
    if (request.path) {
      const normalized = normalizeTopicPath(request.path.replace(/\/+$/, ''));
      if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
      const snapshot = await store.snapshot(this.ctx.branch);
      filePath = (await store.pathKind(snapshot, normalized.path)) === 'folder' ? normalized.path : topicBlobPath(normalized.path);
    }
    // Signature states only where someone signs or checks (git verifies each signed commit it lists).
    const signatures = await signatureDisplay(repo);
    if (request.all) {
      const refs = (await store.listBranches()).map((b) => branchRef(b.branch));
      return refs.length === 0 ? [] : readHistory(repo, refs, request.limit, { path: filePath, firstParent: false, signatures });
    }
    const snapshot = await this.ctx.snapshotFor(undefined);
    if (!snapshot.commit) return [];
    return readHistory(repo, snapshot.ref, request.limit, { path: filePath, signatures });
  }

  /** Topic-level diff. */
  async diff(request: DiffRequest = {}): Promise<DiffResult> {
    const [{ diffCommits }, { resolveRange }] = await Promise.all([import('../vc/inspect.js'), import('../vc/branches.js')]);
    const { from, to } = await resolveRange(this.ctx.store, this.ctx.branch, await this.ctx.tipCommit(), request.range);
    return diffCommits(this.ctx.store, from, to, request);
  }

  /** One commit (with its topic changes), or with `rev:path` one topic as it was then. */
  async show(request: ShowRequest = {}): Promise<ShowResult> {
    const { spec } = request;
    const colon = spec ? spec.indexOf(':') : -1;
    if (spec && colon >= 0) {
      const at = spec.slice(0, colon) || this.ctx.branch;
      return { kind: 'topic', topic: await this.knowledge.read({ path: spec.slice(colon + 1), at }) };
    }
    const { showCommit } = await import('../vc/inspect.js');
    const commit = spec ? await this.ctx.store.resolveCommit(this.ctx.branch, spec) : await this.ctx.tipCommit();
    return { kind: 'commit', commit: await showCommit(this.ctx.store, commit, request) };
  }

  /** One topic's diff (its rendered markdown) between two revisions. */
  async topicDiff(request: TopicDiffRequest): Promise<TopicDiffResult> {
    const normalized = normalizeTopicPath(request.path.replace(/\/+$/, ''));
    if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
    const { diffCommits } = await import('../vc/inspect.js');
    const { store, branch } = this.ctx;
    const from = await store.resolveCommit(branch, request.from);
    const to = request.to ? await store.resolveCommit(branch, request.to) : await this.ctx.tipCommit();
    const { changes } = await diffCommits(store, from, to, { patch: true, paths: [normalized.path] });
    const change = changes.find((c) => c.path === normalized.path);
    if (change?.problem) throw new BrvError(change.problem.kind, change.problem.message);
    return { path: normalized.path, from: from.oid, to: to.oid, status: change?.status ?? 'unchanged', diff: change?.diff ?? '' };
  }

  /**
   * Each local brv branch that its remote (upstream, `origin` or the only one) has too: how far it is
   * ahead of and behind that remote-tracking branch (as of the last fetch).
   */
  async upstreams(): Promise<BranchUpstream[]> {
    const { resolveRemote } = await import('../vc/sync.js');
    const { store, repo } = this.ctx;
    // Counted after what a fetch brought came into use (a status line read beside a query must agree with it).
    await this.ctx.arrive();
    const found: BranchUpstream[] = [];
    for (const { branch, commit } of (await store.listBranches()).slice(0, MAX_UPSTREAMS)) {
      const remote = await resolveRemote(repo, branch).catch(() => undefined);
      if (!remote) continue;
      const tracking = remoteBranchRef(remote, branch);
      const trackingTip = await repo.resolve(`${tracking}^{commit}`);
      if (!trackingTip) continue;
      const { ahead, behind } = await repo.aheadBehind(commit, trackingTip);
      found.push({ branch, remote, tracking, ahead, behind });
    }
    // The current branch before it exists here (a plain clone that fetched): all of the remote's is to pull.
    if (!found.some((u) => u.branch === this.ctx.branch)) {
      const { upstreamState } = await import('../vc/upstream.js');
      const up = await upstreamState(repo, this.ctx.branch);
      if (up?.tracking && !up.local)
        found.push({ branch: this.ctx.branch, remote: up.remote, tracking: up.tracking, ahead: 0, behind: up.behind });
    }
    // What was fetched may wait on a hold: then a review decides, not a pull.
    if (found.some((u) => u.behind > 0)) {
      const { listHolds } = await import('../vc/removal.js');
      const holds = await listHolds(store);
      for (const u of found) {
        const hold = holds.find((h) => h.branch === u.branch && h.source === `${u.remote}/${u.branch}`);
        if (hold) u.held = hold.id;
      }
    }
    return found;
  }

  /** The branch, its tip, how far it is ahead of and behind its remote, and open reviews. */
  async status(): Promise<VcStatusResult> {
    const [{ listReviews }, { isTracked }, { upstreamState }] = await Promise.all([
      import('../vc/review.js'),
      import('../vc/sync.js'),
      import('../vc/upstream.js'),
    ]);
    const { store, repo, branch } = this.ctx;
    // A read like any other: what a fetch brought comes into use first, so the counts are after it.
    const snapshot = await this.ctx.snapshotFor(undefined);
    // From the refs alone: with no local branch yet, every commit of the tracking ref is to pull.
    const upstream = await upstreamState(repo, branch);
    const remote = upstream?.remote;
    const reviews = await listReviews(store, branch);
    const { listHolds } = await import('../vc/removal.js');
    const held = (await listHolds(store)).map((h) => ({ id: h.id, source: h.source, subject: h.subject }));
    return {
      branch,
      ref: snapshot.ref,
      tip: snapshot.commit?.oid,
      remote,
      tracking: upstream?.tracking,
      ahead: upstream?.ahead ?? 0,
      behind: upstream?.behind ?? 0,
      fetched: upstream?.fetched,
      plainFetch: remote ? await isTracked(repo, remote) : undefined,
      openReviews: reviews.tasks.length,
      pendingChanges: reviews.pendingCount,
      held,
    };
  }

  async branches(request: BranchesRequest = {}): Promise<BranchInfo[]> {
    const { listBranches } = await import('../vc/branches.js');
    return listBranches(this.ctx.store, this.ctx.branch, request.all ?? false);
  }

  /** A new brv branch at the current tip (or `start`). */
  async createBranch(request: CreateBranchRequest): Promise<BranchResult> {
    const commit = request.start ? await this.ctx.store.resolveCommit(this.ctx.branch, request.start) : await this.ctx.tipCommit();
    await this.ctx.store.createBranch(request.name, commit.oid);
    return { branch: request.name, commit: commit.oid };
  }

  async deleteBranch(request: DeleteBranchRequest): Promise<BranchResult> {
    const { deleteBranch } = await import('../vc/branches.js');
    const commit = await deleteBranch(this.ctx.store, this.ctx.branch, request.name, request.force ?? false);
    return { branch: request.name, commit };
  }

  /** Makes `name` this worktree's brv branch (creating it from the current tip with `create`). */
  async checkout(request: CheckoutRequest): Promise<CheckoutResult> {
    const { name } = request;
    validateBranchName(name);
    let created = false;
    // -b starts the new branch at the current one's tip, which a damaged brv/HEAD no longer names.
    if (request.create && this.ctx.headProblem) throw this.ctx.headProblem;
    if (request.create) {
      await this.createBranch({ name });
      created = true;
    } else if (!(await this.ctx.repo.resolve(branchRef(name)))) {
      // A branch only on a remote: start tracking it, as git checkout does.
      const remoteTip = (await this.branches({ all: true })).find((b) => b.remote && b.branch.endsWith(`/${name}`));
      if (!remoteTip) throw new BrvError('branch-not-found', `No brv branch named ${name}. Create it with brv vc checkout -b ${name}.`);
      // Knowledge from elsewhere: with sync.requireSigned, only history the policy accepts.
      const { refuseUntrusted } = await import('../vc/trust.js');
      await refuseUntrusted(this.ctx.repo, remoteTip.commit, remoteTip.branch, name);
      await this.ctx.store.createBranch(name, remoteTip.commit);
      created = true;
    }
    await setCurrentBranch(this.ctx.repo.location.gitDir, name);
    const previous = this.ctx.headProblem ? null : this.ctx.branch;
    return { branch: name, previous, created, commit: await this.ctx.repo.resolve(branchRef(name)) };
  }

  /** Merges another brv branch (local, or `<remote>/<branch>`) into the current one. */
  async merge(request: MergeRequest, actor: Actor): Promise<MergeResult> {
    const [{ mergeIntoBranch }, { resolveMergeSource }] = await Promise.all([import('../vc/merge.js'), import('../vc/branches.js')]);
    const { store, branch } = this.ctx;
    const theirs = await resolveMergeSource(store, branch, request.source);
    if (!(await this.ctx.repo.resolve(branchRef(request.source)))) {
      // A remote branch: knowledge from elsewhere, so through the removal guard like a pull.
      const { integrateIncoming } = await import('../vc/removal.js');
      return integrateIncoming(store, branch, theirs, {
        subject: `merge: ${request.source} into ${branch}`,
        source: request.source,
        agent: actor.agent,
      });
    }
    return mergeIntoBranch(store, branch, theirs, {
      subject: `merge: ${request.source} into ${branch}`,
      theirsLabel: request.source,
      agent: actor.agent,
    });
  }
}

/**
 * Whether a log shows signature states: when git config signs commits or names a signing key or
 * format, has an allowed-signers file, or brv.sync.requireSigned is on (one `git config` run). Then
 * `git log` checks each signed commit of the page (`%G?`); otherwise it is not asked to, and a log
 * stays one git process with no gpg or ssh-keygen behind it. Without an allowed-signers file, an
 * empty one stands in, so an ssh-signed commit shows as signed by an unchecked key, not as unsigned.
 */
async function signatureDisplay(repo: RepositoryContext['repo']): Promise<{ allowedSignersFile?: string } | undefined> {
  const policy = gitKey(findSetting('sync.requireSigned')!).toLowerCase();
  const config = await repo.configList(
    `^(commit\\.gpgsign|gpg\\.format|user\\.signingkey|gpg\\.ssh\\.allowedsignersfile|${policy.replace(/\./g, '\\.')})$`,
  );
  const last = (key: string) => config.filter((e) => e.key === key).at(-1)?.value;
  const on = (value: string | undefined) => value !== undefined && /^(true|yes|on|1)$/i.test(value.trim());
  const allowed = last('gpg.ssh.allowedsignersfile');
  const wanted = on(last('commit.gpgsign')) || on(last(policy)) || !!last('user.signingkey') || !!last('gpg.format') || !!allowed;
  if (!wanted) return undefined;
  return allowed ? {} : { allowedSignersFile: '/dev/null' };
}
