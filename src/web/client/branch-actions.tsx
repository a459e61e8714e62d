// Branch actions on the Branches page: create a brv branch (and switch to it), check one out, merge one into the
// current branch (POST /api/branches/{create,checkout,merge}); the result or the service's error is shown.
import { useState } from 'preact/hooks';
import { postJson, toApiError, type ApiError } from './api.js';
import { summarizeCheckout, summarizeMerge } from './actions.js';
import type { BranchRow } from './branches.js';
import { ErrorBox, useApp } from './ui.js';

export interface BranchActions {
  busy: boolean;
  run(action: () => Promise<string>): Promise<void>;
  message: string | null;
  error: ApiError | null;
}

export function useBranchActions(): BranchActions {
  const { refresh } = useApp();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async (action: () => Promise<string>): Promise<void> => {
    if (busy) return;
    setBusy(true);
    setMessage(null);
    setError(null);
    try {
      setMessage(await action());
      refresh();
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, run, message, error };
}

const checkout = async (name: string, create = false): Promise<string> =>
  summarizeCheckout(await postJson('/api/branches/checkout', create ? { name, create } : { name }));

/** The new-branch form, and what the last action did. */
export function BranchActionsBar({ actions }: { actions: BranchActions }) {
  const [name, setName] = useState('');
  const [switchTo, setSwitchTo] = useState(true);
  const create = (event: Event): void => {
    event.preventDefault();
    const branch = name.trim();
    if (branch === '') return;
    void actions.run(async () => {
      const text = switchTo
        ? await checkout(branch, true)
        : (await postJson('/api/branches/create', { name: branch }), `Created ${branch} at the current tip.`);
      setName('');
      return text;
    });
  };
  return (
    <>
      <form class="branch-create" onSubmit={create} aria-label="New branch">
        <input
          type="text"
          data-testid="branch-name"
          aria-label="New branch name"
          placeholder="new-branch"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <label class="check">
          <input type="checkbox" checked={switchTo} onChange={(event) => setSwitchTo(event.currentTarget.checked)} /> switch to it
        </label>
        <button type="submit" data-testid="branch-create" disabled={actions.busy || name.trim() === ''}>
          Create branch
        </button>
      </form>
      <div role="status" aria-live="polite">
        {actions.message !== null ? (
          <p class="sync-result" data-testid="branch-result">
            {actions.message}
          </p>
        ) : null}
      </div>
      <ErrorBox error={actions.error} />
    </>
  );
}

/** Check out and merge buttons of a local branch other than the current one. */
export function BranchRowButtons({ row, current, actions }: { row: BranchRow; current: string; actions: BranchActions }) {
  if (row.current || row.remote !== '') return null;
  return (
    <span class="row-actions">
      <button
        type="button"
        class="small"
        data-testid="branch-checkout"
        disabled={actions.busy}
        onClick={() => void actions.run(() => checkout(row.name))}
      >
        Check out
      </button>
      <button
        type="button"
        class="small"
        data-testid="branch-merge"
        title={`Merge ${row.name} into ${current}`}
        disabled={actions.busy}
        onClick={() => void actions.run(async () => summarizeMerge(row.name, await postJson('/api/branches/merge', { source: row.name })))}
      >
        Merge into {current || 'current'}
      </button>
    </span>
  );
}
