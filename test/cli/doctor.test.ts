import test from 'ava';
import { brv, brvJson, makeRepo, tempDir } from '../helpers/repo.js';

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
