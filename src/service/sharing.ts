import { BrvError, redactCredentials } from '../base/errors.js';
import type { Remote } from '../git/remote.js';
import type { GitTransferProgress } from '../git/transfer-progress.js';
import type { Source } from '../vc/sources.js';
import { branchRef } from '../store/layout.js';
import type { RemoteLayout } from '../base/ref-names.js';
import type { FetchResult, LayoutChange, PushResult, SyncProgress, SyncResult } from '../vc/sync.js';
import type { IncomingResult } from '../vc/removal.js';
import type { PublishOutcome } from '../vc/publish.js';
import type { RepositoryContext } from './context.js';
import type { Actor } from './host.js';
import { absolute } from './paths.js';

export type { Remote } from '../git/remote.js';
export type { Source } from '../vc/sources.js';
export type { FetchResult, LayoutChange, PushResult, SyncProgress, SyncResult } from '../vc/sync.js';
export type { RemoteLayout } from '../base/ref-names.js';
export type { PublishOutcome } from '../vc/publish.js';

/** A git remote and where it keeps knowledge (`refs`, the default, or `branches`). */
export interface RemoteEntry extends Remote {
  layout: RemoteLayout;
}
export type { HeldIncoming, IncomingResult, RemovedTopics } from '../vc/removal.js';

export interface RemoteRequest {
  name: string;
}

export interface RemoteUrlRequest {
  name: string;
  /** Any URL git accepts for the transports brv allows (file, git, http(s), ssh) or a directory. */
  url: string;
}

export interface AddRemoteRequest extends RemoteUrlRequest {
  /** Where the remote keeps knowledge (default refs; branches for hosts that accept only branches and tags). */
  layout?: RemoteLayout;
}

export interface SetLayoutRequest {
  name: string;
  layout: RemoteLayout;
}

export interface AddRemoteResult extends RemoteUrlRequest {
  layout: RemoteLayout;
  /**
   * brv's fetch refspecs added to the new remote, so a plain `git fetch`/`git pull` from it brings
   * knowledge too (into remote-tracking refs only; what `git push` pushes is unchanged).
   */
  tracked: string[];
}

/**
 * Set on fetch, pull and sync when brv's fetch refspecs were missing on the remote and were added
 * (so from now on a plain `git pull` brings knowledge too); absent when they were there.
 */
export interface TrackedNow {
  tracked?: string[];
}

export interface TrackRequest {
  remote: string;
  /** Also choose where the remote keeps knowledge (see SetLayoutRequest); unset: as configured. */
  layout?: RemoteLayout;
}

export interface TrackResult {
  remote: string;
  layout: RemoteLayout;
  /** The fetch refspecs added to the remote (none when they were there). */
  added: string[];
}

/** The remote defaults to the branch's upstream, `origin`, or the only remote there is. */
export interface RemoteSelection {
  remote?: string;
  /**
   * Called as fetch, pull, push and sync move from step to step, then with git's transfer progress
   * within a step (`transfer`: objects received or written) while data moves.
   */
  onProgress?: (progress: SyncProgress) => void;
}

export interface FetchSummary extends FetchResult, TrackedNow {
  /** Local brv branches created for remote branches that had none. */
  createdBranches: string[];
}

export interface PullResult extends TrackedNow {
  remote: string;
  branch: string;
  fetch: FetchResult;
  /**
   * `up-to-date` without a commit when the remote had nothing new; `held` when it removes more topics
   * than the settings allow (`held` names the review, the branch did not move). `removed` lists the
   * topics it deletes or empties, applied or held.
   */
  merge:
    IncomingResult | { status: 'up-to-date'; merged: string[]; conflicts: string[]; removed: { deleted: string[]; emptied: string[] } };
}

export interface PushRequest extends RemoteSelection {
  /** Remember the remote as this branch's upstream. */
  setUpstream?: boolean;
}

export interface SourceRefresh {
  alias: string;
  commit?: string;
  error?: string;
}

export interface SyncSummary extends SyncResult, TrackedNow {
  /** Knowledge sources refreshed after the push. */
  sources: SourceRefresh[];
}

export interface IntegrationResult {
  /** The brv branch tip before and after (equal when nothing came in). */
  before: string | undefined;
  after: string | undefined;
  /** Undefined when there is no remote, or the remote has no such branch; status `held` when held for review. */
  merge: IncomingResult | undefined;
}

export interface AddSourceRequest {
  /** A path to another repository or any URL git accepts. */
  location: string;
  /** Default: the last path segment. */
  alias?: string;
  /** The source's brv branch (default main). */
  branch?: string;
  /** What a relative `location` is relative to (absolute). */
  cwd: string;
}

export interface RemoveSourceRequest {
  /** The alias or the location it was added with. */
  source: string;
}

/** `brv publish`: where to, and which knowledge. */
export interface PublishRequest {
  /** An absolute folder to write the pages into. */
  toDir?: string;
  /** An ordinary git branch to commit the pages onto. */
  toBranch?: string;
  /** Write into a folder or onto a branch that publish did not write. */
  force?: boolean;
  /** A revision of the brv branch (as `brv read --at`). */
  at?: string;
  /** A knowledge source's alias: its fetched tip is published instead. */
  source?: string;
}

export interface PublishResult extends PublishOutcome {
  /** The knowledge commit published. */
  from: string;
}

/** Reports one request's steps, and hands out the transfer callback of each (undefined without a listener). */
function stepProgress(request: RemoteSelection, remote: string, branch: string) {
  const report = (step: SyncProgress['step']) => request.onProgress?.({ step, remote, branch, attempt: 1 });
  return Object.assign(report, {
    transfer: (step: SyncProgress['step']) =>
      request.onProgress && ((transfer: GitTransferProgress) => request.onProgress!({ step, remote, branch, attempt: 1, transfer })),
  });
}

/** Remotes, fetch, pull, push and sync of brv branches and reviews; knowledge sources. */
export class Sharing {
  constructor(private readonly ctx: RepositoryContext) {}

  async remotes(): Promise<RemoteEntry[]> {
    const [{ listRemotes }, { remoteLayouts }] = await Promise.all([import('../git/remote.js'), import('../vc/sync.js')]);
    const layouts = await remoteLayouts(this.ctx.repo);
    return (await listRemotes(this.ctx.repo)).map((r) => ({ ...r, layout: layouts.get(r.name) ?? 'refs' }));
  }

  /** Adds a git remote with brv's fetch refspecs, so a plain `git pull` from it brings knowledge too. */
  async addRemote(request: AddRemoteRequest): Promise<AddRemoteResult> {
    const [{ addRemote }, sync] = await Promise.all([import('../git/remote.js'), import('../vc/sync.js')]);
    await addRemote(this.ctx.repo, request.name, request.url);
    if (request.layout) await sync.setRemoteLayout(this.ctx.store, request.name, request.layout);
    const tracked = await sync.trackRemote(this.ctx.repo, request.name);
    return { name: request.name, url: redactCredentials(request.url), layout: request.layout ?? 'refs', tracked };
  }

  /**
   * Chooses where a remote keeps knowledge: `refs` (refs/brv/*, the default) or `branches` (ordinary
   * branches brv/<branch> and brv-review/<id>, for hosts that accept only branches and tags). Local
   * branches and remote-tracking refs stay as they are; the next push puts knowledge in the new place.
   */
  async setRemoteLayout(request: SetLayoutRequest): Promise<LayoutChange> {
    const { setRemoteLayout } = await import('../vc/sync.js');
    return setRemoteLayout(this.ctx.store, request.name, request.layout);
  }

  async setRemoteUrl(request: RemoteUrlRequest): Promise<RemoteUrlRequest> {
    const { setRemoteUrl } = await import('../git/remote.js');
    await setRemoteUrl(this.ctx.repo, request.name, request.url);
    return { name: request.name, url: redactCredentials(request.url) };
  }

  async removeRemote(request: RemoteRequest): Promise<RemoteRequest> {
    const { removeRemote } = await import('../git/remote.js');
    await removeRemote(this.ctx.repo, request.name);
    return { name: request.name };
  }

  /** `brv init --track <remote>`: a plain `git fetch` brings knowledge too. */
  async track(request: TrackRequest): Promise<TrackResult> {
    const sync = await import('../vc/sync.js');
    // A layout change re-tracks an already tracked remote: what it added counts as added here too.
    const changed = request.layout ? await sync.setRemoteLayout(this.ctx.store, request.remote, request.layout) : undefined;
    const added = [...(changed?.tracked.added ?? []), ...(await sync.trackRemote(this.ctx.repo, request.remote))];
    return { remote: request.remote, layout: await sync.remoteLayout(this.ctx.repo, request.remote), added };
  }

  async fetch(request: RemoteSelection = {}): Promise<FetchSummary> {
    const sync = await import('../vc/sync.js');
    const name = await sync.resolveRemote(this.ctx.repo, this.ctx.branch, request.remote);
    const progress = stepProgress(request, name, this.ctx.branch);
    progress('fetch');
    const result = await sync.fetchRemote(this.ctx.store, name, { onTransfer: progress.transfer('fetch') });
    const created = await sync.createMissingBranches(this.ctx.repo, name);
    return { ...result, createdBranches: created, ...(await trackAfterFetch(this.ctx, name)) };
  }

  async pull(request: RemoteSelection, actor: Actor): Promise<PullResult> {
    const sync = await import('../vc/sync.js');
    const { repo, store, branch } = this.ctx;
    const name = await sync.resolveRemote(repo, branch, request.remote);
    const progress = stepProgress(request, name, branch);
    progress('fetch');
    const fetch = await sync.fetchRemote(store, name, { onTransfer: progress.transfer('fetch') });
    progress('merge');
    const merge = await sync.integrateRemote(store, branch, name, actor.agent, fetch);
    if (!merge && !(await repo.resolve(branchRef(branch)))) {
      throw new BrvError('branch-not-found', `The remote ${name} has no brv branch ${branch}.`);
    }
    const tracked = await trackAfterFetch(this.ctx, name);
    return {
      remote: name,
      branch,
      fetch,
      merge: merge ?? { status: 'up-to-date', merged: [], conflicts: [], removed: { deleted: [], emptied: [] } },
      ...tracked,
    };
  }

  async push(request: PushRequest = {}): Promise<PushResult> {
    const sync = await import('../vc/sync.js');
    const { repo, store, branch } = this.ctx;
    const name = await sync.resolveRemote(repo, branch, request.remote);
    const progress = stepProgress(request, name, branch);
    progress('push');
    const result = await sync.pushBranch(store, branch, name, { setUpstream: request.setUpstream, onTransfer: progress.transfer('push') });
    if (result.refs.some((r) => r.ref === branchRef(branch) && r.status === 'rejected')) {
      const { listHolds } = await import('../vc/removal.js');
      const hold = (await listHolds(store)).find((h) => h.source === `${name}/${branch}` && h.branch === branch);
      if (hold) {
        throw new BrvError(
          'incoming-held',
          `The remote ${name} has knowledge on ${branch} that is held here for review ${hold.id} (${hold.subject}). ` +
            `Look at it with brv review pending, decide with brv review approve ${hold.id} or brv review reject ${hold.id}, then push again.`,
          { review: hold.id },
        );
      }
      throw new BrvError(
        'non-fast-forward',
        `The remote ${name} has knowledge on ${branch} that is not here. Run brv vc pull ${name} (or brv sync), then push again.`,
      );
    }
    return result;
  }

  /** Fetch, integrate and push the current brv branch (and refresh knowledge sources). */
  async sync(request: RemoteSelection, actor: Actor): Promise<SyncSummary> {
    const sync = await import('../vc/sync.js');
    const name = await sync.resolveRemote(this.ctx.repo, this.ctx.branch, request.remote);
    const result = await sync.syncBranch(this.ctx.store, this.ctx.branch, name, actor.agent, request.onProgress);
    const tracked = await trackAfterFetch(this.ctx, name);
    return { ...result, sources: await this.refreshSources(), ...tracked };
  }

  /** For git hooks: merge whatever `git fetch`/`git pull` brought into brv's remote-tracking refs. */
  async integrateFetched(actor: Actor): Promise<IntegrationResult> {
    const sync = await import('../vc/sync.js');
    const { repo, store, branch } = this.ctx;
    const before = (await store.snapshot(branch)).commit?.oid;
    const remote = await sync.resolveRemote(repo, branch).catch(() => undefined);
    let merge: IncomingResult | undefined;
    if (remote) {
      // Reviews a plain `git fetch` brought (or that vanished from the remote) are mirrored too.
      await sync.mirrorReviews(store, remote, await sync.seenReviews(store, remote));
      merge = await sync.integrateRemote(store, branch, remote, actor.agent);
    }
    const after = (await store.snapshot(branch)).commit?.oid;
    return { before, after, merge };
  }

  /**
   * Writes the knowledge as plain Markdown (a page per topic with working related links, a README.md
   * per folder) into a folder or onto an ordinary branch, so people without brv read it on the hosting
   * site. A branch gets one commit built with plumbing: the work tree, the index and HEAD stay as they are.
   */
  async publish(request: PublishRequest): Promise<PublishResult> {
    if ((request.toDir === undefined) === (request.toBranch === undefined))
      throw new BrvError('usage', 'Name one target: a folder (--to-dir <path>) or a branch (--to-branch <name>).');
    const snapshot = await this.ctx.readSnapshot(request);
    const from = snapshot.commit?.oid;
    if (!from)
      throw new BrvError('not-initialized', `brv branch ${snapshot.branch} has no commits yet: curate something first, then publish.`);
    const [{ publishToBranch, publishToFolder }, blobs] = await Promise.all([
      import('../vc/publish.js'),
      this.ctx.store.listBlobs(snapshot),
    ]);
    const input = { repo: this.ctx.repo, from, blobs, force: request.force ?? false };
    const outcome =
      request.toDir !== undefined
        ? await publishToFolder(input, absolute(request.toDir, 'The folder to publish to'))
        : await publishToBranch(input, request.toBranch!);
    return { ...outcome, from };
  }

  async sources(): Promise<Source[]> {
    const { listSources } = await import('../vc/sources.js');
    return (await listSources(this.ctx.repo)).map(shownSource);
  }

  /** Reads another repository's knowledge (fetched into its own refs); never writes to it. */
  async addSource(request: AddSourceRequest): Promise<Source> {
    const { addSource } = await import('../vc/sources.js');
    const added = await addSource(this.ctx.repo, request.location, {
      alias: request.alias,
      branch: request.branch,
      cwd: absolute(request.cwd, 'cwd'),
    });
    return shownSource(added);
  }

  async removeSource(request: RemoveSourceRequest): Promise<Source> {
    const { removeSource } = await import('../vc/sources.js');
    return shownSource(await removeSource(this.ctx.repo, request.source));
  }

  /** Fetches every source again; one that cannot be reached is reported, not fatal. */
  async refreshSources(): Promise<SourceRefresh[]> {
    const { refreshSources } = await import('../vc/sources.js');
    return refreshSources(this.ctx.repo);
  }
}

/**
 * After an explicit fetch, pull or sync from `remote`: brv's fetch refspecs on it (as `brv init
 * --track`), so that from now on a plain `git fetch`/`git pull` brings knowledge too. Only explicit
 * brv commands that talk to the remote write this config; read-only commands only hint.
 */
async function trackAfterFetch(ctx: RepositoryContext, remote: string): Promise<TrackedNow> {
  const { trackRemote } = await import('../vc/sync.js');
  const added = await trackRemote(ctx.repo, remote);
  return added.length > 0 ? { tracked: added } : {};
}

/** A source as results show it: its URL without credentials (a token in it is not for every reader). */
function shownSource(source: Source): Source {
  return { ...source, url: redactCredentials(source.url) };
}
