import test from 'ava';
import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrvError } from '../../src/base/errors.js';
import { validateRemoteUrl } from '../../src/git/remote.js';
import { put, succeeded, twoClones } from '../helpers/knowledge.js';
import { brvJson, cleanup, ENV, git, tempDir } from '../helpers/repo.js';
import { freePort } from '../helpers/git-servers.js';

const rule = (text: string) => `<bv-rule id="r1">${text}</bv-rule>`;

/** A directory with a `git-remote-evil` helper that leaves a marker when git runs it. */
async function evilHelper(marker: string): Promise<Record<string, string>> {
  const bin = await tempDir('brv-evil-bin-');
  const helper = path.join(bin, 'git-remote-evil');
  await writeFile(helper, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
  await chmod(helper, 0o755);
  return { PATH: `${bin}:${ENV.PATH}` };
}

function hostileUrls(marker: string): string[] {
  return [
    `ext::sh -c touch% ${marker}`,
    'fd::0',
    'fd::3,4',
    'evil::x',
    'evil://host/x',
    `--upload-pack=touch ${marker}`,
    `-oProxyCommand=touch ${marker}`,
    `ssh://-oProxyCommand=touch%20${marker}/x`,
    `git@-oProxyCommand=touch:x`,
    'https://example.com/x\nfetch = +refs/*:refs/*',
  ];
}

test('agent-supplied URLs with other transports or option-like parts are refused with a typed error, and run nothing', async (t) => {
  const { root, a } = await twoClones();
  t.teardown(() => cleanup(root));
  await brvJson(a, ['init']);
  const marker = path.join(root, 'pwned');
  const env = await evilHelper(marker);
  for (const url of hostileUrls(marker)) {
    const runs = [
      await brvJson(a, ['vc', 'remote', 'add', 'x', url], { env }),
      await brvJson(a, ['vc', 'remote', 'set-url', 'origin', url], { env }),
      await brvJson(root, ['vc', 'clone', url, 'c'], { env }),
      await brvJson(a, ['source', 'add', url, '--alias', 'x'], { env }),
    ];
    for (const [i, run] of runs.entries()) {
      // An option-like value may already stop at the argument parser (a usage error): git never sees it.
      const kinds = url.startsWith('-') ? ['invalid-url', 'usage'] : ['unsupported-transport', 'invalid-url'];
      t.not(run.exitCode, 0, `${i} ${url}: ${run.stdout} ${run.stderr}`);
      t.true(kinds.includes(run.json?.data.error.kind), `${i} ${url}: ${run.stdout}`);
    }
  }
  t.false(existsSync(marker));
  t.false(existsSync(path.join(root, 'c')));
  t.deepEqual(
    (await brvJson(a, ['vc', 'remote'])).json?.data.remotes.map((r: { name: string; url: string }) => r.name),
    ['origin'],
  );
  t.not((await git(a, 'remote', 'get-url', 'origin')).trim(), 'evil::x');
});

test('validateRemoteUrl: allowed transports pass, helpers, other schemes and option-like parts are refused', (t) => {
  for (const url of [
    '/srv/git/project.git',
    'relative/dir',
    './-dir',
    'file:///srv/git/project.git',
    'ssh://git@example.com:2222/team/project.git',
    'git+ssh://example.com/p.git',
    'git@github.com:team/project.git',
    'https://github.com/team/project.git',
    'http://example.com/p',
    'git://example.com/p.git',
  ])
    t.is(validateRemoteUrl(url), url);
  for (const url of hostileUrls('/tmp/x')) {
    const error = t.throws(() => validateRemoteUrl(url), undefined, url);
    t.true(['unsupported-transport', 'invalid-url'].includes((error as BrvError).kind), url);
  }
});

test('a hostile URL already in .git/config is refused by git itself (GIT_ALLOW_PROTOCOL), even where config allows it', async (t) => {
  const { root, a } = await twoClones();
  t.teardown(() => cleanup(root));
  await brvJson(a, ['init']);
  await put(a, 'x/y', rule('y'));
  const marker = path.join(root, 'pwned');
  const env = await evilHelper(marker);
  // Configuration written behind brv's back, and a policy that would let git run any transport.
  await git(a, 'config', 'protocol.allow', 'always');
  await git(a, 'config', 'remote.ext.url', `ext::sh -c touch% ${marker}`);
  await git(a, 'config', 'remote.evil.url', 'evil::x');
  await git(a, 'config', 'remote.evil2.url', 'evil://host/x');
  await git(a, 'config', 'remote.fd.url', 'fd::7');
  await git(a, 'config', 'brvsource.ev.url', 'evil::x');
  for (const remote of ['ext', 'evil', 'evil2', 'fd']) {
    for (const args of [
      ['vc', 'fetch', remote],
      ['vc', 'push', remote],
      ['sync', remote],
    ]) {
      const run = await brvJson(a, args, { env });
      t.is(run.exitCode, 1, `${args.join(' ')}: ${run.stdout}`);
      t.is(run.json?.data.error.kind, 'unsupported-transport', `${args.join(' ')}: ${run.stdout}`);
    }
  }
  const refresh = await brvJson(a, ['source', 'refresh'], { env });
  t.regex(JSON.stringify(refresh.json?.data), /not allow/);
  t.false(existsSync(marker));
  // The user's own remote (a path, i.e. the file transport) keeps working…
  t.true((await brvJson(a, ['vc', 'push', 'origin'])).json?.success);
  // …unless the user narrowed the transports themselves: brv keeps the narrower list.
  const narrowed = await brvJson(a, ['vc', 'push', 'origin'], { env: { GIT_ALLOW_PROTOCOL: 'ssh' } });
  t.is(narrowed.json?.data.error.kind, 'unsupported-transport', narrowed.stdout);
});

/** An http server on loopback that answers every request with `status` (no git behind it, no credential helper here). */
async function answering(status: number): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => {
    res.writeHead(status, status === 401 ? { 'WWW-Authenticate': 'Basic realm="brv-test"' } : {});
    res.end('no\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/team/knowledge.git`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test("every remote failure git can give here has its own kind and git's own words, never its generic last line", async (t) => {
  const { root, a, bare } = await twoClones();
  await brvJson(a, ['init']);
  await put(a, 'ops/deploy', rule('Deploy on Tuesdays.'));
  const servers = await Promise.all([answering(401), answering(403), answering(404), answering(500)]);
  t.teardown(() => Promise.all(servers.map((s) => s.close())));
  const [unauthorized, forbidden, missing, broken] = servers;
  await writeFile(path.join(root, 'plain-file'), 'x\n');
  const cases: Array<{ what: string; url: string; kind: string; says: RegExp }> = [
    {
      what: 'a missing path',
      url: path.join(root, 'nowhere.git'),
      kind: 'remote-not-found',
      says: /does not appear to be a git repository/,
    },
    { what: 'a directory that is not a repository', url: root, kind: 'remote-not-found', says: /does not appear to be a git repository/ },
    { what: 'a file', url: path.join(root, 'plain-file'), kind: 'remote-not-found', says: /invalid gitfile format/ },
    { what: 'http 401 and no credential helper', url: unauthorized!.url, kind: 'auth-failed', says: /could not read Username/ },
    { what: 'http 403 (permission denied)', url: forbidden!.url, kind: 'auth-failed', says: /403/ },
    { what: 'http 404', url: missing!.url, kind: 'remote-not-found', says: /not found/ },
    { what: 'http 500', url: broken!.url, kind: 'remote-unreachable', says: /500/ },
    { what: 'a refused connection', url: `http://127.0.0.1:${await freePort()}/x.git`, kind: 'remote-unreachable', says: /connect/i },
    {
      what: 'a refused git:// connection',
      url: `git://127.0.0.1:${await freePort()}/x.git`,
      kind: 'remote-unreachable',
      says: /Connection refused/,
    },
  ];
  for (const [i, c] of cases.entries()) succeeded(await brvJson(a, ['vc', 'remote', 'add', `r${i}`, c.url]));
  const runs = await Promise.all(
    cases.flatMap((c, i) => ['fetch', 'push'].map(async (command) => ({ c, i, command, run: await brvJson(a, ['vc', command, `r${i}`]) }))),
  );
  for (const { c, i, command, run } of runs) {
    t.is(run.exitCode, 1, `${command} ${c.what}`);
    const error = run.json?.data.error;
    t.is(error?.kind, c.kind, `${command} ${c.what}: ${error?.message}`);
    t.regex(error?.message ?? '', c.says, `${command} ${c.what}`);
    t.notRegex(error?.message ?? '', /and the repository exists|Please make sure/, `${command} ${c.what}`);
    t.regex(error?.message ?? '', new RegExp(`r${i}`), 'names the remote');
  }
  // A server hook refusing the push: push-refused with what the server said (not non-fast-forward,
  // and sync does not retry it as if the remote had moved).
  await writeFile(path.join(bare, 'hooks', 'pre-receive'), '#!/bin/sh\necho "knowledge pushes are closed this week" >&2\nexit 1\n');
  await chmod(path.join(bare, 'hooks', 'pre-receive'), 0o755);
  for (const args of [
    ['vc', 'push', 'origin'],
    ['sync', 'origin'],
  ]) {
    const refused = await brvJson(a, args);
    t.is(refused.json?.data.error.kind, 'push-refused', args.join(' '));
    t.regex(refused.json?.data.error.message, /pre-receive hook declined.*knowledge pushes are closed this week/, args.join(' '));
  }
  // brv vc clone into a directory that exists and is not empty.
  const target = path.join(root, 'taken');
  await git(root, 'init', '-q', target);
  const clone = await brvJson(root, ['vc', 'clone', bare, target]);
  t.is(clone.json?.data.error.kind, 'destination-exists');
  t.regex(clone.json?.data.error.message, /already exists and is not an empty directory/);
});
