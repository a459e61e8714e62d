import test from 'ava';
import path from 'node:path';
import { chmod, lstat, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { cleanup, refTip } from '../helpers/repo.js';
import { fakeAssets, knowledgeRepo, request, SECRET_FILE_TEXT, session, startFor } from './http.js';

const fixture = knowledgeRepo();
test.after.always(async () => cleanup((await fixture).repo));

test('no session or a wrong one: 401 on the API (JSON) and on pages (a page saying to open the printed URL)', async (t) => {
  const { repo } = await fixture;
  const server = await startFor(repo);
  try {
    const sessions: Array<Record<string, string>> = [
      {},
      { cookie: 'brv_session_1=wrong; brv_session=wrong' },
      { authorization: 'Bearer wrong' },
      { cookie: 'other=test-secret' },
    ];
    for (const headers of sessions) {
      const api = await request(server.port, { path: '/api/status', headers });
      t.is(api.status, 401);
      t.is(api.json?.error.kind, 'unauthorized');
      const page = await request(server.port, { path: '/knowledge', headers });
      t.is(page.status, 401);
      t.regex(page.body, /open the URL it printed/);
      t.regex(String(page.headers['content-security-policy']), /default-src 'none'/);
    }
    const asset = await request(server.port, { path: '/assets/app.js' });
    t.is(asset.status, 401);
    const events = await request(server.port, { path: '/api/events?after=0' });
    t.is(events.status, 401);
    t.is(events.json?.error.kind, 'unauthorized');
    const wrongToken = await request(server.port, { path: '/?token=nope' });
    t.is(wrongToken.status, 401);
    t.is(wrongToken.headers['set-cookie'], undefined);
    // Scripts may use the secret as a bearer token.
    t.is((await request(server.port, { path: '/api/status', headers: { authorization: `Bearer ${server.secret}` } })).status, 200);
  } finally {
    await server.close();
  }
});

test('the token exchange sets an HttpOnly SameSite=Strict cookie and redirects to /; every response carries the security headers', async (t) => {
  const { repo } = await fixture;
  const server = await startFor(repo);
  try {
    t.regex(server.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=test-secret$/);
    const exchange = await request(server.port, { path: `/?token=${server.secret}` });
    t.is(exchange.status, 303);
    t.is(exchange.headers.location, '/');
    t.deepEqual(exchange.headers['set-cookie'], [`brv_session_${server.port}=test-secret; HttpOnly; SameSite=Strict; Path=/`]);
    // Named by port: a second dashboard on this machine keeps its own session.
    t.is((await request(server.port, { path: '/api/status', headers: { cookie: 'brv_session_1=test-secret' } })).status, 401);
    const page = await request(server.port, { path: '/', headers: session(server) });
    t.is(page.status, 200);
    t.regex(page.body, /<title>brv<\/title>/);
    t.is(
      page.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    t.is(page.headers['x-content-type-options'], 'nosniff');
    t.is(page.headers['referrer-policy'], 'no-referrer');
    const api = await request(server.port, { path: '/api/status', headers: session(server) });
    t.is(api.headers['cache-control'], 'no-store');
    // Loopback names other than 127.0.0.1 are this server too.
    for (const host of [`localhost:${server.port}`, `[::1]:${server.port}`]) {
      t.is((await request(server.port, { path: '/api/status', headers: { ...session(server), host } })).status, 200, host);
    }
  } finally {
    await server.close();
  }
});

test('a foreign Host, a foreign or missing Origin on a mutation, or Sec-Fetch-Site cross-site: 403 on every path, nothing written', async (t) => {
  const { repo, review } = await fixture;
  const server = await startFor(repo);
  try {
    const tip = await refTip(repo);
    const body = JSON.stringify({ id: review });
    const paths = [
      '/',
      '/knowledge',
      '/api/status',
      '/api/nope',
      '/nope/../x',
      `/?token=${server.secret}`,
      '/api/events',
      '/assets/app.js',
    ];
    const hosts = [
      'evil.example',
      `evil.example:${server.port}`,
      '127.0.0.1',
      `127.0.0.1:${server.port + 1}`,
      `localhost.evil.example:${server.port}`,
      '',
    ];
    for (const p of [...paths, '/api/reviews/reject', '/api/reviews/approve']) {
      for (const host of hosts) {
        for (const method of ['GET', 'POST']) {
          const answer = await request(server.port, {
            method,
            path: p,
            headers: { ...session(server, true), host },
            body: method === 'POST' ? body : undefined,
          });
          t.is(answer.status, 403, `${method} ${p} Host ${host}`);
          t.is(answer.json?.error.kind, 'forbidden');
        }
      }
    }
    for (const p of [...paths, '/api/reviews/reject']) {
      for (const origin of ['http://evil.example', `http://localhost:${server.port}`, 'null', undefined]) {
        const headers: Record<string, string> = {
          cookie: `brv_session_${server.port}=${server.secret}`,
          'content-type': 'application/json',
        };
        if (origin) headers.origin = origin;
        const answer = await request(server.port, { method: 'POST', path: p, headers, body });
        t.is(answer.status, 403, `POST ${p} Origin ${origin}`);
      }
      const crossSite = await request(server.port, { path: p, headers: { ...session(server), 'sec-fetch-site': 'cross-site' } });
      t.is(crossSite.status, 403, `cross-site ${p}`);
    }
    // An absolute-form target is refused too: 403 for a foreign Host, 400 for ours; "//host/…" is a path, not a host.
    t.is(
      (await request(server.port, { path: 'http://evil.example/api/status', headers: { ...session(server), host: 'evil.example' } }))
        .status,
      403,
    );
    t.is((await request(server.port, { path: `http://127.0.0.1:${server.port}/api/status`, headers: session(server) })).status, 400);
    t.not((await request(server.port, { path: '//evil.example/api/status', headers: session(server) })).json?.repository, repo);
    t.is(await refTip(repo), tip, 'no refused request moved the branch');
    t.is((await request(server.port, { path: '/api/reviews', headers: session(server) })).json.tasks.length, 1, 'the review is still open');
  } finally {
    await server.close();
  }
});

test('traversal and hostile values in every path and query parameter: 400/404, never a file outside the assets', async (t) => {
  const { repo } = await fixture;
  const server = await startFor(repo);
  try {
    const long = 'a/'.repeat(5000);
    const hostile = [
      '../../etc/passwd',
      '..%2f..%2fetc%2fpasswd',
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/etc/passwd',
      'a%00b',
      'security/../../x',
      long,
      '%2e%2e',
    ];
    for (const value of hostile) {
      const q = /%/.test(value) ? value : encodeURIComponent(value);
      for (const p of [
        `/api/topic?path=${q}`,
        `/api/topic/history?path=${q}`,
        `/api/tree?folder=${q}`,
        `/api/tree?around=${q}`,
        `/api/tree?source=${q}`,
        `/api/topic?path=security/auth&source=${q}`,
      ]) {
        const answer = await request(server.port, { path: p, headers: session(server) });
        t.true(answer.status === 400 || answer.status === 404, `${p}: ${answer.status} ${answer.body.slice(0, 200)}`);
        t.truthy(answer.json?.error.kind, p);
        t.notRegex(answer.body, /root:|secret outside/);
      }
    }
    const staticPaths = [
      '/../outside.txt',
      '/assets/../../outside.txt',
      '/%2e%2e/outside.txt',
      '/%2e%2e%2foutside.txt',
      '/assets/%2e%2e/%2e%2e/outside.txt',
      '/..%5coutside.txt',
      '/%00',
      '/assets/app.js%00.html',
      '/etc/passwd',
      '//etc/passwd',
      `/${'x'.repeat(10_000)}`,
    ];
    for (const p of staticPaths) {
      const answer = await request(server.port, { path: p, headers: session(server) });
      t.false(answer.body.includes(SECRET_FILE_TEXT), p);
      t.notRegex(answer.body, /root:x:0/, p);
      t.true([200, 400, 404].includes(answer.status), `${p}: ${answer.status}`);
      // A page route may get index.html; an asset path never gets anything but its file.
      if (answer.status === 200) t.regex(answer.body, /<title>brv<\/title>/, p);
    }
    t.is((await request(server.port, { path: '/assets/app.js', headers: session(server) })).body, 'console.log("app")');
    t.is((await request(server.port, { path: '/knowledge/security/auth', headers: session(server) })).status, 200);
    t.is((await request(server.port, { path: '/assets/missing.js', headers: session(server) })).status, 404);
  } finally {
    await server.close();
  }
});

test('a symbolic link inside the assets folder pointing outside it is not followed', async (t) => {
  const { repo } = await fixture;
  const assets = await fakeAssets();
  await symlink(path.join(assets, '..', 'outside.txt'), path.join(assets, 'assets', 'link-out.txt'));
  const server = await startFor(repo, { assetsDir: assets });
  try {
    const answer = await request(server.port, { path: '/assets/link-out.txt', headers: session(server) });
    t.is(answer.status, 404);
    t.false(answer.body.includes(SECRET_FILE_TEXT));
  } finally {
    await server.close();
    await cleanup(path.dirname(assets));
  }
});

test('bad API requests get typed JSON errors: unknown endpoint 404, wrong method 405, bad JSON 400, large body 413', async (t) => {
  const { repo, review } = await fixture;
  const server = await startFor(repo);
  try {
    const tip = await refTip(repo);
    const get = (p: string) => request(server.port, { path: p, headers: session(server) });
    const post = (p: string, body: string, headers: Record<string, string> = {}) =>
      request(server.port, { method: 'POST', path: p, headers: { ...session(server, true), ...headers }, body });
    t.like((await get('/api/nope')).json, { error: { kind: 'not-found' } });
    t.is((await get('/api/nope')).status, 404);
    t.is((await get('/api/reviews/approve')).status, 405);
    t.is((await post('/api/status', '{}')).status, 405);
    t.is((await post('/knowledge', '{}')).status, 405);
    t.like((await post('/api/reviews/approve', '{nope')).json, { error: { kind: 'invalid-request' } });
    t.is((await post('/api/reviews/approve', JSON.stringify({ id: review }), { 'content-type': 'text/plain' })).status, 400);
    t.is((await post('/api/reviews/approve', JSON.stringify({ id: 5 }))).status, 400);
    t.is((await post('/api/reviews/approve', JSON.stringify({ id: review, extra: 1 }))).status, 400);
    t.is((await post('/api/reviews/approve', JSON.stringify({ id: review, topics: ['../x'] }))).status, 400);
    const large = await post('/api/reviews/approve', JSON.stringify({ id: review, pad: 'x'.repeat(1024 * 1024 + 10) }));
    t.is(large.status, 413);
    t.is(large.json?.error.kind, 'payload-too-large');
    const unknown = await post('/api/reviews/reject', JSON.stringify({ id: 'ffffffffffff' }));
    t.is(unknown.status, 404);
    t.is(unknown.json?.error.kind, 'review-not-found');
    t.is((await get('/api/topic?path=no/such')).status, 404);
    t.is((await get('/api/topic')).status, 400);
    t.is((await get('/api/changes?limit=0')).status, 400);
    t.is((await get('/api/changes?limit=abc')).status, 400);
    t.is((await get('/api/events?after=x')).status, 400);
    t.is(await refTip(repo), tip);
    t.false(JSON.stringify((await get('/api/nope')).json).includes('at '), 'no stack');
  } finally {
    await server.close();
  }
});

test("the session secret is the repository's, kept 0600 across restarts; a file not this user's alone is replaced; --new-token renews it", async (t) => {
  const { repo } = await fixture;
  const file = path.join(repo, '.git', 'brv', 'webui-secret');
  await rm(file, { force: true });
  const first = await startFor(repo, { secret: undefined });
  const kept = first.secret;
  await first.close();
  t.regex(kept, /^[A-Za-z0-9_-]{43}$/);
  t.is((await stat(file)).mode & 0o777, 0o600);
  // A restart: the same secret, so an open tab's cookie still opens the API (and no token is needed again).
  const second = await startFor(repo, { secret: undefined });
  try {
    t.is(second.secret, kept);
    t.is((await request(second.port, { path: '/api/status', headers: session(second) })).status, 200);
  } finally {
    await second.close();
  }
  // Readable by others (or a link planted where the file goes): not trusted, a new secret is written in its place.
  await chmod(file, 0o644);
  const third = await startFor(repo, { secret: undefined });
  await third.close();
  t.not(third.secret, kept);
  t.is((await stat(file)).mode & 0o777, 0o600);
  const elsewhere = path.join(repo, 'planted-secret');
  await writeFile(elsewhere, `${'a'.repeat(43)}\n`, { mode: 0o600 });
  await rm(file);
  await symlink(elsewhere, file);
  const fourth = await startFor(repo, { secret: undefined });
  await fourth.close();
  t.not(fourth.secret, 'a'.repeat(43));
  t.false((await lstat(file)).isSymbolicLink());
  t.is(await readFile(elsewhere, 'utf8'), `${'a'.repeat(43)}\n`, 'the link target is not written through');
  // --new-token: a new secret; the old session is refused from then on.
  const renewed = await startFor(repo, { secret: undefined, newToken: true });
  try {
    t.not(renewed.secret, fourth.secret);
    const old = await request(renewed.port, { path: '/api/status', headers: { cookie: `brv_session_${renewed.port}=${fourth.secret}` } });
    t.is(old.status, 401);
    t.is((await request(renewed.port, { path: '/api/status', headers: session(renewed) })).status, 200);
  } finally {
    await renewed.close();
    await rm(elsewhere, { force: true });
  }
});
