import { stagedPaths } from '../../git/hooks.js';
import { readSettings } from '../../settings/settings.js';
import type { ContextStore, Snapshot } from '../../store/context-store.js';
import { ensureCitedCache, staleTopics, type StaleTopic } from './cited.js';

export interface PreCommitDecision {
  /** The cited-files cache of the brv tree (null: no brv tree yet). */
  cache: { file: string; source: 'cache' | 'incremental' | 'full'; entries: number } | null;
  /** What brv.hooks.preCommit says to do; undefined when only the cache was built. */
  mode: 'warn' | 'block' | undefined;
  /** Topics citing files the commit changes. */
  stale: StaleTopic[];
  /** True when the commit must be refused (mode `block` and stale topics). */
  blocked: boolean;
}

/**
 * The pre-commit hook's decision: builds the cited-files cache for the brv tree and, unless
 * `cacheOnly`, finds the topics citing staged files; `indexFile` is the index git is committing
 * (GIT_INDEX_FILE in a hook, made absolute by the caller).
 */
export async function preCommitDecision(
  store: ContextStore,
  snapshot: Snapshot,
  options: { cacheOnly?: boolean; indexFile?: string },
): Promise<PreCommitDecision> {
  const cache = await ensureCitedCache(store, snapshot);
  const cacheSummary = cache ? { file: cache.file, source: cache.source, entries: cache.entries.length } : null;
  if (!cache || options.cacheOnly) return { cache: cacheSummary, mode: undefined, stale: [], blocked: false };
  const [staged, settings] = await Promise.all([stagedPaths(store.repo, { indexFile: options.indexFile }), readSettings(store.repo)]);
  const mode = settings['hooks.preCommit'];
  const stale = staleTopics(cache.entries, staged);
  return { cache: cacheSummary, mode, stale, blocked: mode === 'block' && stale.length > 0 };
}
