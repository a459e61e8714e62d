import type {
  BranchesResponse,
  FetchResponse,
  IncomingResult,
  PullResponse,
  PushResponse,
  StreamingRoute,
  SyncProgress,
  SyncResponse,
} from '../api-types.js';
import { list, str, wire } from './json.js';
// The Branches & sync page's view model: GET /api/branches read defensively (local brv branches with their
// upstream and ahead/behind, remote-tracking branches, remotes, worktrees), and one-line summaries of what
// fetch / pull / push / sync did. Pure: no DOM, tested in test/web/client-branches.test.ts.

/** fetch, pull, push, sync: the operations POST /api/sync/<op> runs. */
export type SyncOp = StreamingRoute extends `/api/sync/${infer Op}` ? Op : never;

export interface BranchRow {
  name: string;
  tip: string;
  current: boolean;
  /** `<remote>/<branch>` this branch follows, or ''. */
  upstream: string;
  ahead: number | null;
  behind: number | null;
  /** For a remote-tracking branch: its remote; '' for a local one. */
  remote: string;
}

export interface WorktreeRow {
  path: string;
  /** The brv branch it uses (null: its brv/HEAD is damaged). */
  branch: string | null;
  gitBranch: string;
  current: boolean;
}

export interface BranchesView {
  current: string;
  local: BranchRow[];
  tracking: BranchRow[];
  remotes: Array<{ name: string; url: string }>;
  worktrees: WorktreeRow[];
  /** Sync buttons work only with a remote. */
  canSync: boolean;
}

const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);

export function readBranches(raw: unknown): BranchesView {
  const body = wire<BranchesResponse>(raw);
  const remotes = list(body.remotes)
    .map((value) => {
      const remote = wire<BranchesResponse['remotes'][number]>(value);
      return { name: str(remote.name), url: str(remote.url) };
    })
    .filter((remote) => remote.name !== '');
  const rows = list(body.branches).map((value): BranchRow => {
    // `branch`, `commit`: the service's names for them, also read.
    const branch = wire<BranchesResponse['branches'][number], 'branch' | 'commit'>(value);
    const name = str(branch.name, branch.branch);
    const upstream = str(branch.upstream);
    // The service marks remote-tracking branches with their remote; without it, `<known remote>/…` and no upstream.
    const remote =
      str(branch.remote) ||
      (upstream === '' && branch.current !== true ? (remotes.find((r) => name.startsWith(`${r.name}/`))?.name ?? '') : '');
    return {
      name,
      tip: str(branch.tip, branch.commit),
      current: branch.current === true,
      upstream,
      ahead: count(branch.ahead),
      behind: count(branch.behind),
      remote,
    };
  });
  const local = rows.filter((row) => row.remote === '');
  const current = str(body.current) || (local.find((row) => row.current)?.name ?? '');
  return {
    current,
    local: local.map((row) => (row.name === current ? { ...row, current: true } : row)),
    tracking: rows.filter((row) => row.remote !== ''),
    remotes,
    worktrees: list(body.worktrees).map((value) => {
      const worktree = wire<BranchesResponse['worktrees'][number], 'brvBranch'>(value);
      const branch = worktree.branch === null || worktree.brvBranch === null ? null : str(worktree.branch, worktree.brvBranch);
      return { path: str(worktree.path), branch, gitBranch: str(worktree.gitBranch), current: worktree.current === true };
    }),
    canSync: remotes.length > 0,
  };
}

/** `2 ahead, 1 behind` / `up to date` / `not pushed yet` / `no upstream` for a local branch. */
export function trackingLabel(row: BranchRow): string {
  if (row.upstream === '') return row.ahead === null && row.behind === null ? 'no upstream' : label(row.ahead ?? 0, row.behind ?? 0);
  if (row.ahead === null && row.behind === null) return `follows ${row.upstream}`;
  return label(row.ahead ?? 0, row.behind ?? 0);
}

function label(ahead: number, behind: number): string {
  if (ahead === 0 && behind === 0) return 'up to date';
  return [ahead > 0 ? `${ahead} ahead` : '', behind > 0 ? `${behind} behind` : ''].filter(Boolean).join(', ');
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function mergeText(raw: unknown): string {
  const merge = wire<IncomingResult>(raw);
  const status = str(merge.status);
  const conflicts = list(merge.conflicts).length;
  const merged = list(merge.merged).length;
  const parts: string[] = [];
  const removed = wire<IncomingResult['removed']>(merge.removed);
  const gone = list(removed.deleted).length + list(removed.emptied).length;
  if (status === 'up-to-date' || status === '') parts.push('already up to date');
  else if (status === 'held') {
    // A pull that would remove many topics: nothing applied (src/vc/removal.ts).
    const id = str(wire<IncomingResult['held']>(merge.held).id);
    return `held for review ${id}: it would remove ${plural(gone, 'topic')}; nothing applied or pushed (brv review approve ${id} takes it, reject keeps the topics)`;
  } else if (status === 'fast-forward') parts.push(`fast-forwarded to ${str(merge.commit).slice(0, 8)}`);
  else parts.push(`merged as ${str(merge.commit).slice(0, 8)}`);
  if (merged > 0) parts.push(`${plural(merged, 'topic')} merged section by section`);
  if (conflicts > 0) parts.push(`${plural(conflicts, 'conflict')} kept for review`);
  if (gone > 0) parts.push(`${plural(gone, 'topic')} removed`);
  return parts.join('; ');
}

function fetchText(raw: unknown): string {
  const fetch = wire<FetchResponse>(raw);
  const parts = [`${plural(list(fetch.branches).length, 'brv branch', 'brv branches')} on ${str(fetch.remote) || 'the remote'}`];
  const reviews = wire<FetchResponse['reviews']>(fetch.reviews);
  const opened = list(reviews.opened).length;
  const closed = list(reviews.closed).length;
  if (opened > 0) parts.push(`${plural(opened, 'review')} opened`);
  if (closed > 0) parts.push(`${plural(closed, 'review')} closed`);
  const created = list(fetch.createdBranches).filter((name): name is string => typeof name === 'string');
  if (created.length > 0) parts.push(`new local ${created.length === 1 ? 'branch' : 'branches'} ${created.join(', ')}`);
  const refused = list(fetch.refused).length;
  if (refused > 0) parts.push(`${plural(refused, 'remote tip')} refused (not brv knowledge this brv reads)`);
  return parts.join('; ');
}

function pushText(raw: unknown): string {
  const push = wire<PushResponse>(raw);
  const refs = list(push.refs).map((value) => wire<PushResponse['refs'][number]>(value));
  const updated = refs.filter((ref) => ref.status === 'ok').length;
  const rejected = refs.filter((ref) => ref.status === 'rejected');
  const parts = [updated > 0 ? `${plural(updated, 'ref')} updated` : 'nothing new to push'];
  if (rejected.length > 0) parts.push(`rejected: ${rejected.map((ref) => `${str(ref.ref)} (${str(ref.summary)})`).join(', ')}`);
  if (push.upstreamSet === true) parts.push('upstream set');
  return parts.join('; ');
}

/** One line saying what a sync operation did, from the service's result. */
export function summarizeSync(op: SyncOp, raw: unknown): string {
  const result = wire<FetchResponse | PullResponse | PushResponse | SyncResponse>(raw);
  const remote = str(result.remote) || 'the remote';
  const branch = str(result.branch);
  switch (op) {
    case 'fetch':
      return `Fetched: ${fetchText(result)}.`;
    case 'pull':
      return `Pulled ${branch ? `${branch} ` : ''}from ${remote}: ${mergeText(result.merge)}.`;
    case 'push':
      return `Pushed ${branch ? `${branch} ` : ''}to ${remote}: ${pushText(result)}.`;
    case 'sync': {
      const attempts =
        typeof result.attempts === 'number' && result.attempts > 1 ? ` (${result.attempts} attempts: the remote moved meanwhile)` : '';
      const merge = result.merge === undefined || result.merge === null ? 'nothing to merge' : mergeText(result.merge);
      return `Synced ${branch ? `${branch} ` : ''}with ${remote}: ${merge}; ${pushText(result.push)}${attempts}.`;
    }
  }
}

/** What a running sync operation is doing now, as the progress stream reports it. */
export interface SyncProgressView {
  /** `Fetching knowledge from origin…` */
  step: string;
  /** git's transfer within the step: `Receiving objects 45% (450/1000)`, or ''. */
  detail: string;
  /** 0–100 when the transfer has a total, else null (an indeterminate bar). */
  percent: number | null;
}

/** One `{"type":"progress"}` line of a sync stream, for people (the CLI's words). */
export function readSyncProgress(raw: unknown): SyncProgressView {
  const progress = wire<SyncProgress>(raw);
  const remote = str(progress.remote) || 'the remote';
  const branch = str(progress.branch);
  const again =
    typeof progress.attempt === 'number' && progress.attempt > 1 ? ` (attempt ${progress.attempt}: the remote moved meanwhile)` : '';
  const step =
    progress.step === 'merge'
      ? `Merging ${remote}/${branch} into ${branch}…${again}`
      : progress.step === 'push'
        ? `Pushing ${branch} to ${remote}…${again}`
        : `Fetching knowledge from ${remote}…${again}`;
  const transfer = wire<SyncProgress['transfer']>(progress.transfer);
  const phase = str(transfer.phase);
  if (!phase) return { step, detail: '', percent: null };
  const done = typeof transfer.done === 'number' ? transfer.done : 0;
  const total = typeof transfer.total === 'number' && transfer.total > 0 ? transfer.total : null;
  const percent = total === null ? null : Math.min(100, Math.floor((done / total) * 100));
  const where = transfer.remote === true ? 'remote: ' : '';
  return { step, detail: `${where}${phase} ${percent === null ? done : `${percent}% (${done}/${total})`}`, percent };
}
