// The Setup page: brv's settings (each with the control its type needs, saved one by one), the git hooks, the
// agents' connectors (install / uninstall) and what `brv doctor` finds, with its fixes.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { postJson, putJson, toApiError, type ApiError } from './api.js';
import {
  readSetup,
  summarizeConnector,
  summarizeHooks,
  summarizeSetting,
  type ConnectorRow,
  type Finding,
  type HooksView,
  type Part,
  type SettingRow,
} from './setup.js';
import { ProvidersSection } from './providers-section.js';
import { ErrorBox, useApi, useApp } from './ui.js';

export function SetupPage() {
  const answer = useApi('/api/setup');
  const view = answer.data === null ? null : readSetup(answer.data);
  return (
    <div class="setup">
      <h1>Setup</h1>
      <ErrorBox error={answer.error} />
      {view === null ? answer.loading ? <p class="muted">Loading…</p> : null : null}
      {view !== null ? (
        <>
          <Section id="settings" title="Settings" part={view.settings}>
            {(settings) => (
              <ul class="rows">
                {settings.map((setting) => (
                  <SettingItem key={setting.key} setting={setting} />
                ))}
              </ul>
            )}
          </Section>
          <Section id="hooks" title="Git hooks" part={view.hooks}>
            {(hooks) => <Hooks hooks={hooks} />}
          </Section>
          <Section id="connectors" title="Connectors" part={view.connectors}>
            {(connectors) => <Connectors agents={connectors.agents} complete={connectors.complete} />}
          </Section>
          <Section id="doctor" title="Doctor" part={view.doctor}>
            {(doctor) => <Doctor ok={doctor.ok} findings={doctor.findings} />}
          </Section>
          <ProvidersSection />
        </>
      ) : null}
    </div>
  );
}

function Section<T>({ id, title, part, children }: { id: string; title: string; part: Part<T>; children(value: T): ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={`${id}-heading`} data-testid={`setup-${id}`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {part.ok ? children(part.value) : <ErrorBox error={part.error} />}
    </section>
  );
}

/** A POST/PUT with a busy flag, its summary or its error; the dashboard reloads after it. */
function useAction(): {
  busy: string | null;
  result: string | null;
  error: ApiError | null;
  run(name: string, send: () => Promise<unknown>, summary: (answer: unknown) => string): void;
} {
  const { refresh } = useApp();
  const [busy, setBusy] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const run = (name: string, send: () => Promise<unknown>, summary: (answer: unknown) => string): void => {
    if (busy !== null) return;
    setBusy(name);
    setResult(null);
    setError(null);
    send()
      .then(
        (answer) => {
          setResult(summary(answer));
          refresh();
        },
        (failure: unknown) => setError(toApiError(failure)),
      )
      .finally(() => setBusy(null));
  };
  return { busy, result, error, run };
}

function Outcome({ result, error }: { result: string | null; error: ApiError | null }) {
  return (
    <>
      {result !== null ? (
        <p class="action-result" role="status">
          {result}
        </p>
      ) : null}
      <ErrorBox error={error} />
    </>
  );
}

function SettingItem({ setting }: { setting: SettingRow }) {
  const [draft, setDraft] = useState(setting.value);
  const action = useAction();
  // A new value from the server (saved here, or elsewhere) replaces the draft.
  useEffect(() => setDraft(setting.value), [setting.value]);
  const { control } = setting;
  const inputId = `setting-${setting.key}`;
  const save = (): void => action.run('save', () => putJson('/api/settings', { key: setting.key, value: draft }), summarizeSetting);
  return (
    <li class="row setting" data-testid="setting" data-key={setting.key}>
      <div class="setting-text">
        <label for={inputId}>
          <code class="setting-key">{setting.key}</code>
        </label>
        <span class="muted setting-description">{setting.description}</span>
        <span class="muted setting-source">
          {setting.source === 'default' ? 'default' : `set in ${setting.source}`}
          {setting.source !== 'default' ? ` · default ${setting.defaultValue}` : ''}
        </span>
        {setting.invalid ? (
          <span class="bad">
            The stored value “{setting.invalid}” is not valid: brv uses the default ({setting.defaultValue}).
          </span>
        ) : null}
      </div>
      <div class="setting-control">
        {control.type === 'checkbox' ? (
          <input
            id={inputId}
            type="checkbox"
            checked={draft === 'true'}
            onChange={(event) => setDraft(event.currentTarget.checked ? 'true' : 'false')}
          />
        ) : control.type === 'select' ? (
          <select id={inputId} value={draft} onChange={(event) => setDraft(event.currentTarget.value)}>
            {(control.options.includes(draft) ? control.options : [draft, ...control.options]).map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        ) : control.type === 'number' ? (
          <input
            id={inputId}
            type="number"
            step={1}
            min={control.min ?? undefined}
            max={control.max ?? undefined}
            value={draft}
            onInput={(event) => setDraft(event.currentTarget.value)}
          />
        ) : (
          <>
            <input
              id={inputId}
              type="text"
              value={draft}
              list={control.suggestions.length > 0 ? `${inputId}-choices` : undefined}
              onInput={(event) => setDraft(event.currentTarget.value)}
            />
            {control.suggestions.length > 0 ? (
              <datalist id={`${inputId}-choices`}>
                {control.suggestions.map((option) => (
                  <option key={option} value={option} />
                ))}
              </datalist>
            ) : null}
          </>
        )}
        <button
          type="button"
          data-testid="setting-save"
          disabled={draft === setting.value || action.busy !== null}
          aria-busy={action.busy !== null}
          onClick={save}
        >
          {action.busy !== null ? 'Saving…' : 'Save'}
        </button>
      </div>
      <div class="setting-outcome">
        <Outcome result={action.result} error={action.error} />
      </div>
    </li>
  );
}

function Hooks({ hooks }: { hooks: HooksView }) {
  const action = useAction();
  return (
    <>
      <p class="muted">
        {hooks.installed
          ? 'brv’s hooks are installed'
          : hooks.anyInstalled
            ? 'Some of brv’s hooks are installed'
            : 'brv’s hooks are not installed'}
        {hooks.directory ? (
          <>
            {' '}
            in <code>{hooks.directory}</code>
          </>
        ) : null}
        .
      </p>
      <ul class="rows">
        {hooks.hooks.map((hook) => (
          <li key={hook.name} class="row" data-testid="hook" data-name={hook.name}>
            <code>{hook.name}</code>
            <span class={hook.state === 'installed' ? 'badge' : 'badge subtle'}>{hook.state}</span>
            {hook.state === 'installed' && !hook.executable ? <span class="bad">not executable: git skips it</span> : null}
          </li>
        ))}
      </ul>
      {!hooks.brvOnPath ? <p class="bad">brv is not on PATH: the hooks call it from there and do nothing without it.</p> : null}
      {hooks.notes.map((note) => (
        <p key={note} class="muted">
          {note}
        </p>
      ))}
      <div class="actions-row">
        <button
          type="button"
          data-testid="hooks-install"
          disabled={action.busy !== null}
          aria-busy={action.busy === 'install'}
          onClick={() =>
            action.run(
              'install',
              () => postJson('/api/hooks/install', {}),
              (answer) => summarizeHooks('install', answer),
            )
          }
        >
          {action.busy === 'install' ? 'Installing…' : hooks.installed ? 'Reinstall' : 'Install'}
        </button>
        <button
          type="button"
          data-testid="hooks-uninstall"
          disabled={action.busy !== null || !hooks.anyInstalled}
          aria-busy={action.busy === 'uninstall'}
          onClick={() =>
            action.run(
              'uninstall',
              () => postJson('/api/hooks/uninstall', {}),
              (answer) => summarizeHooks('uninstall', answer),
            )
          }
        >
          {action.busy === 'uninstall' ? 'Uninstalling…' : 'Uninstall'}
        </button>
      </div>
      <Outcome result={action.result} error={action.error} />
    </>
  );
}

function Connectors({ agents, complete }: { agents: ConnectorRow[]; complete: boolean }) {
  const action = useAction();
  const [typed, setTyped] = useState('');
  const install = (agent: string): void =>
    action.run(
      `install:${agent}`,
      () => postJson('/api/connectors/install', { agent }),
      (answer) => summarizeConnector('install', agent, answer),
    );
  const uninstall = (agent: string): void =>
    action.run(
      `uninstall:${agent}`,
      () => postJson('/api/connectors/uninstall', { agent }),
      (answer) => summarizeConnector('uninstall', agent, answer),
    );
  return (
    <>
      <Outcome result={action.result} error={action.error} />
      {agents.length === 0 ? <p class="muted">No connector installed.</p> : null}
      <ul class="rows connectors">
        {agents.map((row) => {
          const installed = row.installs.length > 0;
          const outdated = row.installs.some((install) => install.state === 'outdated');
          return (
            <li key={row.agent} class="row" data-testid="connector" data-agent={row.agent}>
              <strong>{row.name}</strong>
              <code class="muted">{row.agent}</code>
              {installed ? (
                row.installs.map((install) => (
                  <span
                    key={install.scope}
                    class={install.state === 'installed' ? 'badge' : 'badge subtle'}
                    title={install.error || undefined}
                  >
                    {install.state} {install.scope ? `(${install.scope})` : ''}
                  </span>
                ))
              ) : (
                <span class="muted">not installed</span>
              )}
              <span class="actions">
                {!installed || outdated ? (
                  <button
                    type="button"
                    class="small"
                    data-testid="connector-install"
                    disabled={action.busy !== null}
                    aria-busy={action.busy === `install:${row.agent}`}
                    onClick={() => install(row.agent)}
                  >
                    {outdated ? 'Update' : 'Install'}
                  </button>
                ) : null}
                {installed ? (
                  <button
                    type="button"
                    class="small"
                    data-testid="connector-uninstall"
                    disabled={action.busy !== null}
                    aria-busy={action.busy === `uninstall:${row.agent}`}
                    onClick={() => uninstall(row.agent)}
                  >
                    Uninstall
                  </button>
                ) : null}
              </span>
            </li>
          );
        })}
      </ul>
      {!complete ? (
        <form
          class="connector-add"
          onSubmit={(event) => {
            event.preventDefault();
            if (typed.trim()) install(typed.trim());
          }}
        >
          <label>
            Install for agent{' '}
            <input type="text" value={typed} placeholder="claude-code" onInput={(event) => setTyped(event.currentTarget.value)} />
          </label>{' '}
          <button type="submit" disabled={action.busy !== null || !typed.trim()}>
            Install
          </button>
        </form>
      ) : null}
    </>
  );
}

function Doctor({ ok, findings }: { ok: boolean; findings: Finding[] }) {
  return (
    <>
      <p class={ok ? 'good' : 'bad'}>{ok ? 'Everything checks out.' : 'Some checks need attention.'}</p>
      <ul class="rows findings">
        {findings.map((finding, i) => (
          <li
            key={`${finding.name}:${i}`}
            class={`row finding finding-${finding.severity}`}
            data-testid="doctor-finding"
            data-severity={finding.severity}
          >
            <span class={`badge severity severity-${finding.severity}`}>{finding.severity}</span>
            <strong>{finding.name}</strong>
            <span>{finding.message}</span>
            {finding.fix && finding.severity !== 'ok' ? (
              <span class="fix">
                Fix: <code>{finding.fix}</code>
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}
