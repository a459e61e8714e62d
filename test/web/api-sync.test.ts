import test from 'ava';
import { put, rule, sharedClones } from '../helpers/knowledge.js';
import { brvJson, cleanup, git, makeRepo, refTip, showTopic } from '../helpers/repo.js';
import { request, session, startFor } from './http.js';
import type { WebServer } from '../../src/web/server.js';

const get = (server: WebServer, p: string) => request(server.port, { path: p, headers: session(server) });
const post = (server: WebServer, p: string, body?: unknown) =>
  request(server.port, {
    method: 'POST',
    path: p,
    headers: session(server, true),
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test('branches and sync against a bare remote: push from one clone, fetch and pull in the other', async (t) => {
  const { a, b, bare, root } = await sharedClones();
  await put(a, 'x/one', rule('One fact from clone a.'));
  const serverA = await startFor(a);
  const serverB = await startFor(b);
  try {
    const before = (await get(serverA, '/api/branches')).json;
    t.is(before.current, 'main');
    t.like(
      before.branches.find((x: { name: string }) => x.name === 'main'),
      {
        current: true,
        upstream: 'origin/main',
        ahead: 1,
        behind: 0,
        tip: await refTip(a),
      },
    );
    t.like(
      before.branches.find((x: { name: string }) => x.name === 'origin/main'),
      { remote: 'origin', current: false },
    );
    t.deepEqual(before.remotes, [{ name: 'origin', url: bare }]);
    t.like(before.worktrees, [{ path: a, branch: 'main', current: true }]);

    const pushed = await post(serverA, '/api/sync/push', {});
    t.is(pushed.status, 200, pushed.body);
    t.is(await git(bare, 'rev-parse', 'refs/brv/heads/main'), (await refTip(a))!);
    t.like((await get(serverA, '/api/branches')).json.branches[0], { name: 'main', ahead: 0, behind: 0 });

    // The second clone: fetch (no body); main can fast-forward, so the next read takes the topic
    // (as after a plain git fetch) and there is nothing left to pull.
    const fetched = await post(serverB, '/api/sync/fetch');
    t.is(fetched.status, 200, fetched.body);
    t.is(await showTopic(b, 'x/one.html'), undefined);
    t.like(
      (await get(serverB, '/api/branches')).json.branches.find((x: { name: string }) => x.name === 'main'),
      {
        upstream: 'origin/main',
        ahead: 0,
        behind: 0,
      },
    );
    t.regex((await showTopic(b, 'x/one.html')) ?? '', /One fact from clone a/);
    const pulled = await post(serverB, '/api/sync/pull', { remote: 'origin' });
    t.is(pulled.status, 200, pulled.body);

    // sync: a change in b travels to the remote.
    await put(b, 'x/two', rule('Two, from clone b.'));
    const synced = await post(serverB, '/api/sync/sync', {});
    t.is(synced.status, 200, synced.body);
    t.is(await git(bare, 'rev-parse', 'refs/brv/heads/main'), (await refTip(b))!);

    // a is now behind: its push is refused with the typed error, nothing moves on the remote.
    await put(a, 'x/three', rule('Three.'));
    const remoteTip = await git(bare, 'rev-parse', 'refs/brv/heads/main');
    const refused = await post(serverA, '/api/sync/push', {});
    t.is(refused.status, 409, refused.body);
    t.is(refused.json.error.kind, 'non-fast-forward');
    t.is(await git(bare, 'rev-parse', 'refs/brv/heads/main'), remoteTip);

    for (const body of [{ remote: 5 }, { remote: 'origin', force: true }, [1]]) {
      const bad = await post(serverA, '/api/sync/fetch', body);
      t.is(bad.status, 400, JSON.stringify(body));
      t.is(bad.json.error.kind, 'invalid-request');
    }
  } finally {
    await serverA.close();
    await serverB.close();
    await cleanup(root);
  }
});

test('sync failures are typed errors with git’s message: no remote, a missing repository, an unreachable one', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  await put(repo, 'a/b', rule('A fact.'));
  const server = await startFor(repo);
  try {
    const none = await post(server, '/api/sync/fetch', {});
    t.is(none.status, 400, none.body);
    t.is(none.json.error.kind, 'no-remote');
    t.deepEqual((await get(server, '/api/branches')).json.remotes, []);

    await git(repo, 'remote', 'add', 'missing', '/does/not/exist.git');
    const missing = await post(server, '/api/sync/push', { remote: 'missing' });
    t.is(missing.status, 502, missing.body);
    t.is(missing.json.error.kind, 'remote-not-found');
    t.regex(missing.json.error.message, /git says ".+"/);

    await git(repo, 'remote', 'add', 'down', 'http://127.0.0.1:9/nothing.git');
    const down = await post(server, '/api/sync/fetch', { remote: 'down' });
    t.is(down.status, 502, down.body);
    t.is(down.json.error.kind, 'remote-unreachable');
    t.regex(down.json.error.message, /git says ".*(connect|refused).*"/i);

    const unknown = await post(server, '/api/sync/pull', { remote: 'nowhere' });
    t.is(unknown.status, 400, unknown.body);
    t.is(unknown.json.error.kind, 'no-remote');
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

/** The lines of an NDJSON answer. */
const ndjson = (body: string) =>
  body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);

const postStreamed = (server: WebServer, p: string, body: unknown) =>
  request(server.port, {
    method: 'POST',
    path: p,
    headers: { ...session(server, true), accept: 'application/x-ndjson' },
    body: JSON.stringify(body),
  });

test('a client that accepts NDJSON gets the steps and git’s transfer progress as they happen, then the result', async (t) => {
  // A file:// remote, so that git really transfers (a plain path would share the objects).
  const { a, b, bare, root } = await sharedClones((dir) => `file://${dir}`);
  for (let i = 0; i < 5; i++) await put(a, `x/fact-${i}`, rule(`Fact ${i}: ${'lorem ipsum dolor '.repeat(40)}`));
  const serverA = await startFor(a);
  const serverB = await startFor(b);
  try {
    const pushed = await postStreamed(serverA, '/api/sync/push', {});
    t.is(pushed.status, 200, pushed.body);
    t.regex(String(pushed.headers['content-type']), /^application\/x-ndjson/);
    const pushLines = ndjson(pushed.body);
    t.like(pushLines[0], { type: 'progress', step: 'push', remote: 'origin', branch: 'main', attempt: 1 });
    t.true(
      pushLines.some((l) => l.type === 'progress' && l.transfer?.phase === 'Writing objects' && l.transfer.done === l.transfer.total),
      pushed.body,
    );
    t.like(pushLines.at(-1), { type: 'result', result: { remote: 'origin', branch: 'main' } });
    t.is(await git(bare, 'rev-parse', 'refs/brv/heads/main'), (await refTip(a))!);

    const pulled = await postStreamed(serverB, '/api/sync/pull', {});
    const lines = ndjson(pulled.body);
    const steps = lines.filter((l) => l.type === 'progress' && !l.transfer).map((l) => l.step);
    t.deepEqual(steps, ['fetch', 'merge'], pulled.body);
    const transfers = lines.filter((l) => l.transfer);
    t.true(transfers.length > 0, pulled.body);
    // Every transfer report belongs to the fetch, and each phase's last report is its 100%.
    t.true(transfers.every((l) => l.step === 'fetch'));
    t.true(
      transfers.some((l) => /objects/.test(l.transfer.phase) && l.transfer.total > 0 && l.transfer.done === l.transfer.total),
      pulled.body,
    );
    t.like(lines.at(-1), { type: 'result', result: { remote: 'origin', merge: { status: 'fast-forward' } } });
    t.regex((await showTopic(b, 'x/fact-4.html')) ?? '', /Fact 4/);

    // A failure once the stream has begun: the last line carries the status the plain answer has.
    await put(a, 'x/late', rule('Late.'));
    await put(b, 'x/other', rule('Other.'));
    t.is((await post(serverB, '/api/sync/push', {})).status, 200);
    const refused = await postStreamed(serverA, '/api/sync/push', {});
    t.is(refused.status, 200);
    t.like(ndjson(refused.body).at(-1), { type: 'error', status: 409, error: { kind: 'non-fast-forward' } });

    // A bad body is refused before anything streams: a plain typed error.
    const bad = await postStreamed(serverA, '/api/sync/fetch', { remote: 5 });
    t.is(bad.status, 400);
    t.is(bad.json.error.kind, 'invalid-request');
  } finally {
    await serverA.close();
    await serverB.close();
    await cleanup(root);
  }
});
