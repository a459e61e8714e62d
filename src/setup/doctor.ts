import { BrvError, isBrvError } from '../base/errors.js';
import type { GitProcesses } from '../git/processes.js';
import { checkGitVersion } from '../git/version.js';
import type { GitRepository } from '../git/repository.js';
import type { SkippedTopic } from '../index/tree-index.js';
import type { ContextStore } from '../store/context-store.js';
import { branchRef } from '../store/layout.js';
import { monotonicNow } from '../base/trace.js';

/**
 * What `diagnose` reads of one repository: the service's `Brv` provides it. Declared here because
 * doctor/ sits below the service and may not import it (CONTRIBUTING.md, "Architecture").
 */
export interface DoctorSubject {
  readonly repo: GitRepository;
  readonly store: Pick<ContextStore, 'snapshot'>;
  readonly sessions: { prune(): Promise<number> };
  readonly branch: string;
  /** The PATH git hooks run with (to tell whether they can find brv). */
  readonly pathVariable: string | undefined;
  /** The platform agent files are laid out for. */
  readonly platform?: NodeJS.Platform;
  status(): Promise<{ initialized: boolean; topics: number; tip: string | undefined; format: string }>;
  search(question: string, options: { limit: number }): Promise<unknown>;
  skippedTopics(): Promise<ReadonlyArray<SkippedTopic & { source?: string }>>;
  vcStatus(): Promise<{
    remote: string | undefined;
    tracking: string | undefined;
    tip?: string | undefined;
    ahead: number;
    behind: number;
    /** Whether brv has fetched any brv branch from the remote (false in a plain clone). */
    fetched?: boolean | undefined;
    /** Incoming knowledge held for review because it removes many topics. */
    held?: ReadonlyArray<{ id: string; source: string; subject: string }>;
  }>;
  reviews(): Promise<{ tasks: readonly unknown[]; pendingCount: number }>;
  /** The model provider in use (optional), without a network call; undefined when none. */
  model(): Promise<ModelStatus | undefined>;
}

export interface ModelStatus {
  provider: string;
  model: string;
  /** `env`: chosen by BRV_LLM_PROVIDER for this process. */
  from: 'env' | 'config';
  /** Where the key comes from, or undefined when none was found. */
  keySource: string | undefined;
  keyOptional: boolean;
  embeddingModel?: string;
}

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to run or change when the status is not ok. */
  fix?: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

const ok = (name: string, message: string): Check => ({ name, status: 'ok', message });
const warn = (name: string, message: string, fix: string): Check => ({ name, status: 'warn', message, fix });
const fail = (name: string, message: string, fix: string): Check => ({ name, status: 'fail', message, fix });

/** Runs one check; a check that throws is reported as failed, never aborts the others. */
async function guarded(name: string, check: () => Promise<Check | Check[]>): Promise<Check[]> {
  try {
    const result = await check();
    return Array.isArray(result) ? result : [result];
  } catch (error) {
    const message = isBrvError(error) ? `${error.message} [${error.kind}]` : String((error as Error)?.message ?? error);
    return [fail(name, message, 'See the message; run the named command with --format json for details.')];
  }
}

/** git itself, outside any repository: the one check that can run anywhere. */
export async function checkGit(processes: GitProcesses): Promise<Check> {
  try {
    return ok('git', `git ${await checkGitVersion(processes)}`);
  } catch (error) {
    if (error instanceof BrvError) return fail('git', error.message, 'Install git 2.38 or newer (https://git-scm.com/downloads).');
    throw error;
  }
}

/**
 * Everything brv depends on in one repository, each with the fix when it is not right: git, the
 * brv branch and its data format, the author identity, hooks, agent connectors, the search index,
 * remotes and sync, reviews and curate sessions.
 */
export async function diagnose(brv: DoctorSubject): Promise<DoctorReport> {
  const checks: Check[] = [await checkGit(brv.repo.processes)];
  const { repo } = brv;
  const location = repo.location;
  checks.push(ok('repository', `${location.workTree ?? location.gitDir}${location.bare ? ' (bare)' : ''}, brv branch ${brv.branch}`));

  checks.push(
    ...(await guarded('context tree', async () => {
      const status = await brv.status();
      if (!status.initialized) {
        // In a plain git clone, knowledge may be on the remote: init would start an unrelated history.
        const { remote, tracking, behind, fetched } = await brv.vcStatus();
        if (remote && tracking && behind > 0)
          return fail(
            'context tree',
            `brv branch ${brv.branch} does not exist yet; ${remote}/${brv.branch} has ${behind} commit(s) of knowledge fetched and not taken.`,
            `brv init (starts ${brv.branch} at ${remote}/${brv.branch}, no fetch needed)`,
          );
        const fix = !remote
          ? 'brv init'
          : fetched
            ? `brv init (${remote} had no brv branch ${brv.branch} when last fetched)`
            : `brv init (fetches ${remote}'s knowledge and starts from it; it creates a new branch only if ${remote} has none)`;
        return fail('context tree', `brv branch ${brv.branch} does not exist yet.`, fix);
      }
      return ok(
        'context tree',
        `${status.topics} topic(s) on ${branchRef(brv.branch)} at ${status.tip!.slice(0, 10)}, data format ${status.format}`,
      );
    })),
  );

  checks.push(
    ...(await guarded('identity', async () => {
      const [name, email] = await Promise.all([repo.configGet('user.name'), repo.configGet('user.email')]);
      if (name && email) return ok('identity', `brv commits are authored by ${name} <${email}>`);
      return warn(
        'identity',
        'git user.name / user.email are not set: brv commits are signed "brv <brv@localhost>".',
        'brv vc config user.name "Your Name" && brv vc config user.email you@example.com',
      );
    })),
  );

  if (!location.bare) {
    checks.push(
      ...(await guarded('hooks', async () => {
        const { repositoryHooksStatus } = await import('./hooks/repository-hooks.js');
        const report = await repositoryHooksStatus(repo, brv.pathVariable);
        const states = report.hooks.map((h) => `${h.name}: ${h.state}`).join(', ');
        if (report.hooks.every((h) => h.state === 'installed')) {
          return report.brvOnPath
            ? ok('hooks', states)
            : warn(
                'hooks',
                `${states}; but brv is not on PATH, so they do nothing`,
                'npm install -g brv (or npm link in the brv checkout)',
              );
        }
        if (report.hooks.some((h) => h.state === 'outdated')) return warn('hooks', states, 'brv hooks install');
        return warn(
          'hooks',
          `${states} (optional: they merge knowledge after git pull and flag stale topics on commit)`,
          'brv hooks install',
        );
      })),
    );

    checks.push(
      ...(await guarded('connectors', async () => {
        const { connectorStatus, projectScope } = await import('./connectors/connectors.js');
        const entries = await connectorStatus([projectScope(location, brv.platform)]);
        if (entries.length === 0) {
          return warn(
            'connectors',
            'No coding agent is connected to brv in this project.',
            'brv connectors install claude-code (see brv connectors list)',
          );
        }
        const broken = entries.filter((e) => e.state !== 'installed');
        const names = [...new Set(entries.map((e) => `${e.name} (${e.type})`))].join(', ');
        if (broken.length > 0) {
          const agents = [...new Set(broken.map((e) => e.agent))];
          return warn(
            'connectors',
            `${names}; needing attention: ${broken.map((e) => `${e.name} ${e.type} ${e.state}`).join(', ')}`,
            agents.map((a) => `brv connectors install ${a}`).join(' && '),
          );
        }
        return ok('connectors', names);
      })),
    );
  }

  checks.push(
    ...(await guarded('search index', async () => {
      const snapshot = await brv.store.snapshot(brv.branch);
      if (!snapshot.commit) return ok('search index', 'nothing to index yet');
      const start = monotonicNow();
      const result = await brv.search('brv doctor index check', { limit: 1 });
      const index = (result as { index: { build: string; tree: string | undefined } }).index;
      const ms = Math.round(monotonicNow() - start);
      return ok(
        'search index',
        `index for tree ${index.tree?.slice(0, 10)} ${index.build === 'cached' ? 'ready' : `built (${index.build})`} in ${ms} ms`,
      );
    })),
  );

  checks.push(
    ...(await guarded('topics', async () => {
      const skipped = await brv.skippedTopics();
      if (skipped.length === 0) return ok('topics', 'every topic blob can be read and indexed');
      // One line per blob: a teammate's push or a knowledge source brought it, brv never wrote it.
      return skipped
        .slice(0, 50)
        .map((skip) =>
          warn(
            'topics',
            `${skip.source ? `source ${skip.source}: ` : ''}${skip.path} is skipped by search and read (${skip.problem}): ${skip.message}`,
            skip.source
              ? `ask the source's maintainers to fix it, or brv source remove ${skip.source}`
              : skip.problem === 'duplicate-path'
                ? `brv curate --overwrite the topic at ${skip.path} (writes a clean tree)`
                : `brv rm ${skip.path} (or curate a valid topic over it with --overwrite)`,
          ),
        );
    })),
  );

  checks.push(
    ...(await guarded('sync', async () => {
      const status = await brv.vcStatus();
      if (!status.remote) {
        return warn('sync', 'No git remote: knowledge stays in this clone.', 'brv vc remote add origin <url> && brv sync');
      }
      // brv's fetch refspecs for the remote's layout (refs/brv/* or, on a host that refuses them, branches brv/*).
      const { isTracked } = await import('../vc/sync.js');
      const tracked = await isTracked(repo, status.remote);
      const lines = [];
      lines.push(
        status.tracking
          ? `${status.ahead} to push, ${status.behind} to pull (${status.remote})`
          : status.fetched === false
            ? `nothing fetched from ${status.remote} yet (it may have knowledge)`
            : `not yet pushed to ${status.remote}`,
      );
      if (!tracked) lines.push(`plain git fetch does not bring knowledge`);
      const held = status.held ?? [];
      if (held.length > 0) {
        return held.map((h) =>
          warn(
            'sync',
            `incoming knowledge from ${h.source} is held for review ${h.id}: ${h.subject}; sync applies and pushes nothing until it is decided`,
            `brv review pending, then brv review approve ${h.id} (take it) or brv review reject ${h.id} (keep the topics)`,
          ),
        );
      }
      // No local branch yet: the context tree check names brv init; pulling alone: brv vc pull.
      if (!status.tip && (status.behind > 0 || !status.fetched)) return warn('sync', lines.join('; '), 'brv init');
      if (status.tracking && status.ahead === 0 && status.behind > 0) return warn('sync', lines.join('; '), 'brv vc pull (or brv sync)');
      if (status.ahead > 0 || status.behind > 0 || !status.tracking) return warn('sync', lines.join('; '), 'brv sync');
      if (!tracked) return warn('sync', lines.join('; '), `brv init --track ${status.remote}`);
      return ok('sync', lines.join('; '));
    })),
  );

  checks.push(
    ...(await guarded('reviews', async () => {
      const reviews = await brv.reviews();
      if (reviews.tasks.length === 0) return ok('reviews', 'no changes awaiting review');
      return warn(
        'reviews',
        `${reviews.tasks.length} review(s), ${reviews.pendingCount} change(s) awaiting a decision`,
        'brv review pending',
      );
    })),
  );

  checks.push(
    ...(await guarded('local state', async () => {
      const { localStateProblems } = await import('./local-state.js');
      const problems = await localStateProblems(location.commonDir, location.gitDir);
      if (problems.length === 0) return ok('local state', 'caches, sessions and sync state are ordinary files');
      return problems.map((p) => fail('local state', `${p.file} ${p.problem}`, p.fix));
    })),
  );

  checks.push(
    ...(await guarded('model', async () => {
      const model = await brv.model();
      if (!model) return ok('model', 'no provider connected (optional: brv providers connect <provider>)');
      const what = `${model.provider} ${model.model}${model.embeddingModel ? `, embeddings ${model.embeddingModel}` : ''}${model.from === 'env' ? ' (BRV_LLM_PROVIDER)' : ''}`;
      if (model.keySource) return ok('model', `${what}, key from ${model.keySource}`);
      if (model.keyOptional) return ok('model', `${what}, no key`);
      return warn(
        'model',
        `${what}: no API key found, so every model call fails`,
        `brv providers connect ${model.provider} --api-key - (or set its environment variable)`,
      );
    })),
  );

  checks.push(
    ...(await guarded('sessions', async () => {
      const open = await brv.sessions.prune();
      return ok('sessions', `${open} open curate session(s) (expired ones pruned)`);
    })),
  );

  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}
