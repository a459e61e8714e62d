// The Setup page's Model section: the providers (which is in use, where each key comes from — never the key),
// connecting one (its key sent once, stored outside any repository, the field cleared), choosing the model,
// switching and disconnecting (GET /api/providers, POST /api/providers/{connect,model,switch,disconnect}).
import { useState } from 'preact/hooks';
import { postJson, toApiError, type ApiError } from './api.js';
import { readModels, readProviders, type ProviderRow } from './actions.js';
import { ErrorBox, useApi, useApp } from './ui.js';

export function ProvidersSection() {
  const { refresh } = useApp();
  const answer = useApi('/api/providers');
  const view = answer.data === null ? null : readProviders(answer.data);
  const models = useApi(view?.active && !view.fromEnv ? '/api/providers/models' : null);
  const modelView = models.data === null ? null : readModels(models.data);
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

  return (
    <section class="card" aria-labelledby="model-heading" data-testid="setup-model">
      <h2 id="model-heading">Model</h2>
      <ErrorBox error={answer.error} />
      {view === null ? null : (
        <>
          <p data-testid="model-active">
            {view.active ? (
              <>
                In use: <strong>{view.active}</strong>
                {view.fromEnv ? <span class="muted"> (chosen by BRV_LLM_PROVIDER in brv webui's environment)</span> : null}
              </>
            ) : (
              <span class="muted">
                No model connected: brv works without one; Ask answers, self-driven curate and dream merges need one.
              </span>
            )}
          </p>
          {/* Chosen by the environment: the model is BRV_LLM_MODEL's, not a setting to change here. */}
          {modelView !== null && modelView.models.length > 0 && !view.fromEnv ? (
            <label class="field inline">
              <span class="field-label">Model</span>
              <select
                data-testid="model-choice"
                value={modelView.current}
                disabled={busy}
                onChange={(event) => {
                  const model = event.currentTarget.value;
                  void run(async () => {
                    await postJson('/api/providers/model', { model });
                    return `Now using ${model}.`;
                  });
                }}
              >
                {modelView.models.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <ul class="rows">
            {view.providers
              .filter((p) => p.connected)
              .map((p) => (
                <ProviderItem key={p.id} provider={p} busy={busy} run={run} />
              ))}
          </ul>
          <ConnectForm providers={view.providers} busy={busy} run={run} />
        </>
      )}
      <div role="status" aria-live="polite">
        {message !== null ? (
          <p class="sync-result" data-testid="model-result">
            {message}
          </p>
        ) : null}
      </div>
      <ErrorBox error={error} />
    </section>
  );
}

type Run = (action: () => Promise<string>) => Promise<void>;

function ProviderItem({ provider, busy, run }: { provider: ProviderRow; busy: boolean; run: Run }) {
  return (
    <li class="row" data-testid="provider" data-id={provider.id}>
      <strong>{provider.name}</strong>
      {provider.active ? <span class="badge">in use</span> : null}
      <span class="muted">{provider.model}</span>
      {provider.baseUrl ? <code class="muted">{provider.baseUrl}</code> : null}
      <span class="muted">key: {provider.key || 'none'}</span>
      {!provider.active ? (
        <button
          type="button"
          class="small"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await postJson('/api/providers/switch', { provider: provider.id });
              return `Now using ${provider.name}.`;
            })
          }
        >
          Use
        </button>
      ) : null}
      <button
        type="button"
        class="small"
        data-testid="provider-disconnect"
        disabled={busy}
        onClick={() =>
          void run(async () => {
            await postJson('/api/providers/disconnect', { provider: provider.id });
            return `Disconnected ${provider.name}.`;
          })
        }
      >
        Disconnect
      </button>
    </li>
  );
}

function ConnectForm({ providers, busy, run }: { providers: ProviderRow[]; busy: boolean; run: Run }) {
  const [provider, setProvider] = useState('');
  const [model, setModel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const chosen = providers.find((p) => p.id === provider);
  const submit = (event: Event): void => {
    event.preventDefault();
    if (!provider) return;
    const key = apiKey;
    // The key leaves the page once: the field is cleared whatever the answer.
    setApiKey('');
    void run(async () => {
      await postJson('/api/providers/connect', {
        provider,
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(key.trim() ? { apiKey: key.trim() } : {}),
      });
      return `Connected ${chosen?.name ?? provider}.`;
    });
  };
  return (
    <form class="connect-form" data-testid="provider-connect-form" onSubmit={submit} autocomplete="off">
      <h3>Connect a provider</h3>
      <label class="field">
        <span class="field-label">Provider</span>
        <select data-testid="provider-choice" value={provider} onChange={(event) => setProvider(event.currentTarget.value)}>
          <option value="">Choose…</option>
          {providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
              {p.connected ? ' (connected)' : ''}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span class="field-label">Model</span>
        <input
          type="text"
          data-testid="provider-model"
          placeholder={chosen?.model ?? 'its default'}
          value={model}
          onInput={(event) => setModel(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span class="field-label">Base URL</span>
        <input
          type="url"
          data-testid="provider-base-url"
          placeholder="only for a local or OpenAI-compatible server"
          value={baseUrl}
          onInput={(event) => setBaseUrl(event.currentTarget.value)}
        />
      </label>
      {chosen?.keyOptional === true ? null : (
        <label class="field">
          <span class="field-label">API key</span>
          <input
            type="password"
            data-testid="provider-key"
            autocomplete="new-password"
            placeholder={chosen?.key && chosen.key !== 'none' ? `keep: ${chosen.key}` : 'stored outside any repository, never shown again'}
            value={apiKey}
            onInput={(event) => setApiKey(event.currentTarget.value)}
          />
        </label>
      )}
      <button type="submit" class="primary" data-testid="provider-connect" disabled={busy || provider === ''}>
        Connect
      </button>
    </form>
  );
}
