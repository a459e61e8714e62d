// The New topic page: the TUI's guided curate form (fields and kinds from GET /api/curate/form), checked by the
// server's validator as you type (POST /api/curate/check), written through curate (POST /api/topics).
import { useEffect, useState } from 'preact/hooks';
import type { CurateFormValues } from '../api-types.js';
import { postJson, toApiError, type ApiError } from './api.js';
import { readCheck, readForm, refusalProblems, startValues, summarizeCreated, type CheckView } from './actions.js';
import { topicHref } from './routes.js';
import { ErrorBox, useApi, useApp } from './ui.js';

const CHECK_DELAY_MS = 300;

type TextName = Exclude<keyof CurateFormValues, 'kind'>;

export function NewTopicPage({ folder }: { folder: string }) {
  const { navigate, refresh } = useApp();
  const form = useApi('/api/curate/form', { immutable: true });
  const view = form.data === null ? null : readForm(form.data);
  const [values, setValues] = useState<CurateFormValues>(() => startValues(folder));
  const [check, setCheck] = useState<CheckView | null>(null);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [problems, setProblems] = useState<string[]>([]);

  // Validate as you type: the last values only, a moment after typing stops.
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      postJson('/api/curate/check', { form: values }).then(
        (body) => current && setCheck(readCheck(body)),
        () => current && setCheck(null),
      );
    }, CHECK_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [values]);

  const set = (name: TextName, value: string) => setValues((previous) => ({ ...previous, [name]: value }));
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (saving) return;
    setSaving(true);
    setError(null);
    setProblems([]);
    try {
      const created = summarizeCreated(await postJson('/api/topics', { form: values }));
      refresh();
      navigate(topicHref(created.path));
    } catch (failure) {
      const apiError = toApiError(failure);
      setError(apiError);
      setProblems(refusalProblems(apiError.detail));
    } finally {
      setSaving(false);
    }
  };

  const ready = check !== null && check.gap === '' && check.errors.length === 0;
  return (
    <div class="new-topic">
      <h1>New topic</h1>
      <p class="muted">Written like an agent's curate: validated, one commit on the brv branch, attributed to the dashboard.</p>
      <ErrorBox error={form.error} />
      {view === null ? (
        form.loading ? (
          <p class="muted">Loading…</p>
        ) : null
      ) : (
        <form class="card topic-form" data-testid="new-topic-form" onSubmit={(event) => void submit(event)}>
          {view.fields.map((field) =>
            field.name === 'kind' ? (
              <label key={field.name} class="field">
                <span class="field-label">{field.label}</span>
                <select
                  data-testid="new-topic-kind"
                  value={String(values.kind)}
                  onChange={(event) => setValues((previous) => ({ ...previous, kind: Number(event.currentTarget.value) }))}
                >
                  {view.kinds.map((label, i) => (
                    <option key={label} value={String(i)}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
            ) : (
              <label key={field.name} class="field">
                <span class="field-label">{field.label}</span>
                {field.name === 'text' ? (
                  <textarea
                    data-testid="new-topic-text"
                    rows={6}
                    value={values.text}
                    onInput={(event) => set('text', event.currentTarget.value)}
                  />
                ) : (
                  <input
                    type="text"
                    data-testid={`new-topic-${field.name}`}
                    value={values[field.name as TextName] ?? ''}
                    onInput={(event) => set(field.name as TextName, event.currentTarget.value)}
                  />
                )}
                <span class="muted field-hint">{field.hint}</span>
              </label>
            ),
          )}
          <div role="status" aria-live="polite" class="form-check" data-testid="new-topic-check">
            {check === null ? null : check.gap ? (
              <p class="muted">{check.gap}</p>
            ) : check.errors.length > 0 ? (
              <ul class="problems">
                {check.errors.map((problem) => (
                  <li key={problem} class="bad">
                    {problem}
                  </li>
                ))}
              </ul>
            ) : (
              <p class="good">
                Valid: will be written at <code>{check.path}</code>.
                {check.warnings.map((warning) => (
                  <span key={warning} class="muted">
                    {' '}
                    {warning}
                  </span>
                ))}
              </p>
            )}
          </div>
          <ErrorBox error={error} />
          {problems.length > 0 ? (
            <ul class="problems">
              {problems.map((problem) => (
                <li key={problem} class="bad">
                  {problem}
                </li>
              ))}
            </ul>
          ) : null}
          <div class="form-actions">
            <button type="submit" class="primary" data-testid="new-topic-save" disabled={saving || !ready} aria-busy={saving}>
              {saving ? 'Creating…' : 'Create topic'}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
