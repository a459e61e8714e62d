import test from 'ava';
import { put } from '../helpers/knowledge.js';
import { plantTree } from '../helpers/plant.js';
import { cleanup, git, refTip, showTopic } from '../helpers/repo.js';
import { knowledgeRepo, request, session, startFor } from './http.js';
import type { WebServer } from '../../src/web/server.js';

const get = (server: WebServer, p: string) => request(server.port, { path: p, headers: session(server) });
const send = (server: WebServer, method: string, p: string, body: unknown) =>
  request(server.port, { method, path: p, headers: session(server, true), body: JSON.stringify(body) });

test('topic diff between two versions, and one commit with its per-topic diffs', async (t) => {
  const { repo } = await knowledgeRepo();
  const first = await refTip(repo);
  await put(repo, 'security/auth', '<bv-rule severity="must">Rotate the signing keys every week.</bv-rule>', { title: 'Auth keys' });
  const tip = await refTip(repo);
  const server = await startFor(repo);
  try {
    const diff = await get(server, `/api/topic/diff?path=security/auth&from=${first}`);
    t.is(diff.status, 200, diff.body);
    t.like(diff.json, { path: 'security/auth', from: first, to: tip, status: 'changed' });
    t.regex(diff.json.diff, /^-.*every month/m);
    t.regex(diff.json.diff, /^\+.*every week/m);
    // A brv revision expression, both ends given; the same version: an empty diff.
    const same = await get(server, `/api/topic/diff?path=security/auth.html&from=main&to=${tip}`);
    t.like(same.json, { status: 'unchanged', diff: '' });
    const back = await get(server, `/api/topic/diff?path=security/auth&from=main&to=main~1`);
    t.regex(back.json.diff, /^\+.*every month/m);
    // The other topics of the range are not in it.
    t.notRegex(back.json.diff, /zebra|blue green/);

    for (const [query, kind] of [
      ['path=security/auth&from=nosuchrev', 'not-found'],
      ['path=security/auth&from=main..main', 'invalid-revision'],
      ['path=security/auth&from=main:security/auth', 'invalid-revision'],
      ['path=security/auth&from=--output=x', 'invalid-revision'],
      ['path=security/auth', 'invalid-request'],
      ['path=../etc/passwd&from=main', 'unsafe-path'],
    ] as const) {
      const refused = await get(server, `/api/topic/diff?${query}`);
      t.is(refused.status, 400, `${query}: ${refused.body}`);
      t.is(refused.json.error.kind, kind, query);
    }

    const commit = await get(server, `/api/commit?rev=${tip}`);
    t.is(commit.status, 200, commit.body);
    t.like(commit.json, { commit: tip, parents: [first] });
    t.regex(commit.json.subject, /security\/auth/);
    t.truthy(commit.json.time);
    t.deepEqual(
      commit.json.changes.map((c: { path: string; status: string }) => [c.path, c.status]),
      [['security/auth', 'changed']],
    );
    t.regex(commit.json.changes[0].diff, /^\+.*every week/m);
    t.is(commit.json.changesOmitted, undefined);
    const bad = await get(server, '/api/commit?rev=0000000000000000000000000000000000000000');
    t.is(bad.status, 400, bad.body);
    t.is(bad.json.error.kind, 'not-found');
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('a commit with more than 100 topics: 100 with their diffs, changesOmitted for the rest', async (t) => {
  const { repo } = await knowledgeRepo();
  const files: Record<string, string> = {};
  for (let i = 0; i < 103; i++) {
    const name = `bulk/t${String(i).padStart(3, '0')}`;
    files[`${name}.html`] = `<bv-topic path="${name}" title="T${i}"><bv-rule id="r1">Fact ${i}.</bv-rule></bv-topic>`;
  }
  const planted = await plantTree(repo, files);
  const server = await startFor(repo);
  try {
    const commit = await get(server, `/api/commit?rev=${planted}`);
    t.is(commit.status, 200, commit.body);
    t.is(commit.json.changes.length, 100);
    // 103 topics added, the 3 of knowledgeRepo gone from the planted tree.
    t.is(commit.json.changesOmitted, 6);
    t.true(commit.json.changes.every((c: { status: string; diff: string }) => /^[-+]/m.test(c.diff)));
    t.regex(commit.json.changes.find((c: { path: string }) => c.path === 'bulk/t000').diff, /^\+.*Fact 0\./m);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('edit: open, save (a webui edit commit), unchanged, invalid → 422 with the errors, nothing written', async (t) => {
  const { repo } = await knowledgeRepo();
  const server = await startFor(repo);
  try {
    const opened = await get(server, '/api/edit?path=security/auth');
    t.is(opened.status, 200, opened.body);
    t.is(opened.json.path, 'security/auth');
    t.regex(opened.json.html, /every month/);
    t.regex(opened.json.version, /^[0-9a-f]{40}$/);

    const html = opened.json.html.replace('every month', 'every week');
    const saved = await send(server, 'PUT', '/api/edit', { path: 'security/auth', html, version: opened.json.version });
    t.is(saved.status, 200, saved.body);
    t.is(saved.json.status, 'saved');
    t.is(saved.json.commit, await refTip(repo));
    t.regex((await showTopic(repo, 'security/auth.html'))!, /every week/);
    t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /Brv-Agent: webui/);

    const reopened = (await get(server, '/api/edit?path=security/auth')).json;
    const again = await send(server, 'PUT', '/api/edit', { path: 'security/auth', html: reopened.html, version: reopened.version });
    t.deepEqual(again.json, { status: 'unchanged' });

    const tip = await refTip(repo);
    const invalid = await send(server, 'PUT', '/api/edit', {
      path: 'security/auth',
      html: '<bv-topic path="security/auth" title="Auth keys"><script>alert(1)</script><bv-nonsense>x</bv-nonsense></bv-topic>',
      version: reopened.version,
    });
    t.is(invalid.status, 422, invalid.body);
    t.is(invalid.json.error.kind, 'invalid-topic');
    t.regex(invalid.json.error.message, /nothing was saved/);
    const kinds = invalid.json.error.errors.map((e: { kind: string }) => e.kind);
    t.true(kinds.includes('unsafe-html'), JSON.stringify(kinds));
    t.true(invalid.json.error.errors.every((e: { message: string }) => typeof e.message === 'string' && e.message.length > 0));
    // Where each problem starts in the HTML sent: the <script> at column 50, the unknown element after it.
    t.like(
      invalid.json.error.errors.find((e: { kind: string }) => e.kind === 'unsafe-html'),
      { tag: 'script', line: 1, column: 50 },
    );
    t.like(
      invalid.json.error.errors.find((e: { tag?: string }) => e.tag === 'bv-nonsense'),
      { line: 1, column: 75 },
    );
    const moved = await send(server, 'PUT', '/api/edit', {
      path: 'security/auth',
      html: reopened.html.replace('path="security/auth"', 'path="security/other"'),
      version: reopened.version,
    });
    t.is(moved.status, 422);
    t.is(moved.json.error.kind, 'edit-path-changed');
    t.is(await refTip(repo), tip, 'nothing committed');

    for (const body of [
      { path: 'security/auth', html: reopened.html },
      { path: 'security/auth', html: reopened.html, version: 'not-a-version' },
      { path: 'security/auth', html: 5, version: reopened.version },
      { path: 'security/auth', html: reopened.html, version: reopened.version, extra: 1 },
      { path: '../x', html: reopened.html, version: reopened.version },
    ]) {
      const refused = await send(server, 'PUT', '/api/edit', body);
      t.is(refused.status, 400, `${JSON.stringify(body)}: ${refused.body}`);
    }
    t.is((await get(server, '/api/edit?path=no/such')).status, 404);
    for (const hostile of ['../x', '%2e%2e/x', '/etc/passwd', 'a%00b', 'a/../../b', 'x'.repeat(5000)]) {
      for (const route of ['/api/edit?path=', '/api/topic/diff?from=main&path=']) {
        const refused = await get(server, `${route}${hostile}`);
        t.is(refused.status, 400, `${route}${hostile.slice(0, 20)}: ${refused.body}`);
      }
    }
    t.is(await refTip(repo), tip, 'nothing committed');
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('edit: a CLI change between open and save → 409 with the current version; nothing is overwritten', async (t) => {
  const { repo } = await knowledgeRepo();
  const server = await startFor(repo);
  try {
    const opened = (await get(server, '/api/edit?path=ops/deploy')).json;
    // An agent changes the topic meanwhile, through the CLI.
    await put(repo, 'ops/deploy', '<bv-reason>Deploys go through the canary first.</bv-reason>', { title: 'Deploying' });
    const tip = await refTip(repo);
    const conflict = await send(server, 'PUT', '/api/edit', {
      path: 'ops/deploy',
      html: opened.html.replace('blue green switch', 'rainbow switch'),
      version: opened.version,
    });
    t.is(conflict.status, 409, conflict.body);
    t.is(conflict.json.error.kind, 'edit-conflict');
    t.regex(conflict.json.error.message, /changed since you opened it/);
    t.regex(conflict.json.error.current.html, /canary first/);
    t.not(conflict.json.error.current.version, opened.version);
    t.is(await refTip(repo), tip, 'nothing committed');
    t.regex((await showTopic(repo, 'ops/deploy.html'))!, /canary first/);
    // Saving onto the current version works.
    const retried = await send(server, 'PUT', '/api/edit', {
      path: 'ops/deploy',
      html: conflict.json.error.current.html.replace('canary first', 'canary, then the rainbow switch'),
      version: conflict.json.error.current.version,
    });
    t.is(retried.json.status, 'saved', retried.body);

    // Removed meanwhile: 409 with current null.
    const openedCache = (await get(server, '/api/edit?path=ops/cache')).json;
    const { brvJson } = await import('../helpers/repo.js');
    await brvJson(repo, ['rm', 'ops/cache']);
    const gone = await send(server, 'PUT', '/api/edit', { path: 'ops/cache', html: openedCache.html, version: openedCache.version });
    t.is(gone.status, 409, gone.body);
    t.is(gone.json.error.current, null);
    t.is(await showTopic(repo, 'ops/cache.html'), undefined);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('hostile edits are refused by the validator with 422, and nothing is written: 10,000-deep nesting, script, a handler', async (t) => {
  const { repo } = await knowledgeRepo();
  const server = await startFor(repo);
  try {
    const opened = await get(server, '/api/edit?path=security/auth');
    t.is(opened.status, 200, opened.body);
    const tip = await refTip(repo);
    const deep = `<bv-topic path="security/auth" title="Auth keys"><bv-structure>${'<div>'.repeat(10_000)}x${'</div>'.repeat(10_000)}</bv-structure></bv-topic>`;
    for (const html of [
      deep,
      '<bv-topic path="security/auth" title="Auth keys"><bv-rule>x<script>alert(1)</script></bv-rule></bv-topic>',
      '<bv-topic path="security/auth" title="Auth keys"><bv-rule onclick="alert(1)">x</bv-rule></bv-topic>',
    ]) {
      const saved = await send(server, 'PUT', '/api/edit', { path: 'security/auth', html, version: opened.json.version });
      t.is(saved.status, 422, saved.body.slice(0, 300));
      t.true(Array.isArray(saved.json.error.errors) && saved.json.error.errors.length > 0);
      t.is(await refTip(repo), tip, 'nothing committed');
    }
  } finally {
    await server.close();
    await cleanup(repo);
  }
});
