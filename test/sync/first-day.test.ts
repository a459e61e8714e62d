// A teammate's first day (issue 32, points 2 and 3): a plain `git clone` of a repository whose remote
// has knowledge adopts the remote's brv branch (never a second root), and every status says what was
// fetched and not taken, with the command that takes it.
import test from 'ava';
import { execa } from 'execa';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brvRefs, put, rule, succeeded, twoClones } from '../helpers/knowledge.js';
import { brv, brvJson, CLI, ENV, git, refTip, ROOT, tempDir } from '../helpers/repo.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { openBrv } from '../helpers/service.js';
import { readRepository, statusText } from '../../src/tui/status.js';
import { request, session, startFor } from '../web/http.js';

/** A bare remote with knowledge pushed from clone `a` (one topic), and a plain `git clone` of it in `b`. */
async function teamRemote() {
  const env = await twoClones();
  succeeded(await brvJson(env.a, ['init', '--track', 'origin']));
  await put(env.a, 'security/jwt', rule('Sign JWTs with RS256.'), { title: 'JWT signing' });
  succeeded(await brvJson(env.a, ['vc', 'push', '-u']));
  await git(env.root, 'clone', '-q', env.bare, 'b');
  return env;
}

const roots = async (repo: string) => (await git(repo, 'rev-list', '--max-parents=0', 'refs/brv/heads/main')).split('\n').filter(Boolean);

test('before anything is fetched, status, vc status, doctor and query say the remote may have knowledge and that brv init brings it; no fetch', async (t) => {
  const { b } = await teamRemote();
  const status = succeeded(await brvJson(b, ['status']));
  t.like(status, { initialized: false, fetchFrom: 'origin', upstream: { remote: 'origin', fetched: false, behind: 0 } });
  t.regex((await brv(b, ['status'])).stdout, /origin may have knowledge: "brv init" fetches it/);
  const vc = await brv(b, ['vc', 'status']);
  t.regex(vc.stdout, /nothing fetched from origin, which may have some: brv init fetches it/);
  t.notRegex(vc.stdout, /Up to date|push -u/);
  const doctor = await brvJson(b, ['doctor']);
  const checks = doctor.json!.data.checks as Array<{ name: string; message: string; fix?: string }>;
  t.regex(checks.find((c) => c.name === 'sync')!.message, /nothing fetched from origin yet/);
  t.is(checks.find((c) => c.name === 'sync')!.fix, 'brv init');
  const query = await brvJson(b, ['query', 'how are JWTs signed?']);
  t.like(query.json!.data.remoteKnowledge, { remote: 'origin', fetched: false, command: 'brv init' });
  t.regex((await brv(b, ['query', 'JWT'])).stdout, /nothing fetched from origin, which may have some\. Run brv init/);
  const mcp = await connectMcp(t, b);
  const answer = textOf(await mcp.callTool({ name: 'brv-query', arguments: { query: 'how are JWTs signed?' } }));
  t.regex(answer, /nothing fetched from origin, which may have some\. Run brv init/);
  // Read-only: nothing was fetched, no ref was written.
  t.deepEqual(await brvRefs(b), []);
});

test("brv init in a plain clone fetches origin's knowledge (with git's progress) and starts there: one root, query answers", async (t) => {
  const { a, b } = await teamRemote();
  const run = await brv(b, ['init'], { env: { BRV_PROGRESS: 'always' } });
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stdout, /Adopted origin's knowledge: brv branch main starts at origin\/main/);
  t.regex(run.stderr, /Fetching knowledge from origin/);
  t.is(await refTip(b), await refTip(a));
  t.deepEqual(await roots(b), await roots(a));
  t.regex((await brv(b, ['query', 'how are JWTs signed?'])).stdout, /JWT signing/);
  t.regex((await brv(b, ['vc', 'status'])).stdout, /Up to date with origin\/main/);
  // Safe to run again: no fetch, no new commit.
  t.like(succeeded(await brvJson(b, ['init'])), { created: false, commit: await refTip(a) });
});

test('init --track, hooks install and connectors install adopt the remote branch in a plain clone too', async (t) => {
  const commands = [
    ['init', '--track', 'origin'],
    ['hooks', 'install'],
    ['connectors', 'install', 'codex'],
  ];
  await Promise.all(
    commands.map(async (command) => {
      const { a, b } = await teamRemote();
      const data = succeeded(await brvJson(b, command));
      t.like(data.adopted, { remote: 'origin', branch: 'main', fetched: true, commit: await refTip(a) }, command.join(' '));
      t.deepEqual(await roots(b), await roots(a), command.join(' '));
      t.regex((await brv(b, ['query', 'JWT'])).stdout, /JWT signing/, command.join(' '));
      // The suggested next step is not a push that would be refused.
      t.notRegex((await brv(b, ['vc', 'status'])).stdout, /push -u/, command.join(' '));
    }),
  );
});

test('when a plain git fetch already brought the knowledge, the first read of any kind adopts it (no second root, no network): status, vc status, doctor, query', async (t) => {
  const { a, b, root } = await teamRemote();
  await git(b, 'config', '--add', 'remote.origin.fetch', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  await git(b, 'pull', '-q');
  // No network from here: the remote is gone, the tracking ref is enough.
  await git(b, 'remote', 'set-url', 'origin', path.join(root, 'gone.git'));
  const tip = await refTip(a);
  const vc = await brvJson(b, ['vc', 'status']);
  t.like(succeeded(vc), { tip, ahead: 0, behind: 0 });
  t.is((vc.json as { meta?: { knowledge?: unknown } }).meta?.knowledge, undefined, 'adopted: nothing left to say');
  t.notRegex((await brv(b, ['vc', 'status'])).stdout, /No knowledge here yet|to pull|not taken/);
  t.deepEqual(await roots(b), await roots(a), 'the same root: adopted, not started anew');
  const status = await brv(b, ['status']);
  t.notRegex(status.stdout, /run "brv init"|has knowledge .* run brv init/);
  t.regex(status.stdout, /Topics: +1/);
  const checks = (await brvJson(b, ['doctor'])).json!.data.checks as Array<{ name: string; message: string; fix?: string }>;
  t.regex(checks.find((c) => c.name === 'sync')!.message, /^0 to push, 0 to pull/);
  t.regex((await brv(b, ['query', 'JWT'])).stdout, /JWT signing/);
  t.like(succeeded(await brvJson(b, ['init'])), { created: false, commit: tip });
});

test('an unreachable remote is a note: init starts its own branch; brv sync later merges the two roots, and push -u is never suggested', async (t) => {
  const { a, b, bare, root } = await teamRemote();
  await git(b, 'remote', 'set-url', 'origin', path.join(root, 'gone.git'));
  const init = await brv(b, ['init']);
  t.is(init.exitCode, 0, init.stderr);
  t.regex(init.stdout, /note: could not fetch knowledge from origin \(remote-not-found\)/);
  await put(b, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
  const vc = (await brv(b, ['vc', 'status'])).stdout;
  t.notRegex(vc, /push -u/);
  t.regex(vc, /brv sync fetches, merges and pushes/);
  await git(b, 'remote', 'set-url', 'origin', bare);
  const sync = succeeded(await brvJson(b, ['sync']));
  t.is(sync.merge.status, 'merged');
  t.regex((await brv(b, ['query', 'JWT'])).stdout, /JWT signing/);
  t.regex((await brv(b, ['query', 'deploy'])).stdout, /Deploys/);
  t.is(await refTip(b, 'refs/brv/remotes/origin/heads/main'), await refTip(b));
  succeeded(await brvJson(a, ['vc', 'pull']));
  t.regex((await brv(a, ['query', 'deploy'])).stdout, /Deploys/);
});

test('diverged: brv status, vc status, doctor, the TUI status line and the dashboard footer say what is to pull and name brv sync', async (t) => {
  const { a, b } = await teamRemote();
  succeeded(await brvJson(b, ['init']));
  await put(b, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
  await put(a, 'api/errors', rule('Errors are JSON.'), { title: 'API errors' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q'); // brv init added brv's refspecs: a plain fetch moves the tracking ref
  t.like(succeeded(await brvJson(b, ['vc', 'status'])), { ahead: 1, behind: 1 });
  t.like(succeeded(await brvJson(b, ['status'])).upstream, { remote: 'origin', ahead: 1, behind: 1, local: true });
  t.regex((await brv(b, ['status'])).stdout, /Remote: +1 commit\(s\) to push, 1 to pull .*run brv sync/);
  const checks = succeeded(await brvJson(b, ['doctor'])).checks as Array<{ name: string; fix?: string; message: string }>;
  t.like(
    checks.find((c) => c.name === 'sync'),
    { message: '1 to push, 1 to pull (origin)', fix: 'brv sync' },
  );

  const opened = await openBrv(b);
  try {
    const { facts } = await readRepository(opened);
    t.regex(statusText(facts), /origin ↑1 ↓1 \(\/sync takes it\)/);
  } finally {
    opened.close();
  }
  const server = await startFor(b);
  try {
    const answer = await request(server.port, { path: '/api/status', headers: session(server) });
    t.like(answer.json, { upstream: { remote: 'origin', ahead: 1, behind: 1 } });
    t.regex(answer.json.incoming, /brv sync/);
  } finally {
    await server.close();
  }
});

test('the TUI and the dashboard adopt fetched knowledge at their first read in a clone with no local branch yet', async (t) => {
  const { a, b } = await teamRemote();
  await git(b, 'fetch', '-q', 'origin', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  const opened = await openBrv(b);
  try {
    const { facts } = await readRepository(opened);
    t.regex(statusText(facts), /origin ↑0 ↓0$/);
  } finally {
    opened.close();
  }
  t.is(await refTip(b), await refTip(a));
  await git(b, 'update-ref', '-d', 'refs/brv/heads/main');
  const server = await startFor(b);
  try {
    const answer = await request(server.port, { path: '/api/status', headers: session(server) });
    t.like(answer.json, { upstream: { remote: 'origin', ahead: 0, behind: 0 } });
    t.falsy(answer.json.incoming);
    t.is(await refTip(b), await refTip(a));
  } finally {
    await server.close();
  }
});

/** The fenced block under README's "A teammate's first day", as written. */
async function readmeFirstDay(): Promise<string[]> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf("### A teammate's first day"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block.split('\n').filter((line) => line.trim() !== '');
}

test('README\'s "A teammate\'s first day" runs as written: plain clone, one command, the query answers', async (t) => {
  const { bare } = await teamRemote();
  const lines = await readmeFirstDay();
  t.true(lines.length >= 3);
  const work = await tempDir('brv-first-day-');
  const bin = await tempDir('brv-bin-');
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec node ${JSON.stringify(CLI)} "$@"\n`);
  await chmod(path.join(bin, 'brv'), 0o755);
  const url = /git clone (\S+)/.exec(lines[0]!)![1]!;
  // One shell, line after line (a `cd` carries over), stopping at the first line that fails.
  const script = ['set -e', ...lines.map((line) => line.replaceAll(url, bare))].join('\n');
  const run = await execa('sh', ['-c', script], {
    cwd: work,
    env: { ...ENV, PATH: `${bin}:${ENV.PATH}` },
    extendEnv: false,
    reject: false,
  });
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stdout, /Adopted origin's knowledge/);
  t.regex(run.stdout, /JWT signing/);
  t.regex(run.stdout, /Sign JWTs with RS256/);
});

test('held for review: brv status and vc status name the review, not a pull that would hold it again', async (t) => {
  const { a, b } = await teamRemote();
  succeeded(await brvJson(b, ['init']));
  succeeded(await brvJson(a, ['rm', 'security/jwt']));
  succeeded(await brvJson(a, ['vc', 'push']));
  const pull = succeeded(await brvJson(b, ['vc', 'pull']));
  t.is(pull.merge.status, 'held');
  const id = pull.merge.held.id;
  const status = succeeded(await brvJson(b, ['status']));
  t.like(status.upstream, { behind: 1, held: id });
  t.regex((await brv(b, ['status'])).stdout, new RegExp(`Remote: .*held for review ${id}.*brv review approve or reject ${id}`));
  const vc = (await brv(b, ['vc', 'status'])).stdout;
  t.regex(vc, /held for review \(below\)/);
  t.notRegex(vc, /brv vc pull takes them/);
  const opened = await openBrv(b);
  try {
    t.regex(statusText((await readRepository(opened)).facts), new RegExp(`origin ↑\\d+ ↓1 \\(held: /review ${id}\\)`));
  } finally {
    opened.close();
  }
});

test('a remote brv branch that is not brv knowledge is not adopted: init says so and starts its own branch', async (t) => {
  const { b } = await teamRemote();
  // A plain fetch wrote a tracking ref to a code commit (a hostile or broken push).
  await git(b, 'update-ref', 'refs/brv/remotes/origin/heads/main', 'HEAD');
  const init = await brvJson(b, ['init']);
  const data = succeeded(init);
  t.like(data, { created: true, adopted: { fetched: false, refused: { kind: 'not-a-brv-commit' } } });
  t.regex((await brv(b, ['init'])).stdout, /already initialized/);
});
