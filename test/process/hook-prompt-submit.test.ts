import test from 'ava';
import { execa } from 'execa';
import { cp, readFile, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, ROOT, brv, brvJson, makeRepo, tempDir } from '../helpers/repo.js';

// Claude Code runs `brv hook-prompt-submit` before every prompt and appends its stdout to the prompt.
// It must print the guide, start nothing heavy, and never fail.

const guide = () => readFile(path.join(ROOT, 'templates/prompt-hook.md'), 'utf8');

test('prints templates/prompt-hook.md and exits 0, with the hook event on stdin', async (t) => {
  const repo = await makeRepo();
  const event = JSON.stringify({ session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'fix the login bug', cwd: repo });
  const result = await brv(repo, ['hook-prompt-submit'], { input: event });
  t.is(result.exitCode, 0);
  t.is(`${result.stdout}\n`, await guide());
  t.is(result.stderr, '');
  const json = await brvJson(repo, ['hook-prompt-submit']);
  t.is(json.exitCode, 0);
  t.deepEqual(json.json!.data, { text: await guide() });
});

test('works outside a repository and without git on PATH (it starts no git)', async (t) => {
  const outside = await tempDir('brv-nowhere-');
  const result = await execa(process.execPath, [CLI, 'hook-prompt-submit'], {
    cwd: outside,
    env: { ...ENV, PATH: '' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  t.is(result.exitCode, 0);
  t.is(`${result.stdout}\n`, await guide());
});

test('is not listed in --help (people do not run it)', async (t) => {
  const help = await brv(ROOT, ['--help']);
  t.false(help.stdout.includes('hook-prompt-submit'));
});

test('a brv installed without its templates prints nothing and still exits 0', async (t) => {
  // A copy of the package with dist/ and package.json but no templates/.
  const copy = await tempDir('brv-package-');
  await cp(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
  // (realpath: under `npm test`, ROOT is the compiled mirror, whose dist/ is a link to the real one)
  await cp(await realpath(path.join(ROOT, 'dist')), path.join(copy, 'dist'), { recursive: true });
  await symlink(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  const result = await execa(process.execPath, [path.join(copy, 'dist/cli/main.js'), 'hook-prompt-submit'], {
    cwd: copy,
    env: ENV,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  t.is(result.exitCode, 0, result.stderr);
  t.is(result.stdout, '');
});
