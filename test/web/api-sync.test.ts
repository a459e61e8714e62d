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

    // The second clone: fetch (no body), then it is behind; pull brings the topic.
    const fetched = await post(serverB, '/api/sync/fetch');
    t.is(fetched.status, 200, fetched.body);
    t.like(
      (await get(serverB, '/api/branches')).json.branches.find((x: { name: string }) => x.name === 'main'),
      {
        upstream: 'origin/main',
        ahead: 0,
        behind: 1,
      },
    );
    const pulled = await post(serverB, '/api/sync/pull', { remote: 'origin' });
    t.is(pulled.status, 200, pulled.body);
    t.regex((await showTopic(b, 'x/one.html')) ?? '', /One fact from clone a/);

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
