import test from 'ava';
import { controlFor, readSetup, summarizeConnector, summarizeHooks, summarizeSetting, valueText } from '../../src/web/client/setup.js';

test('each setting type gets its control', (t) => {
  t.deepEqual(controlFor({ key: 'review.enabled', type: 'bool', value: true, default: true }), { type: 'checkbox' });
  t.deepEqual(controlFor({ key: 'hooks.preCommit', type: 'enum', value: 'warn', default: 'warn', choices: ['warn', 'block'] }), {
    type: 'select',
    options: ['warn', 'block'],
  });
  t.deepEqual(controlFor({ key: 'webui.port', type: 'int', value: 7700, default: 7700, min: 1, max: 65535 }), {
    type: 'number',
    min: 1,
    max: 65535,
  });
  t.deepEqual(controlFor({ key: 'n', type: 'int', value: 3 }), { type: 'number', min: null, max: null });
  t.deepEqual(controlFor({ key: 'name', type: 'string', value: 'x' }), { type: 'text', suggestions: [] });
  // An enum without its choices (the service's SettingState has none): text, suggesting what is known.
  t.deepEqual(controlFor({ key: 'hooks.preCommit', type: 'enum', value: 'block', default: 'warn' }), {
    type: 'text',
    suggestions: ['block', 'warn'],
  });
  t.deepEqual(controlFor({ key: 'x', value: false }), { type: 'checkbox' }, 'no type: a boolean value still gets a checkbox');
  t.is(valueText(true), 'true');
  t.is(valueText(8), '8');
  t.is(valueText(null), '');
});

const SETUP = {
  settings: [
    { key: 'review.enabled', value: true, default: true, source: 'default', type: 'bool', description: 'Open a review' },
    {
      key: 'hooks.preCommit',
      value: 'warn',
      default: 'warn',
      source: 'repository',
      type: 'enum',
      description: 'What pre-commit does',
      invalid: 'blok',
    },
    { description: 'no key: dropped' },
  ],
  hooks: {
    hooksDirectory: '/r/.git/hooks',
    hooksPath: null,
    hooks: [
      { name: 'post-merge', path: '/r/.git/hooks/post-merge', state: 'installed', exists: true, executable: true },
      { name: 'pre-commit', path: '/r/.git/hooks/pre-commit', state: 'not-installed', exists: false, executable: false },
    ],
    notes: ['brv is not on PATH'],
    hooksPathSet: false,
    preCommit: 'warn',
    brvOnPath: false,
  },
  connectors: { error: { kind: 'permission-denied', message: 'Cannot read ~/.cursor.' } },
  doctor: {
    ok: false,
    checks: [
      { name: 'git', status: 'ok', message: 'git 2.43' },
      { name: 'hooks', status: 'warn', message: 'not installed', fix: 'brv hooks install' },
      { name: 'refs', status: 'fail', message: 'a damaged ref', fix: 'brv doctor --fix' },
    ],
  },
};

test('the setup answer, part by part; a failed part is its error, the others still show', (t) => {
  const view = readSetup(SETUP);
  t.true(view.settings.ok);
  if (view.settings.ok) {
    t.deepEqual(
      view.settings.value.map((s) => [s.key, s.value, s.source, s.control.type, s.invalid]),
      [
        ['review.enabled', 'true', 'default', 'checkbox', ''],
        ['hooks.preCommit', 'warn', 'repository', 'text', 'blok'],
      ],
    );
  }
  t.deepEqual(view.hooks, {
    ok: true,
    value: {
      directory: '/r/.git/hooks',
      hooks: [
        { name: 'post-merge', state: 'installed', path: '/r/.git/hooks/post-merge', executable: true },
        { name: 'pre-commit', state: 'not-installed', path: '/r/.git/hooks/pre-commit', executable: false },
      ],
      notes: ['brv is not on PATH'],
      brvOnPath: false,
      installed: false,
      anyInstalled: true,
    },
  });
  t.deepEqual(view.connectors, { ok: false, error: { kind: 'permission-denied', message: 'Cannot read ~/.cursor.' } });
  t.true(view.doctor.ok);
  if (view.doctor.ok) {
    t.false(view.doctor.value.ok);
    t.deepEqual(
      view.doctor.value.findings.map((f) => [f.severity, f.name, f.fix]),
      [
        ['fail', 'refs', 'brv doctor --fix'],
        ['warn', 'hooks', 'brv hooks install'],
        ['ok', 'git', ''],
      ],
    );
  }
  t.like(readSetup({}).settings, { ok: false });
});

test('connectors: every agent (installed first) with where it is installed', (t) => {
  const view = readSetup({
    connectors: {
      agents: [
        { id: 'cursor', name: 'Cursor', aliases: [], defaultType: 'mcp', types: [] },
        { id: 'claude-code', name: 'Claude Code', aliases: [], defaultType: 'skill', types: [] },
        { id: 'zed', name: 'Zed' },
      ],
      scopes: [{ scope: 'project', root: '/r' }],
      connectors: [
        { agent: 'zed', name: 'Zed', type: 'mcp', scope: 'global', root: '/h', state: 'outdated', files: [] },
        { agent: 'claude-code', name: 'Claude Code', type: 'skill', scope: 'project', root: '/r', state: 'installed', files: [] },
      ],
    },
  }).connectors;
  t.true(view.ok);
  if (!view.ok) return;
  t.true(view.value.complete);
  t.deepEqual(
    view.value.agents.map((a) => [a.agent, a.installs.map((i) => `${i.state}:${i.scope}`)]),
    [
      ['claude-code', ['installed:project']],
      ['zed', ['outdated:global']],
      ['cursor', []],
    ],
  );
  // Status only (no list of agents): the installed ones, and install takes a typed id.
  const status = readSetup({
    connectors: { scopes: [], connectors: [{ agent: 'codex', name: 'Codex', scope: 'project', state: 'installed' }] },
  }).connectors;
  t.like(status, { ok: true, value: { complete: false, agents: [{ agent: 'codex', name: 'Codex' }] } });
  const bare = readSetup({ connectors: [{ id: 'cursor', name: 'Cursor' }] }).connectors;
  t.like(bare, { ok: true, value: { complete: true, agents: [{ agent: 'cursor', installs: [] }] } });
});

test('summaries of what a save, a hooks install and a connector install did', (t) => {
  t.is(summarizeSetting({ key: 'review.gate', value: true, scope: 'repository' }), 'Saved: review.gate = true (repository).');
  t.is(
    summarizeHooks('install', {
      hooks: [
        { name: 'post-merge', action: 'created' },
        { name: 'pre-commit', action: 'skipped', reason: 'a python hook' },
      ],
    }),
    'Hooks installed: post-merge created, pre-commit skipped (a python hook).',
  );
  t.is(summarizeHooks('uninstall', {}), 'Hooks uninstalled.');
  t.is(
    summarizeConnector('install', 'cursor', { agent: 'cursor', type: 'mcp', scope: 'project', status: 'installed' }),
    'cursor: install — mcp installed (project).',
  );
  t.is(summarizeConnector('uninstall', 'cursor', [{ status: 'removed', scope: 'project' }]), 'cursor: uninstall — removed (project).');
});
