// The Dream page: `brv dream` (POST /api/dream). What could be consolidated, and the proposals held on a review
// (never on the branch) that the Reviews page decides; a dry run records nothing.
import { useState } from 'preact/hooks';
import { postJson, toApiError, type ApiError } from './api.js';
import { readDream, type DreamView } from './actions.js';
import { routeHref } from './routes.js';
import { ErrorBox, Link, useApp } from './ui.js';

export function DreamPage() {
  const { refresh } = useApp();
  const [scope, setScope] = useState('');
  const [dryRun, setDryRun] = useState(false);
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<DreamView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  const run = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (running) return;
    setRunning(true);
    setError(null);
    setResult(null);
    try {
      const body = await postJson('/api/dream', { ...(scope.trim() ? { scope: scope.trim() } : {}), ...(dryRun ? { dryRun } : {}) });
      setResult(readDream(body));
      refresh();
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setRunning(false);
    }
  };

  return (
    <div class="dream">
      <h1>Dream</h1>
      <p class="muted">
        Finds topics to link, merge, prune, refresh or summarise. What it proposes is held on a review, never written to the branch: you
        decide it under Reviews. Merges and overviews need a connected model.
      </p>
      <form class="card dream-form" onSubmit={(event) => void run(event)}>
        <label class="field">
          <span class="field-label">Folder</span>
          <input
            type="text"
            data-testid="dream-scope"
            placeholder="all topics"
            value={scope}
            onInput={(event) => setScope(event.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input type="checkbox" checked={dryRun} onChange={(event) => setDryRun(event.currentTarget.checked)} /> Dry run (record nothing)
        </label>
        <button type="submit" class="primary" data-testid="dream-run" disabled={running} aria-busy={running}>
          {running ? 'Dreaming…' : 'Dream'}
        </button>
      </form>
      <ErrorBox error={error} />
      <div role="status" aria-live="polite">
        {result !== null ? (
          <section class="card" data-testid="dream-result">
            {result.reviewId ? (
              <p>
                {result.proposals} proposal{result.proposals === 1 ? '' : 's'} held for review <code>{result.reviewId}</code>:{' '}
                <Link href={routeHref({ page: 'reviews' })} data-testid="dream-review">
                  review them
                </Link>
                .
              </p>
            ) : null}
            <pre class="raw dream-text">{result.text}</pre>
          </section>
        ) : null}
      </div>
    </div>
  );
}
