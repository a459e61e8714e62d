// Deleting a topic from its page: a Delete button that asks first (the path named, Delete or Cancel), then
// POST /api/topics/remove, as `brv rm`.
import { useState } from 'preact/hooks';
import { postJson, toApiError, type ApiError } from './api.js';
import { summarizeRemoved } from './actions.js';
import { routeHref } from './routes.js';
import { ErrorBox, useApp } from './ui.js';

/** What the last delete did, shown on the Knowledge page it returns to. */
let lastDeleted: string | null = null;

function onDeleted(text: string): void {
  lastDeleted = text;
}

/** The note of the delete that led here, once. */
export function takeDeleted(): string | null {
  const text = lastDeleted;
  lastDeleted = null;
  return text;
}

export function TopicDelete({ path, disabled }: { path: string; disabled: boolean }) {
  const { navigate, refresh } = useApp();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const remove = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      onDeleted(summarizeRemoved(await postJson('/api/topics/remove', { path })));
      refresh();
      navigate(routeHref({ page: 'knowledge', topic: null, tab: 'rendered' }));
    } catch (failure) {
      setError(toApiError(failure));
      setBusy(false);
    }
  };

  if (!confirming)
    return (
      <button type="button" class="danger-outline" data-testid="topic-delete" disabled={disabled} onClick={() => setConfirming(true)}>
        Delete
      </button>
    );
  return (
    <div class="confirm" role="alertdialog" aria-labelledby="delete-question" data-testid="delete-confirm">
      <span id="delete-question">
        Delete <code>{path}</code>? It stays in the history.
      </span>
      <button type="button" class="danger" data-testid="delete-confirm-yes" disabled={busy} aria-busy={busy} onClick={() => void remove()}>
        {busy ? 'Deleting…' : 'Delete'}
      </button>
      <button type="button" data-testid="delete-confirm-no" disabled={busy} onClick={() => setConfirming(false)} autoFocus>
        Cancel
      </button>
      <ErrorBox error={error} />
    </div>
  );
}
