import test from 'ava';
import { execa } from 'execa';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sshHost } from '../../src/git/remote.js';
import { credentialStore, freePort, smartHttp, sshdAvailable, startSshd, type SshServer } from '../helpers/git-servers.js';
import { put, rule, succeeded } from '../helpers/knowledge.js';
import { brv, brvJson, ENV, git, refTip, tempDir } from '../helpers/repo.js';
import { openTerminal, tmuxAvailable } from '../helpers/terminal.js';

// brv against real servers: Debian's OpenSSH server on a loopback port (key authentication), and
// git's own smart-HTTP backend behind Basic authentication. One sshd for the whole file (the ssh
// tests are skipped where /usr/sbin/sshd is missing, outside CI).

const withSshd = sshdAvailable();
const sshTest = withSshd ? test : test.skip;
let sshd: SshServer;
test.before(async () => {
  if (withSshd) sshd = await startSshd();
});
test.afterEach.always((t) => {
  if (!t.passed && sshd) t.log(`sshd said:\n${sshd.log()}`);
});
test.after.always(async () => {
  await sshd?.close();
});

const TRACKING = 'refs/brv/remotes/origin/heads/main';

/** A bare repository with one code commit on main, and clone `a` of it whose origin is `url(bare)`. */
async function project(url: (bare: string) => string, env: Record<string, string>, root?: string) {
  root ??= await tempDir('brv-servers-');
  const bare = path.join(root, 'team.git');
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const a = path.join(root, 'a');
  await git(root, 'init', '-q', '-b', 'main', a);
  await writeFile(path.join(a, 'README.md'), '# project\n');
  await git(a, 'add', '.');
  await git(a, 'commit', '-q', '-m', 'code');
  await git(a, 'remote', 'add', 'origin', url(bare));
  await execa('git', ['push', '-q', 'origin', 'main'], { cwd: a, env: { ...ENV, ...env }, extendEnv: false });
  return { root, bare, a, url: url(bare) };
}

sshTest('over ssh: brv vc clone, curate + brv sync both ways between two clones, and a plain git pull brings knowledge', async (t) => {
  const env = { GIT_SSH_COMMAND: sshd.sshCommand() };
  const { root, a, url } = await project((bare) => sshd.url(bare), env);
  succeeded(await brvJson(a, ['init', '--track', 'origin'], { env }));
  await put(a, 'security/auth', rule('Use RS256.'));
  succeeded(await brvJson(a, ['vc', 'push', '-u'], { env }));

  const cloned = succeeded(await brvJson(root, ['vc', 'clone', url, 'b'], { env }));
  t.truthy(cloned);
  const b = path.join(root, 'b');
  t.is(await refTip(b), await refTip(a));
  t.regex((await brv(b, ['query', 'RS256'], { env })).stdout, /Use RS256/);

  // b curates and syncs (push); a syncs (pull): both have both topics.
  await put(b, 'api/errors', rule('Return problem+json.'));
  const pushed = succeeded(await brvJson(b, ['sync'], { env }));
  t.truthy(pushed);
  succeeded(await brvJson(a, ['sync'], { env }));
  t.is(await refTip(a), await refTip(b));
  t.regex((await brv(a, ['query', 'problem+json'], { env })).stdout, /Return problem\+json/);

  // a curates and pushes; in b a plain git pull over ssh fetches it into the remote-tracking ref.
  await put(a, 'ops/deploy', rule('Deploy on Tuesdays.'));
  succeeded(await brvJson(a, ['vc', 'push'], { env }));
  await execa('git', ['pull', '-q', '--ff-only'], { cwd: b, env: { ...ENV, ...env }, extendEnv: false });
  t.is(await refTip(b, TRACKING), await refTip(a));
});

/** Runs brv with stdin closed and a time limit; returns its JSON error (kind, message) and how long it took. */
async function failing(cwd: string, args: string[], env: Record<string, string>) {
  const started = Date.now();
  // GIT_TERMINAL_PROMPT unset: what keeps git and ssh from asking is brv's own default.
  const run = await brvJson(cwd, args, { env, unset: ['GIT_TERMINAL_PROMPT', 'SSH_ASKPASS_REQUIRE'], timeout: 20_000 });
  return {
    exitCode: run.exitCode,
    error: run.json?.data?.error ?? { kind: undefined, message: `${run.stdout} ${run.stderr}` },
    ms: Date.now() - started,
  };
}

sshTest(
  'over ssh, every failure is typed and immediate, never a prompt: unknown host key, changed host key, a key the server refuses, a closed port, a missing repository',
  async (t) => {
    const trusted = { GIT_SSH_COMMAND: sshd.sshCommand() };
    const { root, a, bare } = await project((dir) => sshd.url(dir), trusted);
    succeeded(await brvJson(a, ['init', '--track', 'origin'], { env: trusted }));
    await put(a, 'security/auth', rule('Use RS256.'));
    succeeded(await brvJson(a, ['vc', 'push', '-u'], { env: trusted }));

    const changedHosts = path.join(root, 'known_hosts_changed');
    const otherKey = (await readFile(`${sshd.strangerKey}.pub`, 'utf8')).trim().split(' ').slice(0, 2).join(' ');
    await writeFile(changedHosts, `[127.0.0.1]:${sshd.port} ${otherKey}\n`);
    const unknownHosts = path.join(root, 'known_hosts_unknown');
    await writeFile(unknownHosts, '');
    const closed = await freePort();
    const cases = [
      {
        what: 'an unknown host key',
        env: { GIT_SSH_COMMAND: sshd.sshCommand({ knownHosts: unknownHosts }) },
        kind: 'host-key-unknown',
        says: /ssh-keyscan -p \d+ 127\.0\.0\.1 >> ~\/\.ssh\/known_hosts/,
      },
      {
        what: 'a changed host key',
        env: { GIT_SSH_COMMAND: sshd.sshCommand({ knownHosts: changedHosts }) },
        kind: 'host-key-changed',
        says: /ssh-keygen -R '\[127\.0\.0\.1\]:\d+'/,
      },
      {
        what: 'a key the server refuses',
        env: { GIT_SSH_COMMAND: sshd.sshCommand({ key: sshd.strangerKey }) },
        kind: 'auth-failed',
        says: /Permission denied \(publickey\).*ssh-add/,
      },
    ];
    for (const c of cases) {
      for (const args of [['vc', 'fetch'], ['vc', 'push'], ['sync']]) {
        const { exitCode, error, ms } = await failing(a, args, c.env);
        t.is(exitCode, 1, `${args.join(' ')}, ${c.what}`);
        t.is(error.kind, c.kind, `${args.join(' ')}, ${c.what}: ${error.message}`);
        t.regex(error.message, c.says, `${args.join(' ')}, ${c.what}`);
        t.true(ms < 15_000, `${args.join(' ')}, ${c.what}: ${ms} ms`);
      }
      const clone = await failing(root, ['vc', 'clone', sshd.url(bare), `clone-${c.kind}`], c.env);
      t.is(clone.error.kind, c.kind, `clone, ${c.what}: ${clone.error.message}`);
    }
    // Nothing was trusted on the way.
    t.is(await readFile(unknownHosts, 'utf8'), '');

    const unreachable = await failing(root, ['vc', 'clone', `ssh://${sshd.user}@127.0.0.1:${closed}${bare}`, 'c1'], trusted);
    t.is(unreachable.error.kind, 'remote-unreachable', unreachable.error.message);
    t.regex(unreachable.error.message, /Connection refused/);
    const missing = await failing(root, ['vc', 'clone', sshd.url(path.join(root, 'nowhere.git')), 'c2'], trusted);
    t.is(missing.error.kind, 'remote-not-found', missing.error.message);
  },
);

sshTest(
  'in a real terminal, an unknown ssh host key ends brv with the typed error: ssh never asks "Are you sure you want to continue connecting"',
  async (t) => {
    if (!tmuxAvailable()) return t.pass('tmux is not installed');
    const root = await tempDir('brv-servers-');
    const bare = path.join(root, 'team.git');
    await git(root, 'init', '-q', '--bare', '-b', 'main', bare);
    const unknownHosts = path.join(root, 'known_hosts');
    await writeFile(unknownHosts, '');
    const env = { ...ENV, GIT_SSH_COMMAND: sshd.sshCommand({ knownHosts: unknownHosts }) };
    delete (env as Record<string, string>).GIT_TERMINAL_PROMPT;
    delete (env as Record<string, string>).SSH_ASKPASS_REQUIRE;
    const terminal = await openTerminal(root, { args: ['vc', 'clone', sshd.url(bare), 'b'], env });
    t.teardown(() => terminal.close());
    const screen = await terminal.see(/\[exit \d+\]|continue connecting/, 15_000);
    t.notRegex(screen, /continue connecting/);
    t.regex(screen.replace(/\s+/g, ' '), /host-key-unknown/);
    t.regex(screen, /\[exit 1\]/);
    t.is(await readFile(unknownHosts, 'utf8'), '');

    // A user who allows git's terminal prompts (GIT_TERMINAL_PROMPT=1) gets ssh's question too; "no" is the same typed error.
    const asking = await openTerminal(root, { args: ['vc', 'clone', sshd.url(bare), 'c'], env: { ...env, GIT_TERMINAL_PROMPT: '1' } });
    t.teardown(() => asking.close());
    await asking.see(/continue connecting/, 15_000);
    await asking.send(['no', 'Enter'], { literal: false });
    const answered = await asking.see(/\[exit \d+\]/, 15_000);
    t.regex(answered.replace(/\s+/g, ' '), /host-key-unknown/);
    t.is(await readFile(unknownHosts, 'utf8'), '');
  },
);

test('over smart HTTP with a credential helper: clone, sync both ways; a wrong password is auth-failed; a host policy refusing the push is push-refused in its words', async (t) => {
  const root = await tempDir('brv-servers-');
  const server = await smartHttp(root, 'RIGHT-PASSWORD');
  t.teardown(() => server.close());
  const helper = await credentialStore([server.url('', 'alice:RIGHT-PASSWORD').replace(/\/$/, '')]);
  const { a, bare, url } = await project(() => server.url('team.git'), helper, root);
  t.notRegex(url, /alice|PASSWORD/, 'the URL has no credentials: the helper gives them');
  succeeded(await brvJson(a, ['init', '--track', 'origin'], { env: helper }));
  await put(a, 'security/auth', rule('Use RS256.'));
  succeeded(await brvJson(a, ['vc', 'push', '-u'], { env: helper }));
  succeeded(await brvJson(root, ['vc', 'clone', url, 'b'], { env: helper }));
  const b = path.join(root, 'b');
  await put(b, 'api/errors', rule('Return problem+json.'));
  succeeded(await brvJson(b, ['sync'], { env: helper }));
  succeeded(await brvJson(a, ['sync'], { env: helper }));
  t.is(await refTip(a), await refTip(b));
  t.is(await refTip(bare), await refTip(a));

  // The helper's password is wrong: auth-failed at once (git never asks on the terminal), for every command.
  const wrong = await credentialStore([server.url('', 'alice:WRONG-PASSWORD').replace(/\/$/, '')]);
  for (const args of [['vc', 'fetch'], ['vc', 'push'], ['sync']]) {
    const { error } = await failing(a, args, wrong);
    t.is(error.kind, 'auth-failed', `${args.join(' ')}: ${error.message}`);
    t.notRegex(error.message, /PASSWORD/);
  }
  const { error: cloneError } = await failing(root, ['vc', 'clone', url, 'c'], wrong);
  t.is(cloneError.kind, 'auth-failed', cloneError.message);

  // The host's policy refuses refs/brv/*: push-refused, quoting what the host said.
  await put(a, 'ops/deploy', rule('Deploy on Tuesdays.'));
  await writeFile(
    path.join(bare, 'hooks', 'pre-receive'),
    '#!/bin/sh\nwhile read old new ref; do case "$ref" in refs/heads/*|refs/tags/*) ;; *) echo "this host accepts only branches and tags, not $ref" >&2; exit 1;; esac; done\n',
  );
  await chmod(path.join(bare, 'hooks', 'pre-receive'), 0o755);
  for (const args of [['vc', 'push'], ['sync']]) {
    const { error } = await failing(a, args, helper);
    t.is(error.kind, 'push-refused', `${args.join(' ')}: ${error.message}`);
    t.regex(error.message, /this host accepts only branches and tags, not refs\/brv\/heads\/main/, args.join(' '));
  }
  t.true(server.requests.length > 0);
});

test('sshHost: the user, host and port an ssh URL names, for the commands an error suggests; nothing for other URLs or odd parts', (t) => {
  t.deepEqual(sshHost('ssh://git@example.com:2222/team/p.git'), { user: 'git', host: 'example.com', port: '2222' });
  t.deepEqual(sshHost('ssh://example.com/p.git'), { user: undefined, host: 'example.com', port: undefined });
  t.deepEqual(sshHost('ssh://git@example.com:22/p.git'), { user: 'git', host: 'example.com', port: undefined });
  t.deepEqual(sshHost('git+ssh://u@[::1]:2200/p'), { user: 'u', host: '::1', port: '2200' });
  t.deepEqual(sshHost('git@github.com:team/p.git'), { user: 'git', host: 'github.com', port: undefined });
  t.is(sshHost('https://github.com/team/p.git'), undefined);
  t.is(sshHost('/srv/git/p.git'), undefined);
  t.is(sshHost('./a:b'), undefined);
  t.is(sshHost(undefined), undefined);
  t.is(sshHost('ssh://h$(touch x)/p'), undefined);
  t.deepEqual(sshHost("ssh://we'ird@host/p"), { user: undefined, host: 'host', port: undefined });
});
