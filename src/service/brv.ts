import { BrvError } from '../base/errors.js';
import { GitRepository } from '../git/repository.js';
import type { GitProcesses } from '../git/processes.js';
import type { DoctorReport } from '../setup/doctor.js';
import { tipRevisions } from '../store/context-store.js';
import { currentBranch, DEFAULT_BRANCH } from '../store/layout.js';
import { arrivalNotice, type KnowledgeArrival, type KnowledgeNotice } from '../vc/arrival.js';
import { CONTEXT, RepositoryContext } from './context.js';
import { History } from './vc.js';
import type { Host } from './host.js';
import { Knowledge } from './knowledge.js';
import { Retrieval } from './retrieval.js';
import { Review } from './review.js';
import { Setup } from './setup.js';
import { Sharing } from './sharing.js';
import { mark } from '../base/trace.js';

export type { KnowledgeArrival, KnowledgeNotice } from '../vc/arrival.js';

export interface OpenOptions {
  /**
   * A damaged brv/HEAD does not stop the opening (only `checkout`, which rewrites it, should pass
   * it); every other operation reports `corrupt-local-state` rather than act on a guessed branch.
   */
  repairHead?: boolean;
}

/** Where the opened repository is. */
export interface RepositoryInfo {
  /** Top of the working tree; undefined in a bare repository. */
  workTree: string | undefined;
  /** This worktree's git directory. */
  gitDir: string;
  /** The directory shared by all worktrees (what ref-change events name). */
  commonDir: string;
  bare: boolean;
}

/**
 * One repository's brv, opened by `BrvService.open`: every operation a front end (CLI, MCP, TUI,
 * web) can run on it, grouped by capability. Each operation takes a declared request (and, for
 * writes, the `Actor`) and returns a declared result; front ends use nothing else.
 */
export class Brv {
  /** Curate, read, list, remove topics; import and export ByteRover trees. */
  readonly knowledge: Knowledge;
  /** Query and search (knowledge sources included); topics search leaves out. */
  readonly retrieval: Retrieval;
  /** Log, diff, show, vc status, branches, checkout, merge. */
  readonly history: History;
  /** Remotes, fetch, pull, push, sync; knowledge sources. */
  readonly sharing: Sharing;
  /** Pending reviews, approve, reject. */
  readonly review: Review;
  /** Init, status, settings, hooks, worktrees, git identity, doctor. */
  readonly setup: Setup;

  private constructor(private readonly ctx: RepositoryContext) {
    this.knowledge = new Knowledge(ctx);
    this.retrieval = new Retrieval(ctx);
    this.history = new History(ctx, this.knowledge);
    this.sharing = new Sharing(ctx);
    this.review = new Review(ctx, this.history, this.knowledge);
    this.setup = new Setup(ctx, this.history, () => this.diagnose());
  }

  /** For BrvService.open: front ends open repositories through the service, which owns the git processes. */
  static async open(cwd: string, host: Host, processes: GitProcesses, options: OpenOptions = {}): Promise<Brv> {
    // The default branch's tip is resolved by the discovery process itself (one git start fewer).
    const repo = await GitRepository.open(cwd, processes, tipRevisions(DEFAULT_BRANCH));
    mark('repository discovered');
    try {
      return await currentBranch(repo.location.gitDir).then(
        (branch) => new Brv(new RepositoryContext(repo, branch, host)),
        (error: unknown) => {
          if (options.repairHead && error instanceof BrvError && error.kind === 'corrupt-local-state')
            return new Brv(new RepositoryContext(repo, DEFAULT_BRANCH, host, error));
          throw error;
        },
      );
    } catch (error) {
      repo.close();
      throw error;
    }
  }

  /** This worktree's brv branch. */
  get branch(): string {
    return this.ctx.branch;
  }

  get repository(): RepositoryInfo {
    const { workTree, gitDir, commonDir, bare } = this.ctx.repo.location;
    return { workTree, gitDir, commonDir, bare };
  }

  /** Re-reads this worktree's brv branch (a long-lived server must see `brv vc checkout` from elsewhere). */
  async refreshBranch(): Promise<string> {
    this.ctx.branch = await currentBranch(this.ctx.repo.location.gitDir);
    return this.ctx.branch;
  }

  /**
   * What the last read found of fetched knowledge (every read of the branch tip first brings in what
   * a fetch moved: src/vc/arrival.ts): undefined before any read.
   */
  knowledgeArrival(): KnowledgeArrival | undefined {
    return this.ctx.arrival;
  }

  /**
   * What a front end must tell once with a read's answer (JSON metadata, one stderr line, a line in
   * an MCP result): local and remote knowledge diverged (fix: brv sync), incoming knowledge held as a
   * review, a remote tip refused, or an import that failed; undefined when there is nothing to say.
   * With `since` (knowledgeArrival() before a call), only when a read since then found it.
   */
  knowledgeNotice(since?: KnowledgeArrival): KnowledgeNotice | undefined {
    // A long-lived server tells a call only what a read of that call found (`since`: the arrival before it).
    if (since !== undefined && this.ctx.arrival === since) return undefined;
    return arrivalNotice(this.ctx.arrival);
  }

  /** The shared state, for other service modules only (front ends cannot import context.ts: .dependency-cruiser.cjs). */
  [CONTEXT](): RepositoryContext {
    return this.ctx;
  }

  close(): void {
    this.ctx.repo.close();
  }

  private async diagnose(): Promise<DoctorReport> {
    const { diagnose } = await import('../setup/doctor.js');
    const { ctx } = this;
    return diagnose({
      repo: ctx.repo,
      store: ctx.store,
      sessions: ctx.sessions,
      branch: ctx.branch,
      pathVariable: ctx.host.env.PATH,
      platform: ctx.host.platform,
      status: () => this.setup.status(),
      search: (question, options) => this.retrieval.search({ question, ...options }),
      skippedTopics: () => this.retrieval.skippedTopics(),
      vcStatus: () => this.history.status(),
      reviews: () => this.review.pending(),
      model: () => import('./llm.js').then((m) => m.modelStatus(ctx.host, ctx.repo.processes)),
    });
  }
}
