import type {
  AgentInfo,
  ApiFailure,
  ConnectorInstallResponse,
  ConnectorsStatus,
  ConnectorUninstallResponse,
  DoctorReport,
  HooksInstallResponse,
  HooksStatus,
  HooksUninstallResponse,
  SetupResponse,
  Setting,
  SettingResponse,
} from '../api-types.js';
import { list, record, str, wire } from './json.js';
// The Setup page's view model: GET /api/setup read defensively, part by part (a part the server could not
// produce arrives as `{ error }` in its place), the control each setting gets, and one-line summaries of what an
// install or uninstall did. Pure: no DOM, tested in test/web/client-setup.test.ts.

/** One part of the setup answer: its data, or the error the server put in its place. */
export type Part<T> = { ok: true; value: T } | { ok: false; error: ApiFailure };

export type SettingControl =
  | { type: 'checkbox' }
  | { type: 'select'; options: string[] }
  | { type: 'number'; min: number | null; max: number | null }
  | { type: 'text'; suggestions: string[] };

export interface SettingRow {
  key: string;
  description: string;
  /** The value as the control holds it: 'true'/'false', a number or the text. */
  value: string;
  defaultValue: string;
  /** default, repository or global. */
  source: string;
  control: SettingControl;
  /** A stored value brv does not understand (it behaves as the default), or ''. */
  invalid: string;
}

export interface HookRow {
  name: string;
  state: string;
  path: string;
  executable: boolean;
}

export interface HooksView {
  directory: string;
  hooks: HookRow[];
  notes: string[];
  brvOnPath: boolean;
  /** Every brv hook is installed and current. */
  installed: boolean;
  /** Some brv hook is there (installed or outdated): uninstall has something to do. */
  anyInstalled: boolean;
}

export interface ConnectorRow {
  /** The agent id install/uninstall take. */
  agent: string;
  name: string;
  /** Where brv's connector is installed: `project`, `global`… with its state (installed, outdated, error). */
  installs: Array<{ scope: string; state: string; error: string }>;
}

export interface ConnectorsView {
  agents: ConnectorRow[];
  /** The answer lists every agent brv knows (else only installed ones: install takes a typed agent id). */
  complete: boolean;
}

export interface Finding {
  name: string;
  /** ok, warn or fail. */
  severity: string;
  message: string;
  fix: string;
}

export interface SetupView {
  settings: Part<SettingRow[]>;
  hooks: Part<HooksView>;
  connectors: Part<ConnectorsView>;
  doctor: Part<{ ok: boolean; findings: Finding[] }>;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** A setting's value as a control holds it. */
export function valueText(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' ? value : '';
}

/**
 * The control for a setting: bool → checkbox, enum → select of its choices, int → number (with its bounds), text
 * → text. An enum whose choices the server did not send falls back to text, suggesting the value and the default.
 */
export function controlFor(setting: unknown): SettingControl {
  const s = wire<Setting>(setting);
  const choices = list(s.choices).filter((choice): choice is string => typeof choice === 'string');
  switch (s.type) {
    case 'bool':
      return { type: 'checkbox' };
    case 'int':
      return { type: 'number', min: num(s.min), max: num(s.max) };
    case 'enum':
      if (choices.length > 0) return { type: 'select', options: choices };
      return { type: 'text', suggestions: [...new Set([valueText(s.value), valueText(s.default)].filter(Boolean))] };
    default:
      return typeof s.value === 'boolean' ? { type: 'checkbox' } : { type: 'text', suggestions: [] };
  }
}

function part<T>(raw: unknown, read: (value: unknown) => T): Part<T> {
  const error = wire<SetupResponse['settings']>(raw).error;
  if (typeof error === 'object' && error !== null) {
    const e = wire<ApiFailure>(error);
    return { ok: false, error: { kind: str(e.kind) || 'internal-error', message: str(e.message) || 'This part could not be read.' } };
  }
  if (raw === undefined || raw === null)
    return { ok: false, error: { kind: 'internal-error', message: 'The server sent nothing for this part.' } };
  return { ok: true, value: read(raw) };
}

function readSettings(raw: unknown): SettingRow[] {
  return list(raw)
    .map((value): SettingRow => {
      const s = wire<Setting>(value);
      return {
        key: str(s.key),
        description: str(s.description),
        value: valueText(s.value),
        defaultValue: valueText(s.default),
        source: str(s.source),
        control: controlFor(s),
        invalid: str(s.invalid),
      };
    })
    .filter((row) => row.key !== '');
}

function readHooks(raw: unknown): HooksView {
  const report = wire<HooksStatus>(raw);
  const hooks = list(report.hooks).map((value) => {
    // `action`, `status`: the install and uninstall reports' names for it, also read.
    const hook = wire<HooksStatus['hooks'][number], 'action' | 'status'>(value);
    return {
      name: str(hook.name),
      state: str(hook.state, hook.action, hook.status),
      path: str(hook.path),
      executable: hook.executable !== false,
    };
  });
  return {
    directory: str(report.hooksDirectory),
    hooks,
    notes: list(report.notes).filter((note): note is string => typeof note === 'string'),
    brvOnPath: report.brvOnPath !== false,
    installed: hooks.length > 0 && hooks.every((hook) => hook.state === 'installed'),
    anyInstalled: hooks.some((hook) => hook.state === 'installed' || hook.state === 'outdated'),
  };
}

function readConnectors(raw: unknown): ConnectorsView {
  // `{ agents, connectors }` (list and status), or a bare list of either.
  const body = Array.isArray(raw)
    ? { agents: raw.filter((item) => !('state' in record(item))), connectors: raw.filter((item) => 'state' in record(item)) }
    : wire<ConnectorsStatus>(raw);
  const rows = new Map<string, ConnectorRow>();
  const row = (agent: string, name: string): ConnectorRow => {
    let found = rows.get(agent);
    if (!found) rows.set(agent, (found = { agent, name: name || agent, installs: [] }));
    return found;
  };
  const agents = list(body.agents);
  for (const value of agents) {
    const agent = wire<AgentInfo, 'agent'>(value);
    const id = str(agent.id, agent.agent);
    if (id) row(id, str(agent.name));
  }
  for (const value of list(body.connectors)) {
    const entry = wire<ConnectorsStatus['connectors'][number]>(value);
    const id = str(entry.agent);
    if (!id) continue;
    row(id, str(entry.name)).installs.push({
      scope: str(entry.scope),
      state: str(entry.state),
      error: str(wire<ApiFailure>(entry.error).message),
    });
  }
  // Installed agents first, then by name.
  const sorted = [...rows.values()].sort(
    (a, b) => Number(b.installs.length > 0) - Number(a.installs.length > 0) || a.name.localeCompare(b.name),
  );
  return { agents: sorted, complete: agents.length > 0 };
}

const SEVERITY_ORDER: Record<string, number> = { fail: 0, warn: 1, ok: 2 };

function readDoctor(raw: unknown): { ok: boolean; findings: Finding[] } {
  // `findings` with `severity`: an older shape, still read.
  const report = wire<DoctorReport, 'findings'>(raw);
  const findings = list(report.checks ?? report.findings).map((value) => {
    const check = wire<DoctorReport['checks'][number], 'severity'>(value);
    return {
      name: str(check.name),
      severity: str(check.status, check.severity) || 'warn',
      message: str(check.message),
      fix: str(check.fix),
    };
  });
  // Stable: the doctor's order within a severity.
  const rank = (severity: string): number => (Object.hasOwn(SEVERITY_ORDER, severity) ? SEVERITY_ORDER[severity]! : 1);
  findings.sort((a, b) => rank(a.severity) - rank(b.severity));
  return { ok: report.ok === true || findings.every((finding) => finding.severity === 'ok'), findings };
}

export function readSetup(raw: unknown): SetupView {
  const body = wire<SetupResponse>(raw);
  return {
    settings: part(body.settings, readSettings),
    hooks: part(body.hooks, readHooks),
    connectors: part(body.connectors, readConnectors),
    doctor: part(body.doctor, readDoctor),
  };
}

/** PUT /api/settings answered `{ key, value, scope }`. */
export function summarizeSetting(raw: unknown): string {
  const result = wire<SettingResponse>(raw);
  const scope = str(result.scope);
  return `Saved: ${str(result.key)} = ${valueText(result.value)}${scope ? ` (${scope})` : ''}.`;
}

/** What hooks install / uninstall did, from the service's report (`hooks: [{ name, action | status }]`). */
export function summarizeHooks(action: 'install' | 'uninstall', raw: unknown): string {
  const report = wire<HooksInstallResponse | HooksUninstallResponse>(raw);
  const hooks = list(report.hooks)
    .map((value) => wire<(HooksInstallResponse | HooksUninstallResponse)['hooks'][number], 'status' | 'state'>(value))
    .map((hook) => {
      const what = str(hook.action, hook.status, hook.state);
      const reason = str(hook.reason);
      return [str(hook.name), what, reason && `(${reason})`].filter(Boolean).join(' ');
    })
    .filter(Boolean);
  const head = action === 'install' ? 'Hooks installed' : 'Hooks uninstalled';
  return hooks.length > 0 ? `${head}: ${hooks.join(', ')}.` : `${head}.`;
}

/** What a connector install / uninstall did (one result, or a list of them). */
export function summarizeConnector(action: 'install' | 'uninstall', agent: string, raw: unknown): string {
  // A list of results is an older shape, still read.
  const results = (Array.isArray(raw) ? raw : [raw]).map((value) => wire<ConnectorInstallResponse | ConnectorUninstallResponse>(value));
  const parts = results
    .map((result) => [str(result.type), str(result.status), str(result.scope) && `(${str(result.scope)})`].filter(Boolean).join(' '))
    .filter(Boolean);
  const head = `${agent}: ${action === 'install' ? 'install' : 'uninstall'}`;
  return parts.length > 0 ? `${head} — ${parts.join('; ')}.` : `${head} done.`;
}
