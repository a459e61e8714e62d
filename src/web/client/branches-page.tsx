// The Branches & sync page: brv branches (current, upstream, ahead/behind), remote-tracking branches, remotes,
// worktrees with their brv branch, and fetch / pull / push / sync buttons (busy while running; the result or the
// real error). The ref events an operation causes refresh the rest of the dashboard.
import { useState } from 'preact/hooks';
import { postStream, toApiError, type ApiError } from './api.js';
import { BranchActionsBar, BranchRowButtons, useBranchActions, type BranchActions } from './branch-actions.js';
import {
  readBranches,
  readSyncProgress,
  summarizeSync,
  trackingLabel,
  type BranchRow,
  type SyncOp,
  type SyncProgressView,
} from './branches.js';
import { ErrorBox, shortOid, useApi, useApp } from './ui.js';

const OPERATIONS: Array<{ op: SyncOp; testId: string; label: string; busy: string; title: string }> = [
  {
    op: 'fetch',
    testId: 'sync-fetch',
    label: 'Fetch',
    busy: 'Fetching…',
    title: "Bring the remote's knowledge into its remote-tracking branches",
  },
  { op: 'pull', testId: 'sync-pull', label: 'Pull', busy: 'Pulling…', title: "Fetch, then merge the remote's branch into this one" },
  { op: 'push', testId: 'sync-push', label: 'Push', busy: 'Pushing…', title: 'Send this branch to the remote' },
  {
    op: 'sync',
    testId: 'sync-sync',
    label: 'Sync',
    busy: 'Syncing…',
    title: 'Fetch, merge and push (retried if the remote moved meanwhile)',
  },
];

export function BranchesPage() {
  const { refresh } = useApp();
  const answer = useApi('/api/branches');
  const view = answer.data === null ? null : readBranches(answer.data);
  const [running, setRunning] = useState<SyncOp | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [progress, setProgress] = useState<SyncProgressView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [remote, setRemote] = useState('');
  const actions = useBranchActions();

  const run = async (op: SyncOp): Promise<void> => {
    if (running !== null) return;
    setRunning(op);
    setResult(null);
    setError(null);
    setProgress(null);
    try {
      const body = await postStream(`/api/sync/${op}`, remote ? { remote } : {}, (line) => setProgress(readSyncProgress(line)));
      setResult(summarizeSync(op, body));
      refresh();
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setRunning(null);
      setProgress(null);
    }
  };

  return (
    <div class="branches">
      <h1>Branches &amp; sync</h1>
      <ErrorBox error={answer.error} />
      {view === null ? answer.loading ? <p class="muted">Loading…</p> : null : null}
      {view !== null ? (
        <>
          <section class="card sync" aria-labelledby="sync-heading" aria-busy={running !== null}>
            <div class="card-header">
              <h2 id="sync-heading">Sync{view.current ? <span class="muted"> {view.current}</span> : null}</h2>
              {view.remotes.length > 1 ? (
                <label class="remote-select">
                  Remote{' '}
                  <select value={remote} disabled={running !== null} onChange={(event) => setRemote(event.currentTarget.value)}>
                    <option value="">default (upstream)</option>
                    {view.remotes.map((r) => (
                      <option key={r.name} value={r.name}>
                        {r.name}
                      </option>
                    ))}
                  </select>
                </label>
              ) : null}
            </div>
            <div class="sync-buttons">
              {OPERATIONS.map(({ op, testId, label, busy, title }) => (
                <button
                  key={op}
                  type="button"
                  data-testid={testId}
                  title={title}
                  disabled={!view.canSync || running !== null}
                  aria-busy={running === op}
                  class={running === op ? 'busy' : undefined}
                  onClick={() => void run(op)}
                >
                  {running === op ? busy : label}
                </button>
              ))}
            </div>
            {!view.canSync ? (
              <p class="muted no-remote" data-testid="no-remote">
                No remote yet: add one with <code>brv vc remote add origin &lt;url&gt;</code>, then fetch, pull, push or sync here.
              </p>
            ) : null}
            <div role="status" aria-live="polite">
              {running !== null && progress !== null ? (
                <div class="sync-progress" data-testid="sync-progress">
                  <p>
                    {progress.step}
                    {progress.detail ? <span class="muted"> {progress.detail}</span> : null}
                  </p>
                  {progress.percent !== null ? (
                    <progress max={100} value={progress.percent} aria-label="Transfer" />
                  ) : (
                    <progress aria-label="Working" />
                  )}
                </div>
              ) : null}
              {result !== null ? (
                <p class="sync-result" data-testid="sync-result">
                  {result}
                </p>
              ) : null}
            </div>
            <ErrorBox error={error} />
          </section>

          <section aria-labelledby="branches-heading">
            <h2 id="branches-heading">Branches</h2>
            {view.local.length === 0 ? <p class="muted">No brv branch yet: the first curate creates one.</p> : null}
            <BranchActionsBar actions={actions} />
            <ul class="rows">
              {view.local.map((row) => (
                <BranchItem key={row.name} row={row} current={view.current} actions={actions} />
              ))}
            </ul>
            {view.tracking.length > 0 ? (
              <>
                <h3>Remote-tracking</h3>
                <ul class="rows">
                  {view.tracking.map((row) => (
                    <BranchItem key={row.name} row={row} />
                  ))}
                </ul>
              </>
            ) : null}
          </section>

          <section aria-labelledby="remotes-heading">
            <h2 id="remotes-heading">Remotes</h2>
            {view.remotes.length === 0 ? <p class="muted">None.</p> : null}
            <ul class="rows">
              {view.remotes.map((r) => (
                <li key={r.name} class="row" data-testid="remote" data-name={r.name}>
                  <strong>{r.name}</strong> <code class="muted">{r.url}</code>
                </li>
              ))}
            </ul>
          </section>

          <section aria-labelledby="worktrees-heading">
            <h2 id="worktrees-heading">Worktrees</h2>
            {view.worktrees.length === 0 ? <p class="muted">None.</p> : null}
            <ul class="rows">
              {view.worktrees.map((worktree) => (
                <li key={worktree.path} class="row" data-testid="worktree" data-path={worktree.path}>
                  <code class="path">{worktree.path}</code>
                  {worktree.current ? <span class="badge">this one</span> : null}
                  <span>
                    brv branch{' '}
                    {worktree.branch === null ? (
                      <span class="bad">unreadable (run brv doctor)</span>
                    ) : (
                      <strong>{worktree.branch || '—'}</strong>
                    )}
                  </span>
                  {worktree.gitBranch ? <span class="muted">git {worktree.gitBranch}</span> : null}
                </li>
              ))}
            </ul>
          </section>
        </>
      ) : null}
    </div>
  );
}

function BranchItem({ row, current, actions }: { row: BranchRow; current?: string; actions?: BranchActions }) {
  return (
    <li
      class={row.current ? 'row current' : 'row'}
      data-testid="branch"
      data-name={row.name}
      aria-current={row.current ? 'true' : undefined}
    >
      <span class="marker" aria-hidden="true">
        {row.current ? '●' : ''}
      </span>
      <strong>{row.name}</strong>
      {row.current ? <span class="badge">current</span> : null}
      <code class="muted" title={row.tip}>
        {shortOid(row.tip)}
      </code>
      {row.remote === '' ? (
        <>
          {row.upstream ? <span class="muted">↔ {row.upstream}</span> : null}
          <span class="badge subtle tracking">{trackingLabel(row)}</span>
        </>
      ) : null}
      {actions ? <BranchRowButtons row={row} current={current ?? ''} actions={actions} /> : null}
    </li>
  );
}
