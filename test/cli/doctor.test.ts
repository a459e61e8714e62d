import test from 'ava';
import { execa } from 'execa';
import { mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { plantTree } from '../helpers/plant.js';
import { brv, brvJson, cleanup, makeRepo, tempDir } from '../helpers/repo.js';

type Check = { name: string; status: 'ok' | 'warn' | 'fail'; message: string; fix?: string };
const byName = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.name, c]));

test('doctor: each problem comes with its fix, and fixing it turns the check green', async (t) => {
  const repo = await makeRepo();
  const fresh = await brvJson(repo, ['doctor']);
  t.is(fresh.exitCode, 1);
  let checks = byName(fresh.json!.data.checks);
  t.like(checks['git'], { status: 'ok' });
  t.like(checks['context tree'], { status: 'fail', fix: 'brv init' });
  t.like(checks['hooks'], { status: 'warn', fix: 'brv hooks install' });
  t.like(checks['connectors'], { status: 'warn' });
  t.regex(checks['sync']!.fix!, /brv vc remote add origin/);

  t.is((await brvJson(repo, ['init'])).exitCode, 0);
  t.is((await brvJson(repo, ['hooks', 'install'])).exitCode, 0);
  t.is((await brvJson(repo, ['connectors', 'install', 'claude-code', '--type', 'mcp'])).exitCode, 0);
  const after = await brvJson(repo, ['doctor']);
  t.is(after.exitCode, 0, after.stdout);
  checks = byName(after.json!.data.checks);
  t.like(checks['context tree'], { status: 'ok' });
  t.regex(checks['connectors']!.message, /Claude Code \(mcp\)/);
  t.like(checks['search index'], { status: 'ok' });
  const text = await brv(repo, ['doctor']);
  t.regex(text.stdout, /✓ context tree/);
  t.regex(text.stdout, /brv is ready/);
});

test('doctor outside a repository still checks git and says what to do', async (t) => {
  const dir = await tempDir();
  const run = await brvJson(dir, ['doctor']);
  t.is(run.exitCode, 1);
  const checks = byName(run.json!.data.checks);
  t.like(checks['git'], { status: 'ok' });
  t.like(checks['repository'], { status: 'fail' });
  t.regex(checks['repository']!.fix!, /git init/);
});

test('doctor names special files planted in local state, with the fix, and does not hang on them', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  t.is((await brvJson(repo, ['init'])).exitCode, 0);
  const state = path.join(repo, '.git', 'brv');
  await mkdir(path.join(state, 'tmp'), { recursive: true });
  await execa('mkfifo', [path.join(state, 'tmp', 'planted')]);
  await mkdir(path.join(state, 'sync'), { recursive: true });
  await symlink('/dev/zero', path.join(state, 'sync', 'zero'));
  const run = await brvJson(repo, ['doctor'], { timeout: 30_000 });
  t.is(run.exitCode, 1, run.stdout);
  const problems = (run.json!.data.checks as Check[]).filter((c) => c.name === 'local state');
  t.deepEqual(
    problems.map((c) => c.status),
    ['fail', 'fail'],
  );
  t.true(problems.some((c) => /planted is a FIFO/.test(c.message) && /^rm /.test(c.fix!)));
  t.true(problems.some((c) => /zero is a symbolic link/.test(c.message)));

  await rm(path.join(state, 'tmp', 'planted'));
  await rm(path.join(state, 'sync', 'zero'));
  const fixed = byName((await brvJson(repo, ['doctor'])).json!.data.checks);
  t.like(fixed['local state'], { status: 'ok' });
});

test('doctor names topics that search and read skip (planted by plain git), and the named fix clears them', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  t.is((await brvJson(repo, ['init'])).exitCode, 0);
  const deep = `<bv-topic path="x/deep" title="Deep"><bv-highlights>${'<span>'.repeat(2000)}x</bv-highlights></bv-topic>`;
  await plantTree(repo, { 'x/deep.html': deep, 'x/junk.html': 'not a topic at all' });
  const run = await brvJson(repo, ['doctor'], { timeout: 30_000 });
  const topics = (run.json!.data.checks as Check[]).filter((c) => c.name === 'topics');
  t.deepEqual(
    topics.map((c) => c.status),
    ['warn', 'warn'],
    run.stdout,
  );
  const deepCheck = topics.find((c) => /x\/deep\.html/.test(c.message))!;
  t.regex(deepCheck.message, /too-deep/);
  t.true(topics.some((c) => /x\/junk\.html.*not-a-topic/.test(c.message)));
  for (const check of topics) {
    const fix = check.fix!.match(/^brv (rm \S+)/)!;
    const removed = await brvJson(repo, fix[1]!.split(' '));
    t.is(removed.exitCode, 0, removed.stdout);
  }
  const after = byName((await brvJson(repo, ['doctor'])).json!.data.checks);
  t.like(after['topics'], { status: 'ok' });
});
