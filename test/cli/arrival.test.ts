import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ENV, brv, brvJson, git, refTip, tempDir } from '../helpers/repo.js';
import { put, rule, succeeded, twoClones } from '../helpers/knowledge.js';
import { plantTree } from '../helpers/plant.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { openEvents, request, session, startFor } from '../web/http.js';
import { fetchRefspecs } from '../../src/base/ref-names.js';
import { COMMANDS, runCommand } from '../../src/tui/commands.js';
import { parseCommandLine } from '../../src/tui/command-line.js';
import { openBrv, testService } from '../helpers/service.js';

// Issue 32, what must be true 1: any fetch brings knowledge into use. A teammate's knowledge-only
// push only moves refs/brv/remotes/origin/heads/main in a clone (git pull that merges no code, git
// fetch, brv vc fetch); the next read — in the CLI and in a long-lived MCP server — fast-forwards the
// local brv branch to it (src/vc/arrival.ts), with or without hooks, never merging: diverged
// histories and held or refused changes are told once per read.

/** A bare remote, A with knowledge pushed (tracked), and B a plain `git clone` with brv's fetch refspecs and no hooks. */
async function teammates() {
  const env = await twoClones();
  succeeded(await brvJson(env.a, ['init', '--track', 'origin']));
  await put(env.a, 'security/auth', rule('Use RS256 for JWT signing.'), { title: 'JWT signing' });
  succeeded(await brvJson(env.a, ['vc', 'push', '-u']));
  await git(env.root, 'clone', '-q', env.url, 'b');
  // What `brv init --track` / `brv hooks install` add, by plain git: no hook is installed.
  for (const refspec of fetchRefspecs('origin')) await git(env.b, 'config', '--add', 'remote.origin.fetch', refspec);
  return env;
}

const paths = (data: { matchedDocs: Array<{ topicPath: string }> }) => data.matchedDocs.map((d) => d.topicPath);

test('a knowledge-only push reaches the next read after a plain git pull, git fetch or brv vc fetch, without hooks', async (t) => {
  const { a, b } = await teammates();
  // git pull merges nothing ("Already up to date."): git moved only the remote-tracking knowledge ref.
  const pulled = execFileSync('git', ['pull'], {
    cwd: b,
    encoding: 'utf8',
    env: { ...ENV, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.regex(pulled, /Already up to date/);
  t.is(await refTip(b), undefined);
  const first = succeeded(await brvJson(b, ['query', 'JWT signing']));
  t.deepEqual(paths(first), ['security/auth']);
  t.is(await refTip(b), await refTip(a), 'adopted: the local branch starts at the remote tip (no second root)');

  // Plain git fetch: the next ls and read answer with the new topic.
  await put(a, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  t.deepEqual(succeeded(await brvJson(b, ['ls'])).topics, ['ops/deploy', 'security/auth']);
  t.regex(succeeded(await brvJson(b, ['read', 'ops/deploy'])).content, /blue-green/);
  t.is(await refTip(b), await refTip(a));

  // brv vc fetch only fetches; the next query takes it. The text read says nothing about it.
  await put(a, 'ops/rollback', rule('Roll back with the previous image tag.'), { title: 'Rollbacks' });
  succeeded(await brvJson(a, ['vc', 'push']));
  succeeded(await brvJson(b, ['vc', 'fetch']));
  const text = await brv(b, ['query', 'previous image tag rollback']);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /ops\/rollback/);
  t.is(text.stderr, '');
  t.is(await refTip(b), await refTip(a));
  const status = succeeded(await brvJson(b, ['status']));
  t.is(status.topics, 3);

  // A curate after a fetch writes on top of the fetched knowledge, not beside it (nothing for brv sync to merge).
  await put(a, 'ops/alerts', rule('Page on call for 5xx bursts.'), { title: 'Alerts' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  await put(b, 'local/note', rule('Only B knows.'), { title: 'Local note' });
  t.is((await git(b, 'rev-parse', 'refs/brv/heads/main^')).trim(), (await refTip(a))!);
});

test('with the hooks installed, a git pull that merges no code brings knowledge to the next query too', async (t) => {
  const { a, b } = await teammates();
  succeeded(await brvJson(b, ['vc', 'fetch']));
  succeeded(await brvJson(b, ['hooks', 'install']));
  await put(a, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'pull', '-q');
  t.deepEqual(paths(succeeded(await brvJson(b, ['query', 'deploy blue-green']))).slice(0, 1), ['ops/deploy']);
  t.is(await refTip(b), await refTip(a));
});

test('diverged knowledge: every read answers from the local branch and says so once (JSON meta, one stderr line naming brv sync); nothing merges', async (t) => {
  const { a, b } = await teammates();
  await git(b, 'fetch', '-q');
  succeeded(await brvJson(b, ['ls']));
  await put(b, 'local/note', rule('Only B knows the zebra rule.'), { title: 'Zebra note' });
  await put(a, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  const tip = await refTip(b);

  const json = await brvJson(b, ['query', 'zebra rule']);
  t.deepEqual(paths(succeeded(json)), ['local/note']);
  t.like((json.json as any).meta, {
    knowledge: { state: 'diverged', remote: 'origin', branch: 'main', ahead: 1, behind: 1, fix: 'brv sync' },
  });
  const text = await brv(b, ['ls']);
  t.is(text.exitCode, 0);
  const lines = text.stderr.split('\n').filter(Boolean);
  t.is(lines.length, 1, text.stderr);
  t.regex(lines[0]!, /diverged.*brv sync/);
  t.is(await refTip(b), tip, 'no merge on a read');
  t.false(succeeded(await brvJson(b, ['ls'])).topics.includes('ops/deploy'));
  // The TUI's /query says it under its answer.
  const opened = await openBrv(b);
  try {
    const ctx = { service: testService, brv: async () => opened, actor: {}, cwd: b, progress: () => {} };
    const outcome = await runCommand(ctx, parseCommandLine('/query zebra rule', COMMANDS));
    t.regex((outcome as { text: string }).text, /local\/note[\s\S]*diverged.*brv sync/);
  } finally {
    opened.close();
  }

  // brv sync merges; the reads after it say nothing.
  succeeded(await brvJson(b, ['sync']));
  const after = await brvJson(b, ['query', 'deploy blue-green']);
  t.true(paths(succeeded(after)).includes('ops/deploy'));
  t.is((after.json as any).meta, undefined);
});

const topicHtml = (p: string, text: string) => `<bv-topic path="${p}" title="Topic ${p}"><bv-rule id="r1">${text}</bv-rule></bv-topic>`;

test('a mass removal arriving by plain git fetch is held as a review, not applied; a foreign tip is refused and nothing moves', async (t) => {
  const { a, b } = await teammates();
  const zoo = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`zoo/t${i}.html`, topicHtml(`zoo/t${i}`, `Zebras rule ${i}.`)]));
  const auth = { 'security/auth.html': topicHtml('security/auth', 'Use RS256.') };
  await plantTree(a, { ...auth, ...zoo });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  t.is(succeeded(await brvJson(b, ['ls'])).topics.length, 14);
  const tip = await refTip(b);

  await plantTree(a, auth);
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  const held = await brvJson(b, ['query', 'zebras rule']);
  t.true(paths(succeeded(held)).length >= 10, 'the topics still answer');
  const notice = (held.json as any).meta.knowledge;
  t.like(notice, { state: 'held', remote: 'origin', rule: 'more than 10 topics' });
  t.truthy(await refTip(b, `refs/brv/review/${notice.review}`));
  t.is(await refTip(b), tip);
  const text = await brv(b, ['read', 'zoo/t3']);
  t.regex(text.stdout, /Zebras rule 3/);
  t.regex(text.stderr, new RegExp(`waits as review ${notice.review}`));
  t.is(text.stderr.trim().split('\n').length, 1);
  // Read again: the same review, not a second one.
  t.is(((await brvJson(b, ['ls'])).json as any).meta.knowledge.review, notice.review);
  t.is((await git(b, 'for-each-ref', 'refs/brv/review/')).split('\n').filter(Boolean).length, 1);

  // A tip planted by plain git (a blob, then a commit that is no brv commit) is refused, typed.
  const blob = (await git(b, 'hash-object', '-w', path.join(b, 'README.md'))).trim();
  await git(b, 'update-ref', 'refs/brv/remotes/origin/heads/main', blob);
  const refused = await brvJson(b, ['query', 'zebras rule']);
  t.true(paths(succeeded(refused)).length >= 10);
  t.like((refused.json as any).meta.knowledge, { state: 'refused', kind: 'not-a-brv-commit', commit: blob });
  const code = (await git(b, 'rev-parse', 'HEAD')).trim();
  await git(b, 'update-ref', 'refs/brv/remotes/origin/heads/main', code);
  const text2 = await brv(b, ['ls']);
  t.is(text2.exitCode, 0);
  t.regex(text2.stderr, /not taken \(not-a-brv-commit\)/);
  t.is(await refTip(b), tip, 'nothing moved');
});

test('a long-lived MCP server answers brv-query from knowledge another process fetched, and tells a divergence in its result', async (t) => {
  const { a, b } = await teammates();
  await git(b, 'fetch', '-q');
  const client = await connectMcp(t, b);
  const first = textOf(await client.callTool({ name: 'brv-query', arguments: { query: 'JWT signing' } }));
  t.regex(first, /security\/auth/);
  await put(a, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  t.regex(textOf(await client.callTool({ name: 'brv-query', arguments: { query: 'deploy blue-green' } })), /ops\/deploy/);

  await put(b, 'local/note', rule('Only B knows.'), { title: 'Local note' });
  await put(a, 'ops/rollback', rule('Roll back.'), { title: 'Rollbacks' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  const diverged = textOf(await client.callTool({ name: 'brv-query', arguments: { query: 'deploy blue-green' } }));
  t.regex(diverged, /diverged.*brv sync/);
  t.is(diverged.match(/diverged/g)?.length, 1);
});

test('a warm query with a remote-tracking knowledge ref starts no git process; a moved ref is noticed', async (t) => {
  const { a, b } = await teammates();
  await git(b, 'fetch', '-q');
  succeeded(await brvJson(b, ['query', 'JWT']));
  succeeded(await brvJson(b, ['query', 'JWT'])); // the discovery and arrival answers are remembered now
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = await tempDir();
  const log = path.join(bin, 'calls.log');
  await writeFile(log, '');
  await writeFile(path.join(bin, 'git'), `#!/bin/sh\necho "$1" >> "${log}"\nexec "${realGit}" "$@"\n`, { mode: 0o755 });
  const env = { PATH: `${bin}${path.delimiter}${ENV.PATH ?? ''}` };
  const warm = await brvJson(b, ['query', 'JWT'], { env });
  t.deepEqual(paths(succeeded(warm)), ['security/auth']);
  t.is(await readFile(log, 'utf8'), '', 'no git process on the warm path');

  await put(a, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  t.deepEqual(paths(succeeded(await brvJson(b, ['query', 'deploy blue-green'], { env }))).slice(0, 1), ['ops/deploy']);
  t.not(await readFile(log, 'utf8'), '', 'the moved ref was asked of git');
  // After the fast-forward, what the next read needs is remembered: it is warm again (once discovery, which
  // saw the tip move, has asked git once more), no git process.
  const remembered = JSON.parse(await readFile(path.join(b, '.git', 'brv', 'sync', 'arrival.json'), 'utf8')).branches.main;
  t.like(remembered, { remote: 'origin', local: await refTip(b), tracking: await refTip(b), outcome: { state: 'current' } });
  succeeded(await brvJson(b, ['query', 'deploy blue-green']));
  await writeFile(log, '');
  t.deepEqual(paths(succeeded(await brvJson(b, ['query', 'deploy blue-green'], { env }))).slice(0, 1), ['ops/deploy']);
  t.is(await readFile(log, 'utf8'), '', 'no git process after the fast-forward');

  // Refs packed (git gc): still no process, and packed-refs is remembered by its stamp, not read every time.
  await git(b, 'pack-refs', '--all');
  succeeded(await brvJson(b, ['query', 'deploy blue-green'], { env }));
  succeeded(await brvJson(b, ['query', 'deploy blue-green'], { env }));
  t.is(await readFile(log, 'utf8'), '', 'no git process with packed refs');
  const packed = JSON.parse(await readFile(path.join(b, '.git', 'brv', 'sync', 'arrival.json'), 'utf8')).branches.main;
  t.truthy(packed.localPacked);
  t.is(packed.trackingPacked, packed.localPacked);

  // The remembered answer is a cache: damaged, it is found again (and a moved ref still arrives).
  const state = path.join(b, '.git', 'brv', 'sync', 'arrival.json');
  t.regex(await readFile(state, 'utf8'), /"remote":"origin"/);
  await put(a, 'ops/rollback', rule('Roll back with the previous image tag.'), { title: 'Rollbacks' });
  succeeded(await brvJson(a, ['vc', 'push']));
  await git(b, 'fetch', '-q');
  await writeFile(state, '{"version":1,"branches":{"main":{"config":"x","remote":null}}}\n');
  t.deepEqual(paths(succeeded(await brvJson(b, ['query', 'previous image tag rollback']))).slice(0, 1), ['ops/rollback']);
  await writeFile(state, '\u0000garbage');
  t.true(succeeded(await brvJson(b, ['ls'])).topics.includes('ops/rollback'));
});

test('the dashboard: a git fetch by another process is a live event, and the next read of the API answers from the fetched knowledge', async (t) => {
  const { a, b } = await teammates();
  await git(b, 'fetch', '-q');
  succeeded(await brvJson(b, ['ls'])); // B's brv branch starts at origin's
  const server = await startFor(b);
  try {
    const get = (p: string) => request(server.port, { path: p, headers: session(server) });
    t.is((await get('/api/topic?path=security/auth')).status, 200);
    const events = await openEvents(server.port, { headers: session(server) });
    try {
      await put(a, 'ops/deploy', rule('Deploy blue-green.'), { title: 'Deploys' });
      succeeded(await brvJson(a, ['vc', 'push']));
      await git(b, 'fetch', '-q');
      const [moved] = await events.next(1, 10_000);
      t.regex(moved!.data, /"kind":"remote"/);
      const topic = await get('/api/topic?path=ops/deploy');
      t.is(topic.status, 200);
      t.regex(topic.json.raw, /blue-green/);
      t.is(await refTip(b), await refTip(a));
    } finally {
      events.close();
    }
  } finally {
    await server.close();
  }
});
