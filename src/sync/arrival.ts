import path from 'node:path';
import type { KnowledgeArrival } from './arrival-state.js';
import { fileStamp, readRefFile } from '../git/ref-files.js';
import type { ContextStore } from '../store/context-store.js';
import { branchRef, localStateDir, remoteBranchRef, reviewRef } from '../store/layout.js';
import { readLocalFileSync, writeLocalFile } from '../store/local-file.js';

// Fetched knowledge comes into use at the start of each read (DESIGN §2.6, issue 32), as jj imports
// git refs at the start of each command: any fetch — `git pull` that merges no code, `git fetch`, an
// editor's background fetch, `brv vc fetch` — only moves `refs/brv/remotes/<remote>/heads/<branch>`.
// importFetched compares the local brv branch with that ref (no network, ever) and, when the local
// branch can fast-forward, moves it there through integrateIncoming (so the removal guard, the trust
// policy and review mirroring apply exactly as for `brv vc pull`), fast-forward only: it never merges.
//
// The common case — nothing moved since the last read — starts no process: the last answer is
// remembered in local state (`<common-dir>/brv/sync/arrival.json`) keyed by the repository config's
// stamp (which decides the upstream remote) and the two ref values, read from git's ref files.

export type { KnowledgeArrival, KnowledgeNotice } from './arrival-state.js';
export { arrivalNotice } from './arrival-state.js';

interface Remembered {
  /** The stamp of `<common-dir>/config` the remote was resolved under. */
  config: string;
  /** The upstream remote, or null when the branch has none (no remote, several and no upstream). */
  remote: string | null;
  /** The ref values the outcome was found for. */
  local: string | null;
  tracking: string | null;
  outcome: KnowledgeArrival;
}

interface RememberedFile {
  version: 1;
  branches: Record<string, Remembered>;
}

const MAX_STATE_BYTES = 256 * 1024;
/** Branches remembered at most (worktrees on different branches each keep theirs). */
const MAX_BRANCHES = 32;

function stateFile(store: ContextStore): string {
  return localStateDir(store.repo.location.commonDir, 'sync', 'arrival.json');
}

function readRemembered(store: ContextStore): RememberedFile | undefined {
  try {
    // Synchronous: a few hundred bytes, read on every read (the async round trips cost more than the read).
    const bytes = readLocalFileSync(stateFile(store), MAX_STATE_BYTES);
    if (!bytes) return undefined;
    const value = JSON.parse(bytes.toString('utf8')) as Partial<RememberedFile> | null;
    if (!value || value.version !== 1 || typeof value.branches !== 'object' || value.branches === null) return undefined;
    return value as RememberedFile;
  } catch {
    return undefined; // a cache: anything damaged is found again
  }
}

/** What a later read may be answered with (a fast-forward is done, a failure is tried again). */
const REMEMBERED_STATES = new Set<string>(['current', 'diverged', 'held', 'refused']);

function isRemembered(value: unknown, branch: string, oid: RegExp): value is Remembered {
  const r = value as Partial<Remembered> | null;
  const ref = (v: unknown) => v === null || (typeof v === 'string' && oid.test(v));
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.config === 'string' &&
    (r.remote === null || typeof r.remote === 'string') &&
    ref(r.local) &&
    ref(r.tracking) &&
    typeof r.outcome === 'object' &&
    r.outcome !== null &&
    REMEMBERED_STATES.has((r.outcome as { state?: unknown }).state as string) &&
    (r.outcome as { branch?: unknown }).branch === branch
  );
}

async function remember(store: ContextStore, branch: string, entry: Remembered, file: RememberedFile | undefined): Promise<void> {
  const branches = { ...(file?.branches ?? {}) };
  delete branches[branch];
  const kept = Object.entries(branches).slice(-(MAX_BRANCHES - 1));
  const next: RememberedFile = { version: 1, branches: { ...Object.fromEntries(kept), [branch]: entry } };
  await writeLocalFile(stateFile(store), `${JSON.stringify(next)}\n`, { repair: localStateDir(store.repo.location.commonDir) }).catch(
    () => {}, // a cache: the next read finds it again
  );
}

/**
 * Brings fetched knowledge into use for `branch` (see above): the answer for this read. Never a
 * network call, never a merge. A fast-forward goes through integrateIncoming (fast-forward only), so
 * whatever holds an incoming change for `brv vc pull` holds it here. Typed failures do not fail the
 * read: they come back as `failed` (or `refused` for a tip brv does not take). `agent` is recorded
 * on what the import writes (a hold).
 */
export async function importFetched(store: ContextStore, branch: string, options: { agent?: string } = {}): Promise<KnowledgeArrival> {
  const { repo } = store;
  const { commonDir, objectFormat } = repo.location;
  const config = fileStamp(path.join(commonDir, 'config'));
  const file = readRemembered(store);
  const oid = objectFormat === 'sha256' ? /^[0-9a-f]{64}$/ : /^[0-9a-f]{40}$/;
  const raw = file?.branches[branch];
  const entry = isRemembered(raw, branch, oid) && config !== undefined && raw.config === config ? raw : undefined;
  if (entry) {
    // The fast path: the upstream is known for this config; the refs come from their files.
    if (entry.remote === null) return { state: 'current', branch };
    const local = readRefFile(commonDir, branchRef(branch), objectFormat);
    const tracking = readRefFile(commonDir, remoteBranchRef(entry.remote, branch), objectFormat);
    if (local !== undefined && tracking !== undefined) {
      if (tracking === null || tracking === local) return { state: 'current', branch, remote: entry.remote };
      if (entry.local === local && entry.tracking === tracking) {
        const outcome = entry.outcome;
        // A held change is still held while its review ref is there.
        if (outcome.state !== 'held' || typeof readRefFile(commonDir, reviewRef(outcome.review), objectFormat) === 'string') return outcome;
      }
    }
  }
  const { importSlow } = await import('./arrival-import.js');
  const found = await importSlow(store, branch, entry?.remote, options.agent);
  if (found.remember && config !== undefined)
    await remember(
      store,
      branch,
      {
        config,
        remote: found.remote,
        local: found.local,
        tracking: found.tracking,
        // Once fast-forwarded the two refs are equal: the next read has nothing to take.
        outcome: found.outcome.state === 'fast-forwarded' ? { state: 'current', branch, remote: found.outcome.remote } : found.outcome,
      },
      file,
    );
  return found.outcome;
}
