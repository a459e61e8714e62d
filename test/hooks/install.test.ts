import test from 'ava';
import { access, chmod, constants, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  BLOCK_END,
  BLOCK_START,
  findBlock,
  hookInterpreter,
  hookStatus,
  insertBlock,
  installHook,
  removeBlock,
  renderBlock,
  uninstallHook,
} from '../../src/setup/hooks/install.js';
import { HOOK_NAMES, hookBody } from '../../src/setup/hooks/scripts.js';
import { ROOT, tempDir } from '../helpers/repo.js';

const executable = (file: string) =>
  access(file, constants.X_OK).then(
    () => true,
    () => false,
  );

test('shipped hook bodies are ASCII, have no top-level exit and end with the saved status', async (t) => {
  for (const name of HOOK_NAMES) {
    const body = await hookBody(name);
    t.true(/^[\x09\x0a\x20-\x7e]*$/.test(body), name);
    t.false(body.includes(BLOCK_START) || body.includes(BLOCK_END), name);
    t.regex(body, /^__brv_rc=\$\?$/m, name);
    t.true(body.trimEnd().endsWith('(exit "$__brv_rc")'), name);
    // the block never exits at top level: the user's content around it must still run
    t.deepEqual(
      body.split('\n').filter((line) => /^[^\s#(].*\bexit\b/.test(line)),
      [],
      name,
    );
  }
});

test('insertBlock and removeBlock round-trip any content exactly', (t) => {
  const block = renderBlock('echo brv\n');
  const originals = [
    '#!/bin/sh\necho user\n',
    '#!/bin/sh\necho user',
    '#!/bin/bash\nset -e\nnpx lint-staged\n\n\n',
    '#!/bin/sh\necho user\nexit 0\n',
    '#!/bin/sh\necho user\nexit 0',
    'echo no shebang\r\n',
    '#!/bin/sh\n# caf\xe9 \xff\xfe invalid utf-8 kept as bytes\n',
  ];
  for (const original of originals) {
    const installed = insertBlock(original, block);
    t.true(installed.includes(`${block}\n`) || installed.endsWith(block), JSON.stringify(original));
    t.is(removeBlock(installed), original, JSON.stringify(original));
    t.is(insertBlock(installed, block), installed, 're-insert is stable');
    const replaced = insertBlock(installed, renderBlock('echo newer\n'));
    t.is(removeBlock(replaced), original);
    t.is(findBlock(replaced)?.body, 'echo newer\n');
  }
  // a final `exit 0` would skip an appended block: the block goes before it
  t.is(insertBlock('#!/bin/sh\nrun\nexit 0\n', block), `#!/bin/sh\nrun\n${block}\nexit 0\n`);
  // `exit $?` keeps the previous command's status: never put anything before it
  t.is(insertBlock('#!/bin/sh\nrun\nexit $?\n', block), `#!/bin/sh\nrun\nexit $?\n${block}\n`);
});

test('hookInterpreter reads the shebang, through env, and treats a missing one as sh', (t) => {
  t.is(hookInterpreter('#!/bin/sh\n'), 'sh');
  t.is(hookInterpreter('#!/usr/bin/env bash\n'), 'bash');
  t.is(hookInterpreter('#! /usr/bin/env -S zsh -f\n'), 'zsh');
  t.is(hookInterpreter('#!/usr/bin/env FOO=1 dash\n'), 'dash');
  t.is(hookInterpreter('#!/usr/bin/python3\nimport sys\n'), 'python3');
  t.is(hookInterpreter('#!/usr/bin/env node\n'), 'node');
  t.is(hookInterpreter('npx lint-staged\n'), 'sh');
  t.is(hookInterpreter('\x7fELF\x02\x01\x01\x00\x00\x00'), 'binary');
});

test('install creates, chains and updates shell hooks; status follows', async (t) => {
  const dir = path.join(await tempDir(), 'hooks');
  const body = await hookBody('pre-commit');
  t.like(await hookStatus(dir, 'pre-commit', body), { state: 'not-installed', exists: false });

  const created = await installHook(dir, 'pre-commit', body);
  t.like(created, { action: 'created', path: path.join(dir, 'pre-commit') });
  const content = await readFile(created.path, 'utf8');
  t.true(content.startsWith(`#!/bin/sh\n${BLOCK_START}\n`));
  t.true(content.endsWith(`${BLOCK_END}\n`));
  t.true(await executable(created.path));
  t.like(await hookStatus(dir, 'pre-commit', body), { state: 'installed', executable: true, interpreter: 'sh' });
  t.like(await installHook(dir, 'pre-commit', body), { action: 'unchanged' });

  // a block from an older brv is outdated and replaced in place
  await writeFile(created.path, content.replace('__brv_rc=$?', '__brv_rc=$?\necho old'));
  t.like(await hookStatus(dir, 'pre-commit', body), { state: 'outdated' });
  t.like(await installHook(dir, 'pre-commit', body), { action: 'updated' });
  t.is(await readFile(created.path, 'utf8'), content);

  t.like(await uninstallHook(dir, 'pre-commit'), { action: 'deleted' });
  await t.throwsAsync(stat(created.path));
  t.like(await uninstallHook(dir, 'pre-commit'), { action: 'not-installed' });
});

test('every hook body brv has shipped (fixtures/hooks) is outdated, upgraded in place and removed exactly', async (t) => {
  const shipped = path.join(ROOT, 'fixtures', 'hooks');
  const versions = (await readdir(shipped, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  t.true(versions.length > 0);
  for (const version of versions) {
    for (const name of HOOK_NAMES) {
      const old = await readFile(path.join(shipped, version, name), 'latin1');
      const current = await hookBody(name);
      t.not(old, current, `${version}/${name} is a body brv no longer writes`);
      const dir = await tempDir();
      const file = path.join(dir, name);
      const mine = '#!/bin/sh\necho mine\n';
      await writeFile(file, insertBlock(mine, renderBlock(old)), 'latin1');
      t.like(await hookStatus(dir, name, current), { state: 'outdated' }, `${version}/${name}`);
      t.like(await installHook(dir, name, current), { action: 'updated' }, `${version}/${name}`);
      t.is(await readFile(file, 'latin1'), insertBlock(mine, renderBlock(current)), `${version}/${name}`);
      await writeFile(file, insertBlock(mine, renderBlock(old)), 'latin1');
      t.like(await uninstallHook(dir, name), { action: 'removed' }, `${version}/${name}`);
      t.is(await readFile(file, 'latin1'), mine, `${version}/${name}`);
    }
  }
});

test('an existing shell hook keeps its bytes and its mode; uninstall restores it exactly', async (t) => {
  const dir = await tempDir();
  const file = path.join(dir, 'post-merge');
  const original = Buffer.concat([
    Buffer.from('#!/usr/bin/env bash\n# \xe9\n', 'latin1'),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('\necho mine'),
  ]);
  await writeFile(file, original);
  await chmod(file, 0o750);
  const body = await hookBody('post-merge');
  t.like(await hookStatus(dir, 'post-merge', body), { state: 'not-installed', exists: true, interpreter: 'bash' });
  t.like(await installHook(dir, 'post-merge', body), { action: 'added' });
  const installed = await readFile(file);
  t.true(installed.subarray(0, original.length).equals(original));
  t.is((await stat(file)).mode & 0o777, 0o750);
  t.like(await hookStatus(dir, 'post-merge', body), { state: 'installed' });
  t.like(await uninstallHook(dir, 'post-merge'), { action: 'removed' });
  t.true((await readFile(file)).equals(original));
});

test('non-shell hooks, symlinks and broken blocks are never edited', async (t) => {
  const dir = await tempDir();
  const body = await hookBody('pre-commit');
  const python = '#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n';
  await writeFile(path.join(dir, 'pre-commit'), python, { mode: 0o755 });
  const skipped = await installHook(dir, 'pre-commit', body);
  t.like(skipped, { action: 'skipped', chain: 'brv hooks run pre-commit' });
  t.regex(skipped.reason!, /python3/);
  t.is(await readFile(path.join(dir, 'pre-commit'), 'utf8'), python);
  t.like(await hookStatus(dir, 'pre-commit', body), { state: 'foreign', interpreter: 'python3' });
  t.like(await uninstallHook(dir, 'pre-commit'), { action: 'not-installed' });

  // a non-shell hook that calls brv itself counts as installed and is left for the user to edit
  const chained = `${python}import subprocess\nsubprocess.call(["brv", "hooks", "run", "pre-commit"])\n`;
  await writeFile(path.join(dir, 'pre-commit'), chained);
  t.like(await hookStatus(dir, 'pre-commit', body), { state: 'installed' });
  t.like(await installHook(dir, 'pre-commit', body), { action: 'unchanged' });
  t.like(await uninstallHook(dir, 'pre-commit'), { action: 'skipped' });
  t.is(await readFile(path.join(dir, 'pre-commit'), 'utf8'), chained);

  const shared = path.join(dir, 'shared-hook');
  await writeFile(shared, '#!/bin/sh\necho shared\n', { mode: 0o755 });
  await symlink(shared, path.join(dir, 'post-merge'));
  t.like(await installHook(dir, 'post-merge', await hookBody('post-merge')), { action: 'skipped' });
  t.is(await readFile(shared, 'utf8'), '#!/bin/sh\necho shared\n');

  const broken = `#!/bin/sh\n${BLOCK_START}\necho half a block\n`;
  await writeFile(path.join(dir, 'post-checkout'), broken, { mode: 0o755 });
  t.like(await installHook(dir, 'post-checkout', await hookBody('post-checkout')), { action: 'skipped' });
  t.like(await uninstallHook(dir, 'post-checkout'), { action: 'skipped' });
  t.is(await readFile(path.join(dir, 'post-checkout'), 'utf8'), broken);
  t.like(await hookStatus(dir, 'post-checkout', await hookBody('post-checkout')), { state: 'outdated' });
});

test('install notes a hook git will not run, and an early exit that skips the block', async (t) => {
  const dir = await tempDir();
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'pre-commit'), '#!/bin/sh\necho mine\n', { mode: 0o644 });
  const change = await installHook(dir, 'pre-commit', await hookBody('pre-commit'));
  t.like(change, { action: 'added' });
  t.regex(change.note!, /not executable/);
  t.false(await executable(path.join(dir, 'pre-commit')));
  await writeFile(path.join(dir, 'post-merge'), '#!/bin/sh\nexit 1\necho never\n', { mode: 0o755 });
  t.regex((await installHook(dir, 'post-merge', await hookBody('post-merge'))).note!, /exit/);
});
