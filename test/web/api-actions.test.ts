// The dashboard's actions (src/web/action-routes.ts): a new topic from the guided form, delete, ask (with a model on
// loopback, without one, and with its endpoint down), dream into a review, branch create / checkout / merge, and the
// model providers (the key never sent back) — each refused with the service's kinds, and behind the same token,
// Host and Origin checks as every route.
import test from 'ava';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BRANCH_PREFIX, BRV_REF_PREFIX } from '../../src/base/ref-names.js';
import { BrvService } from '../../src/service/service.js';
import type { WebServer } from '../../src/web/server.js';
import { dreamRepo } from '../dream/setup.js';
import { modelEnv, startLlmServer } from '../helpers/llm-server.js';
import { brvJson, cleanup, git, makeRepo, tempDir } from '../helpers/repo.js';
import { knowledgeRepo, request, session, startFor } from './http.js';

const MAIN = `${BRANCH_PREFIX}main`;
const get = (server: WebServer, p: string) => request(server.port, { path: p, headers: session(server) });
const send = (server: WebServer, p: string, body?: unknown, method = 'POST') =>
  request(server.port, { method, path: p, headers: session(server, true), body: body === undefined ? undefined : JSON.stringify(body) });

/** The process environment without any model configured, and a home of its own (provider settings and keys). */
async function isolatedService(extra: Record<string, string> = {}): Promise<{ service: BrvService; home: string }> {
  const home = await tempDir('brv-web-home-');
  await mkdir(path.join(home, '.config'), { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env, XDG_CONFIG_HOME: path.join(home, '.config'), ...extra };
  for (const key of Object.keys(env)) if (/^(BRV_LLM_|OPENAI_|ANTHROPIC_)/.test(key) && !(key in extra)) delete env[key];
  return { service: new BrvService({ env, home, platform: process.platform }), home };
}

const FORM = {
  path: 'ops/rate_limit',
  title: 'Rate limits',
  summary: 'per-client limits',
  kind: 2,
  text: 'The API allows 100 requests per minute per client; rate_limit lives in gateway.yaml.',
  reason: 'asked twice this week',
};

test('new topic: the form, checked as typed, written through curate; bad input, an existing path, then delete', async (t) => {
  const { repo } = await knowledgeRepo();
  const server = await startFor(repo);
  try {
    const form = await get(server, '/api/curate/form');
    t.is(form.status, 200, form.body);
    t.deepEqual(
      form.json.fields.map((f: { name: string }) => f.name),
      ['path', 'title', 'summary', 'kind', 'text', 'reason'],
    );
    t.is(form.json.kinds[2].label, 'fact');

    const gap = await send(server, '/api/curate/check', { form: { ...FORM, title: '' } });
    t.is(gap.status, 200, gap.body);
    t.like(gap.json, { gap: 'Give the topic a title.', html: null });
    const checked = await send(server, '/api/curate/check', { form: FORM });
    t.like(checked.json, { gap: null, path: 'ops/rate_limit', errors: [] });
    t.regex(checked.json.html, /<bv-fact>The API allows/);
    const invalid = await send(server, '/api/curate/check', { form: { ...FORM, path: '../escape' } });
    t.true(invalid.json.errors.length > 0, invalid.body);

    for (const [body, kind] of [
      [{}, 'invalid-request'],
      [{ form: { ...FORM, kind: 99 } }, 'invalid-request'],
      [{ form: { ...FORM, colour: 'red' } }, 'invalid-request'],
      [{ form: FORM, html: '<bv-topic/>' }, 'invalid-request'],
      [{ form: { ...FORM, text: ' ' } }, 'invalid-request'],
      [{ form: FORM, overwrite: 'yes' }, 'invalid-request'],
    ] as const) {
      const bad = await send(server, '/api/topics', body);
      t.is(bad.status, 400, `${JSON.stringify(body)}: ${bad.body}`);
      t.is(bad.json.error.kind, kind);
    }
    const refused = await send(server, '/api/topics', { form: { ...FORM, path: '../escape' } });
    t.is(refused.status, 422, refused.body);
    t.true(refused.json.error.errors.length > 0);

    const created = await send(server, '/api/topics', { form: FORM });
    t.is(created.status, 200, created.body);
    t.like(created.json, { status: 'written', path: 'ops/rate_limit', type: 'ADD' });
    const topic = await get(server, '/api/topic?path=ops/rate_limit');
    t.is(topic.json.title, 'Rate limits');
    t.regex(topic.json.raw, /rate_limit lives in gateway\.yaml/);
    const log = await git(repo, 'log', '-1', '--format=%B', MAIN);
    t.regex(log, /Brv-Agent: webui/);
    t.regex(log, /asked twice this week/);

    const same = await send(server, '/api/topics', { form: FORM });
    t.like(same.json, { status: 'unchanged', commit: null });
    const again = await send(server, '/api/topics', { form: { ...FORM, text: 'Something else.' } });
    t.is(again.status, 409, again.body);
    t.is(again.json.error.kind, 'path-exists');
    const html = await send(server, '/api/topics', {
      html: '<bv-topic path="ops/rate_limit" title="Rate limits"><bv-fact>200 a minute now.</bv-fact></bv-topic>',
      overwrite: true,
    });
    t.like(html.json, { status: 'written', type: 'UPDATE' });

    // Delete: the service's kinds, then the topic gone.
    for (const [body, status, kind] of [
      [{}, 400, 'invalid-request'],
      [{ path: 'ops/nothing-here' }, 404, 'not-found'],
      [{ path: 'ops' }, 400, 'is-a-folder'],
      [{ path: '../x' }, 400, undefined],
    ] as const) {
      const bad = await send(server, '/api/topics/remove', body);
      t.is(bad.status, status, `${JSON.stringify(body)}: ${bad.body}`);
      if (kind) t.is(bad.json.error.kind, kind);
    }
    const removed = await send(server, '/api/topics/remove', { path: 'ops/rate_limit', reason: 'moved to the wiki' });
    t.is(removed.status, 200, removed.body);
    t.deepEqual(removed.json.removed, ['ops/rate_limit']);
    t.is((await get(server, '/api/topic?path=ops/rate_limit')).status, 404);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('ask: an answer citing topics with a model on loopback; without one, or with it down, the topics and a note naming the fix', async (t) => {
  const { repo } = await knowledgeRepo();
  await git(repo, 'config', 'brv.llm.retries', '0');
  const llm = await startLlmServer();
  const bare = await isolatedService();
  const connected = await isolatedService(modelEnv(llm));
  const noModel = await startFor(repo, { service: bare.service });
  const withModel = await startFor(repo, { service: connected.service });
  try {
    for (const body of [{}, { question: '' }, { question: '   ' }, { question: 'x', limit: 0 }, { question: 'x', extra: 1 }]) {
      const bad = await send(noModel, '/api/ask', body);
      t.is(bad.status, 400, `${JSON.stringify(body)}: ${bad.body}`);
    }
    const question = 'How often are the signing keys rotated?';
    const without = await send(noModel, '/api/ask', { question });
    t.is(without.status, 200, without.body);
    t.like(without.json, { answer: null, model: null, note: { kind: 'no-provider' } });
    t.regex(without.json.note.message, /Setup → Model|brv providers connect/);
    t.is(without.json.topics[0].path, 'security/auth');

    llm.reply({ text: 'Every month [security/auth].' });
    const answered = await send(withModel, '/api/ask', { question });
    t.is(answered.status, 200, answered.body);
    t.like(answered.json, { answer: 'Every month [security/auth].', citations: ['security/auth'], note: null });
    t.like(answered.json.model, { provider: 'openai-compatible', model: 'test-model' });
    t.regex(llm.requests.at(-1)!.prompt, /Rotate the signing keys/);

    await llm.close();
    const down = await send(withModel, '/api/ask', { question });
    t.is(down.status, 200, down.body);
    t.is(down.json.answer, null);
    t.regex(down.json.note.kind, /^llm-/);
    t.regex(down.json.note.message, /model server|Setup → Model/);
    t.is(down.json.topics[0].path, 'security/auth', 'what retrieval found is shown without the model');
  } finally {
    await noModel.close();
    await withModel.close();
    await llm.close().catch(() => {});
    await cleanup(repo, bare.home, connected.home);
  }
});

test('dream: proposals held on a review (never on the branch), with brv dream’s text; bad kinds refused', async (t) => {
  const repo = await dreamRepo();
  const server = await startFor(repo);
  try {
    for (const bad of [{ kinds: ['dance'] }, { kinds: [] }, { max: 0 }, { dryRun: 'no' }]) {
      const refused = await send(server, '/api/dream', bad);
      t.is(refused.status, 400, `${JSON.stringify(bad)}: ${refused.body}`);
    }
    const tip = await git(repo, 'rev-parse', MAIN);
    const dry = await send(server, '/api/dream', { dryRun: true });
    t.is(dry.status, 200, dry.body);
    t.like(dry.json, { dryRun: true, review: null });
    t.regex(dry.json.text, /^Dream over \d+ topics/);
    const dreamt = await send(server, '/api/dream', {});
    t.is(dreamt.status, 200, dreamt.body);
    t.true(dreamt.json.candidates > 0, dreamt.json.text);
    t.truthy(dreamt.json.review, dreamt.json.text);
    t.is(await git(repo, 'rev-parse', MAIN), tip, 'nothing lands on the branch');
    const reviews = await get(server, '/api/reviews');
    t.true(reviews.json.tasks.some((task: { taskId: string }) => task.taskId === dreamt.json.review.id));
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('branches: create, checkout, merge through the service, with its kinds for bad names and missing branches', async (t) => {
  const { repo } = await knowledgeRepo();
  const server = await startFor(repo);
  try {
    const created = await send(server, '/api/branches/create', { name: 'experiment' });
    t.is(created.status, 200, created.body);
    t.is(created.json.branch, 'experiment');
    for (const [p, body, status, kind] of [
      ['/api/branches/create', { name: 'experiment' }, 400, 'branch-exists'],
      ['/api/branches/create', { name: 'bad..name' }, 400, 'invalid-branch-name'],
      ['/api/branches/create', {}, 400, 'invalid-request'],
      ['/api/branches/checkout', { name: 'nowhere' }, 404, 'branch-not-found'],
      ['/api/branches/checkout', { name: 'x', create: 'yes' }, 400, 'invalid-request'],
      ['/api/branches/merge', { source: 'nowhere' }, 404, 'branch-not-found'],
    ] as const) {
      const bad = await send(server, p, body);
      t.is(bad.status, status, `${p} ${JSON.stringify(body)}: ${bad.body}`);
      t.is(bad.json.error.kind, kind);
    }
    const out = await send(server, '/api/branches/checkout', { name: 'experiment' });
    t.like(out.json, { branch: 'experiment', previous: 'main', created: false });
    t.is((await get(server, '/api/status')).json.branch, 'experiment');
    const written = await send(server, '/api/topics', { form: { ...FORM, path: 'ops/experiment' } });
    t.is(written.status, 200, written.body);
    const back = await send(server, '/api/branches/checkout', { name: 'main' });
    t.like(back.json, { branch: 'main', previous: 'experiment' });
    t.is((await get(server, '/api/topic?path=ops/experiment')).status, 404);
    const merged = await send(server, '/api/branches/merge', { source: 'experiment' });
    t.is(merged.status, 200, merged.body);
    t.is(merged.json.status, 'fast-forward');
    t.is((await get(server, '/api/topic?path=ops/experiment')).status, 200);
    const fresh = await send(server, '/api/branches/checkout', { name: 'topic-b', create: true });
    t.like(fresh.json, { branch: 'topic-b', created: true });
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('providers: list, connect (the key stored, never sent back), models, switch, disconnect; unknown names refused', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const { service, home } = await isolatedService();
  const server = await startFor(repo, { service });
  const KEY = 'sk-dashboard-secret-4242';
  const bodies: string[] = [];
  const call = async (p: string, body?: unknown) => {
    const answer = body === undefined ? await get(server, p) : await send(server, p, body);
    bodies.push(answer.body);
    return answer;
  };
  try {
    const listed = await call('/api/providers');
    t.is(listed.status, 200, listed.body);
    t.false(listed.json.providers.some((p: { connected: boolean }) => p.connected));
    t.is(listed.json.active, undefined);
    const none = await call('/api/providers/models');
    t.is(none.status, 400);
    t.is(none.json.error.kind, 'no-provider');

    for (const [body, kind] of [
      [{ provider: 'nonesuch' }, 'unknown-provider'],
      [{}, 'invalid-request'],
      [{ provider: 'openai', apiKey: 'has space' }, 'usage'],
      [{ provider: 'openai', secret: KEY }, 'invalid-request'],
    ] as const) {
      const bad = await call('/api/providers/connect', body);
      t.is(bad.status, 400, `${JSON.stringify(body)}: ${bad.body}`);
      t.is(bad.json.error.kind, kind);
    }
    const connected = await call('/api/providers/connect', { provider: 'openai', apiKey: KEY, model: 'gpt-4o-mini' });
    t.is(connected.status, 200, connected.body);
    t.like(connected.json.provider, { id: 'openai', connected: true, active: true, model: 'gpt-4o-mini' });
    t.truthy(connected.json.keyStoredIn);
    const models = await call('/api/providers/models');
    t.is(models.json.provider, 'openai');
    t.true(models.json.models.some((m: { current: boolean }) => m.current));
    const other = models.json.models.find((m: { current: boolean }) => !m.current).id;
    const switched = await call('/api/providers/model', { model: other });
    t.like(switched.json, { id: 'openai', model: other });
    const bad = await call('/api/providers/model', { model: 'two words' });
    t.is(bad.json.error.kind, 'usage');
    const notConnected = await call('/api/providers/switch', { provider: 'anthropic' });
    t.is(notConnected.json.error.kind, 'unknown-provider');
    const after = await call('/api/providers');
    t.like(after.json.active, { provider: 'openai', model: other });
    const entry = after.json.providers.find((p: { id: string }) => p.id === 'openai');
    t.is(entry.key.from, 'file');
    const gone = await call('/api/providers/disconnect', { provider: 'openai' });
    t.like(gone.json, { provider: 'openai', wasActive: true, keyRemoved: true });
    t.false(
      bodies.some((b) => b.includes(KEY)),
      'the key is never sent back',
    );
  } finally {
    await server.close();
    await cleanup(repo, home);
  }
});

const ACTIONS: Array<[string, string, unknown]> = [
  ['GET', '/api/curate/form', undefined],
  ['POST', '/api/curate/check', { form: FORM }],
  ['POST', '/api/topics', { form: FORM }],
  ['POST', '/api/topics/remove', { path: 'security/auth' }],
  ['POST', '/api/ask', { question: 'signing keys' }],
  ['POST', '/api/dream', {}],
  ['POST', '/api/branches/create', { name: 'sneaky' }],
  ['POST', '/api/branches/checkout', { name: 'sneaky', create: true }],
  ['POST', '/api/branches/merge', { source: 'main' }],
  ['GET', '/api/providers', undefined],
  ['GET', '/api/providers/models', undefined],
  ['POST', '/api/providers/connect', { provider: 'openai', apiKey: 'sk-x' }],
  ['POST', '/api/providers/model', { model: 'gpt-4o' }],
  ['POST', '/api/providers/switch', { provider: 'openai' }],
  ['POST', '/api/providers/disconnect', { provider: 'openai' }],
];

test('every action is behind the session, the Host check and (mutations) the Origin check: nothing is written', async (t) => {
  const { repo } = await knowledgeRepo();
  const { service, home } = await isolatedService();
  const server = await startFor(repo, { service });
  try {
    const before = await git(repo, 'for-each-ref', BRV_REF_PREFIX);
    for (const [method, p, body] of ACTIONS) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const json = { 'content-type': 'application/json' };
      const noSession = await request(server.port, { method, path: p, headers: { origin: server.origin, ...json }, body: payload });
      t.is(noSession.status, 401, `${method} ${p} without a session`);
      const wrong = await request(server.port, {
        method,
        path: p,
        headers: { cookie: `brv_session_${server.port}=wrong`, origin: server.origin, ...json },
        body: payload,
      });
      t.is(wrong.status, 401, `${method} ${p} with a wrong token`);
      const host = await request(server.port, {
        method,
        path: p,
        headers: { ...session(server, true), host: 'evil.example' },
        body: payload,
      });
      t.is(host.status, 403, `${method} ${p} with a foreign Host`);
      if (method === 'POST') {
        for (const origin of ['http://evil.example', undefined]) {
          const headers: Record<string, string> = { ...session(server), ...json };
          if (origin) headers.origin = origin;
          const foreign = await request(server.port, { method, path: p, headers, body: payload });
          t.is(foreign.status, 403, `${method} ${p} Origin ${origin}`);
        }
      }
    }
    // The same requests with the session (and an unknown field, so nothing is written) reach their handlers.
    for (const [method, p] of ACTIONS) {
      const routed = await request(server.port, {
        method,
        path: p,
        headers: session(server, true),
        body: method === 'POST' ? '{"unknown":1}' : undefined,
      });
      t.not(routed.status, 404, `${method} ${p}: ${routed.body}`);
      if (method === 'POST') t.is(routed.json.error.kind, 'invalid-request', `${method} ${p}`);
    }
    t.is(await git(repo, 'for-each-ref', BRV_REF_PREFIX), before, 'no ref moved');
    t.is((await get(server, '/api/providers')).json.active, undefined, 'no provider connected');
  } finally {
    await server.close();
    await cleanup(repo, home);
  }
});
