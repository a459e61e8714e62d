import test from 'ava';
import { execa, execaSync, type ResultPromise } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { brv, brvJson, cleanup, CLI, ENV, makeRepo, tempDir } from '../helpers/repo.js';
import { waitFor } from '../helpers/wait.js';
import { request } from '../web/http.js';

/** Holds a loopback port (undefined: it was taken already). */
async function hold(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

async function freePort(): Promise<number> {
  const server = (await hold(0))!;
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `brv webui` as a real process: resolves with its first stdout line once it printed one. */
async function startWebui(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ child: ResultPromise; line: string }> {
  const child = execa(process.execPath, [CLI, 'webui', ...args], {
    cwd,
    env: { ...ENV, ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error(`brv webui exited before printing: ${out}`)));
  });
  return { child, line };
}

const repo = (async () => {
  const dir = await makeRepo();
  await brvJson(dir, ['init']);
  return dir;
})();
test.after.always(async () => cleanup(await repo));

test('brv webui prints the URL, serves it (token → cookie → API) and exits 0 on SIGTERM', async (t) => {
  const port = await freePort();
  const { child, line } = await startWebui(await repo, ['--port', String(port)]);
  const url = new RegExp(`^brv webui: (http://127\\.0\\.0\\.1:${port}/\\?token=([A-Za-z0-9_-]{20,}))$`).exec(line);
  t.truthy(url, line);
  const exchange = await request(port, { path: `/?token=${url![2]}` });
  t.is(exchange.status, 303);
  const cookie = String(exchange.headers['set-cookie']).split(';')[0]!;
  const status = await request(port, { path: '/api/status', headers: { cookie } });
  t.is(status.status, 200);
  t.is(status.json.branch, 'main');
  t.is((await request(port, { path: '/api/status' })).status, 401);
  child.kill('SIGTERM');
  const result = await child;
  t.is(result.exitCode, 0, String(result.stderr));
});

test('brv webui --format json prints {url, port}; Ctrl-C (SIGINT) exits 0', async (t) => {
  const port = await freePort();
  const { child, line } = await startWebui(await repo, ['--port', String(port), '--format', 'json']);
  const json = JSON.parse(line);
  t.like(json, { command: 'webui', success: true, data: { port } });
  t.regex(json.data.url, new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?token=`));
  child.kill('SIGINT');
  t.is((await child).exitCode, 0);
});

test('an explicit --port that is taken: port-in-use; a bad one: usage', async (t) => {
  const held = (await hold(0))!;
  const { port } = held.address() as AddressInfo;
  try {
    const run = await brvJson(await repo, ['webui', '--port', String(port)], { timeout: 20_000 });
    t.is(run.exitCode, 1);
    t.is(run.json?.data.error.kind, 'port-in-use');
    const text = await brv(await repo, ['webui', '--port', String(port)], { timeout: 20_000 });
    t.regex(text.stderr, /Port \d+ on 127\.0\.0\.1 is taken/);
    const bad = await brvJson(await repo, ['webui', '--port', '70000']);
    t.is(bad.exitCode, 2);
    t.is(bad.json?.data.error.kind, 'usage');
  } finally {
    held.close();
  }
});

test('default port 7700; when it is taken, the next free one', async (t) => {
  const held = await hold(7700);
  if (!held) return t.pass('7700 is taken on this machine: the default-port check is skipped');
  try {
    // 7700 is ours: brv webui takes the next free one.
    const { child, line } = await startWebui(await repo, []);
    const port = Number(/127\.0\.0\.1:(\d+)\//.exec(line)?.[1]);
    t.true(port > 7700 && port <= 7720, line);
    child.kill('SIGTERM');
    t.is((await child).exitCode, 0);
  } finally {
    await new Promise((resolve) => held.close(resolve));
  }
  const { child, line } = await startWebui(await repo, []);
  t.regex(line, /^brv webui: http:\/\/127\.0\.0\.1:7700\/\?token=/);
  child.kill('SIGTERM');
  t.is((await child).exitCode, 0);
});

test('outside a repository brv webui fails with the typed error and exits', async (t) => {
  const dir = await tempDir();
  try {
    const run = await brvJson(dir, ['webui', '--port', String(await freePort())], { timeout: 20_000 });
    t.is(run.exitCode, 1);
    t.is(run.json?.data.error.kind, 'not-a-git-repository');
  } finally {
    await cleanup(dir);
  }
});

test('--open runs the platform opener with a one-time login link, never the token; a missing opener is a notice, and the dashboard still serves', async (t) => {
  const bin = await tempDir('brv-bin-');
  const out = path.join(bin, 'opened.txt');
  // The fake opener records its whole command line, as another local user would read it from /proc.
  await writeFile(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > "${out}.tmp" && mv "${out}.tmp" "${out}"\n`, {
    mode: 0o755,
  });
  try {
    const openPort = await freePort();
    const opening = await startWebui(await repo, ['--port', String(openPort), '--open'], { PATH: `${bin}:${ENV.PATH}` });
    t.teardown(() => void opening.child.kill('SIGTERM'));
    const token = /token=(\S+)$/.exec(opening.line)![1]!;
    t.true(await waitFor(() => existsSync(out), 5000), 'xdg-open ran');
    const argv = readFileSync(out, 'utf8').trim().split('\n');
    t.false(argv.join(' ').includes(token), `the session token is not on the opener's command line: ${argv.join(' ')}`);
    const link = new RegExp(`^http://127\\.0\\.0\\.1:${openPort}/\\?login=([A-Za-z0-9_-]{20,})$`).exec(argv[1] ?? '');
    t.truthy(link, argv.join(' '));
    // The link logs in once: the session cookie, then back to the page without the nonce…
    const first = await request(openPort, { path: `/?login=${link![1]}` });
    t.is(first.status, 303);
    t.is(first.headers.location, '/');
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    t.is(cookie, `brv_session_${openPort}=${token}`);
    t.is((await request(openPort, { path: '/api/status', headers: { cookie } })).status, 200);
    // …and never again, nor does a made-up one.
    const again = await request(openPort, { path: `/?login=${link![1]}` });
    t.is(again.status, 401);
    t.is(again.json?.error.kind, 'unauthorized');
    t.false('set-cookie' in again.headers);
    t.is((await request(openPort, { path: `/?login=${'A'.repeat(43)}` })).status, 401);
    // The printed URL's token works as before.
    t.is((await request(openPort, { path: `/?token=${token}` })).status, 303);
    opening.child.kill('SIGTERM');
    t.is((await opening.child).exitCode, 0);

    // No opener on PATH (git only): a notice on stderr, not an error.
    const gitOnly = await tempDir('brv-bin-');
    await symlink(execaSync('sh', ['-c', 'command -v git']).stdout.trim(), path.join(gitOnly, 'git'));
    const port = await freePort();
    const missing = await startWebui(await repo, ['--port', String(port), '--open'], { PATH: gitOnly });
    t.is((await request(port, { path: `/?token=${/token=(\S+)/.exec(missing.line)![1]}` })).status, 303);
    missing.child.kill('SIGTERM');
    const result = await missing.child;
    t.is(result.exitCode, 0);
    t.regex(String(result.stderr), /could not start xdg-open to open the browser.*open the URL yourself/);
    await cleanup(gitOnly);
  } finally {
    await cleanup(bin);
  }
});
