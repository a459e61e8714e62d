import test from 'ava';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { put, rule, sharedClones } from '../helpers/knowledge.js';
import { brvJson, cleanup, git, makeRepo } from '../helpers/repo.js';
import { knowledgeRepo, request, session, startFor } from './http.js';
import type { WebServer } from '../../src/web/server.js';

const get = (server: WebServer, p: string) => request(server.port, { path: p, headers: session(server) });
const send = (server: WebServer, method: string, p: string, body?: unknown) =>
  request(server.port, { method, path: p, headers: session(server, true), body: body === undefined ? undefined : JSON.stringify(body) });

test('setup in one call: settings (with choices), hooks, connectors, doctor; a setting round trip; bad values 400', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const server = await startFor(repo);
  try {
    const setup = await get(server, '/api/setup');
    t.is(setup.status, 200, setup.body);
    const { settings, hooks, connectors, doctor } = setup.json;
    t.like(
      settings.find((s: { key: string }) => s.key === 'review.gate'),
      { value: false, source: 'default', type: 'bool' },
    );
    t.deepEqual(settings.find((s: { key: string }) => s.key === 'hooks.preCommit').choices, ['warn', 'block']);
    // An int setting carries its bounds: the dashboard's number input takes them.
    t.like(settings.find((s: { key: string }) => s.key === 'llm.timeout'), { type: 'int', min: 1, max: 3600 });
    t.true(Array.isArray(hooks.hooks));
    t.true(hooks.hooks.every((h: { state: string }) => h.state === 'not-installed'));
    t.true(Array.isArray(connectors.connectors));
    t.true(connectors.agents.some((a: { id: string }) => a.id === 'claude-code'));
    t.true(Array.isArray(doctor.checks));
    t.true(doctor.checks.every((c: { name: string; status: string }) => typeof c.name === 'string' && typeof c.status === 'string'));

    const set = await send(server, 'PUT', '/api/settings', { key: 'review.gate', value: true });
    t.is(set.status, 200, set.body);
    t.like(set.json, { key: 'review.gate', value: true });
    t.is(await git(repo, 'config', 'brv.review.gate'), 'true');
    const after = (await get(server, '/api/setup')).json.settings.find((s: { key: string }) => s.key === 'review.gate');
    t.like(after, { value: true, source: 'repository' });
    const enumSet = await send(server, 'PUT', '/api/settings', { key: 'hooks.preCommit', value: 'block' });
    t.like(enumSet.json, { key: 'hooks.preCommit', value: 'block' });

    for (const [body, kind] of [
      [{ key: 'review.gate', value: 'maybe' }, 'invalid-setting-value'],
      [{ key: 'hooks.preCommit', value: 'explode' }, 'invalid-setting-value'],
      [{ key: 'no.such', value: 'x' }, 'unknown-setting'],
      [{ key: 'review.gate' }, 'invalid-request'],
      [{ key: 'review.gate', value: { a: 1 } }, 'invalid-request'],
      [{ key: 'review.gate', value: true, global: true }, 'invalid-request'],
    ] as const) {
      const bad = await send(server, 'PUT', '/api/settings', body);
      t.is(bad.status, 400, `${JSON.stringify(body)}: ${bad.body}`);
      t.is(bad.json.error.kind, kind, JSON.stringify(body));
    }
    t.is(await git(repo, 'config', 'brv.review.gate'), 'true', 'a refused value changed nothing');
    t.is(await git(repo, 'config', 'brv.hooks.preCommit'), 'block');
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('hooks install/uninstall with an unknown hook name: 400 unknown-hook listing the valid names, and nothing installed', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const server = await startFor(repo);
  try {
    for (const route of ['/api/hooks/install', '/api/hooks/uninstall']) {
      const refused = await send(server, 'POST', route, { hooks: ['pre-commit', 'pre-push'] });
      t.is(refused.status, 400, refused.body);
      t.is(refused.json.error.kind, 'unknown-hook');
      t.deepEqual(refused.json.error.valid, ['post-merge', 'post-checkout', 'pre-commit']);
      t.regex(refused.json.error.message, /"pre-push"/);
    }
    const states = (await get(server, '/api/setup')).json.hooks.hooks.map((h: { state: string }) => h.state);
    t.true(
      states.every((s: string) => s === 'not-installed'),
      JSON.stringify(states),
    );
    t.deepEqual(await readdir(path.join(repo, '.git', 'hooks')).then((names) => names.filter((n) => !n.endsWith('.sample'))), []);
  } finally {
    await server.close();
  }
});

test('hooks install then status shows them installed; uninstall; connectors install and uninstall in the work tree', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const server = await startFor(repo);
  try {
    const installed = await send(server, 'POST', '/api/hooks/install');
    t.is(installed.status, 200, installed.body);
    t.true(installed.json.hooks.length > 0);
    const status = (await get(server, '/api/setup')).json.hooks;
    t.true(
      status.hooks.every((h: { state: string }) => h.state === 'installed'),
      JSON.stringify(status.hooks),
    );
    const removed = await send(server, 'POST', '/api/hooks/uninstall', {});
    t.is(removed.status, 200, removed.body);
    t.true((await get(server, '/api/setup')).json.hooks.hooks.every((h: { state: string }) => h.state === 'not-installed'));
    const only = await send(server, 'POST', '/api/hooks/install', { hooks: ['pre-commit'] });
    t.is(only.status, 200, only.body);
    const states = (await get(server, '/api/setup')).json.hooks.hooks.map((h: { name: string; state: string }) => `${h.name}:${h.state}`);
    t.true(states.includes('pre-commit:installed'), JSON.stringify(states));
    t.true(states.includes('post-merge:not-installed'), JSON.stringify(states));

    const connected = await send(server, 'POST', '/api/connectors/install', { agent: 'codex', type: 'rules' });
    t.is(connected.status, 200, connected.body);
    t.regex(await readFile(path.join(repo, 'AGENTS.md'), 'utf8'), /BEGIN BRV RULES/);
    const listed = (await get(server, '/api/setup')).json.connectors.connectors;
    t.true(
      listed.some(
        (c: { agent: string; state: string; scope: string }) => c.agent === 'codex' && c.state === 'installed' && c.scope === 'project',
      ),
      JSON.stringify(listed),
    );
    const unknown = await send(server, 'POST', '/api/connectors/install', { agent: 'no-such-agent' });
    t.is(unknown.status, 400);
    t.is(unknown.json.error.kind, 'unknown-agent');
    t.is((await send(server, 'POST', '/api/connectors/install', {})).json.error.kind, 'invalid-request');
    const disconnected = await send(server, 'POST', '/api/connectors/uninstall', { agent: 'codex' });
    t.is(disconnected.status, 200, disconnected.body);
    t.false((await readdir(repo)).includes('AGENTS.md'));
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('every new mutation without Origin (or with a foreign one) is refused 403 before routing, and changes nothing', async (t) => {
  const { a, root } = await sharedClones();
  await put(a, 'x/one', rule('Not pushed yet.'));
  const server = await startFor(a);
  const opened = (await get(server, '/api/edit?path=security/auth')).json;
  const snapshot = async () => ({
    refs: await git(a, 'for-each-ref', 'refs/brv/'),
    remote: await git(path.join(root, 'remote.git'), 'for-each-ref', 'refs/brv/'),
    config: await readFile(path.join(a, '.git', 'config'), 'utf8'),
    hooks: (await readdir(path.join(a, '.git', 'hooks'))).sort(),
    files: (await readdir(a)).sort(),
    edits: await stat(path.join(a, '.git', 'brv', 'edits')).then(
      () => true,
      () => false,
    ),
  });
  const before = await snapshot();
  const mutations: Array<[string, string, unknown]> = [
    ['PUT', '/api/edit', { path: 'security/auth', html: opened.html.replace('RS256', 'HS256'), version: opened.version }],
    ['POST', '/api/sync/fetch', {}],
    ['POST', '/api/sync/pull', {}],
    ['POST', '/api/sync/push', {}],
    ['POST', '/api/sync/sync', {}],
    ['PUT', '/api/settings', { key: 'review.gate', value: true }],
    ['POST', '/api/hooks/install', {}],
    ['POST', '/api/hooks/uninstall', {}],
    ['POST', '/api/connectors/install', { agent: 'codex' }],
    ['POST', '/api/connectors/uninstall', { agent: 'codex' }],
  ];
  try {
    for (const [method, p, body] of mutations) {
      for (const origin of [undefined, 'http://evil.example', `http://localhost:${server.port + 1}`]) {
        const headers: Record<string, string> = { ...session(server), 'content-type': 'application/json' };
        if (origin) headers.origin = origin;
        const refused = await request(server.port, { method, path: p, headers, body: JSON.stringify(body) });
        t.is(refused.status, 403, `${method} ${p} origin ${origin}: ${refused.body}`);
        t.is(refused.json?.error.kind, 'forbidden');
      }
      // With the Origin but no session: 401.
      const anonymous = await request(server.port, {
        method,
        path: p,
        headers: { origin: server.origin, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      t.is(anonymous.status, 401, `${method} ${p}`);
    }
    t.deepEqual(await snapshot(), before);
  } finally {
    await server.close();
    await cleanup(root);
  }
});

test('a setup part that fails is an error in its place, never the whole answer', async (t) => {
  const { repo } = await knowledgeRepo();
  // A bare repository: no work tree for connectors; the rest still answers.
  const bare = `${repo}-bare.git`;
  await git(repo, 'clone', '-q', '--bare', repo, bare);
  await git(bare, 'fetch', '-q', repo, 'refs/brv/heads/main:refs/brv/heads/main');
  const server = await startFor(bare);
  try {
    const setup = await get(server, '/api/setup');
    t.is(setup.status, 200, setup.body);
    t.is(setup.json.connectors.error.kind, 'no-work-tree');
    t.true(Array.isArray(setup.json.settings));
    t.truthy(setup.json.doctor.checks);
  } finally {
    await server.close();
    await cleanup(repo, bare);
  }
});

test('setup and branches are read fresh (not shared until a ref event): a change made outside shows at once', async (t) => {
  const { repo } = await knowledgeRepo();
  const server = await startFor(repo);
  try {
    const gate = async () => (await get(server, '/api/setup')).json.settings.find((s: { key: string }) => s.key === 'review.gate').value;
    const remotes = async () => (await get(server, '/api/branches')).json.remotes.map((r: { name: string }) => r.name);
    t.is(await gate(), false);
    t.deepEqual(await remotes(), []);
    // Changes that move no brv ref, so no event would clear a shared answer.
    await git(repo, 'config', 'brv.review.gate', 'true');
    await git(repo, 'remote', 'add', 'origin', '/elsewhere.git');
    t.is(await gate(), true);
    t.deepEqual(await remotes(), ['origin']);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});
