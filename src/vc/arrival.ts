import path from 'node:path';
import type { KnowledgeArrival } from './arrival-state.js';
import { fileStamp, readRefFile, readRefFileWhere } from '../git/ref-files.js';
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
  /** When a value was read from packed-refs: that file's stamp (while it holds, the file is not read again). */
  localPacked?: string;
  trackingPacked?: string;
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
    (r.localPacked === undefined || typeof r.localPacked === 'string') &&
    (r.trackingPacked === undefined || typeof r.trackingPacked === 'string') &&
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
    const known = (packed: string | undefined, oid: string | null) => (packed === undefined ? undefined : { packed, oid });
    const localAt = readRefFileWhere(commonDir, branchRef(branch), objectFormat, known(entry.localPacked, entry.local));
    const trackingRef = remoteBranchRef(entry.remote, branch);
    const trackingAt = readRefFileWhere(commonDir, trackingRef, objectFormat, known(entry.trackingPacked, entry.tracking));
    if (localAt && trackingAt) {
      const [local, tracking] = [localAt.oid, trackingAt.oid];
      const same = entry.local === local && entry.tracking === tracking;
      let answer: KnowledgeArrival | undefined;
      if (tracking === null || tracking === local) answer = { state: 'current', branch, remote: entry.remote };
      else if (
        same &&
        (entry.outcome.state !== 'held' || typeof readRefFile(commonDir, reviewRef(entry.outcome.review), objectFormat) === 'string')
      )
        answer = entry.outcome; // (a held change is still held while its review ref is there)
      if (answer) {
        // Remembered as read now (a value found in packed-refs with that file's stamp, so it is not read again).
        if (!same || localAt.packed !== entry.localPacked || trackingAt.packed !== entry.trackingPacked) {
          const { localPacked: _l, trackingPacked: _t, ...rest } = entry;
          await remember(
            store,
            branch,
            {
              ...rest,
              local,
              tracking,
              outcome: answer,
              ...(localAt.packed === undefined ? {} : { localPacked: localAt.packed }),
              ...(trackingAt.packed === undefined ? {} : { trackingPacked: trackingAt.packed }),
            },
            file,
          );
        }
        return answer;
      }
    }
  }
  const { importSlow } = await import('./arrival-import.js');
  const found = await importSlow(store, branch, entry?.remote, options.agent);
  if (found.remember && config !== undefined) {
    // Where each value is stored: one read from packed-refs is not read again while that file is unchanged.
    const packedStamp = (ref: string, oid: string | null) => {
      const where = readRefFileWhere(commonDir, ref, objectFormat);
      return where && where.oid === oid ? where.packed : undefined;
    };
    const localPacked = found.remote === null ? undefined : packedStamp(branchRef(branch), found.local);
    const trackingPacked = found.remote === null ? undefined : packedStamp(remoteBranchRef(found.remote, branch), found.tracking);
    await remember(
      store,
      branch,
      {
        config,
        remote: found.remote,
        local: found.local,
        tracking: found.tracking,
        ...(localPacked === undefined ? {} : { localPacked }),
        ...(trackingPacked === undefined ? {} : { trackingPacked }),
        // Once fast-forwarded the two refs are equal: the next read has nothing to take.
        outcome: found.outcome.state === 'fast-forwarded' ? { state: 'current', branch, remote: found.outcome.remote } : found.outcome,
      },
      file,
    );
  }
  return found.outcome;
}
