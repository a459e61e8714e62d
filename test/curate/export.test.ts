import test from 'ava';
import { access, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportTree, readTopicBlobs, type ExportFile } from '../../src/byterover/export.js';
import { isBrvError } from '../../src/base/errors.js';
import { internals, openBrv } from '../helpers/service.js';
import { makeRepo, tempDir } from '../helpers/repo.js';

const topic = (p: string, text = 'A rule.') => `<bv-topic path="${p}" title="${p}">\n  <bv-rule>${text}</bv-rule>\n</bv-topic>\n`;
const file = (p: string, text?: string): ExportFile => ({ path: `${p}.html`, content: Buffer.from(topic(p, text)) });

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Every file under `dir`, "/"-separated, sorted. */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return isBrvError(error) ? error.kind : `untyped: ${String(error)}`;
  }
}

test("writes ByteRover's layout: <dir>/.brv/context-tree/<path>.html, bytes as stored", async (t) => {
  const out = path.join(await tempDir(), 'project');
  const files = [file('security/auth'), file('api/errors'), file('a/b/c/d/e')];
  const result = await exportTree(files, out);
  const tree = path.join(out, '.brv', 'context-tree');
  t.deepEqual(result, {
    directory: tree,
    topics: ['a/b/c/d/e', 'api/errors', 'security/auth'],
    replaced: false,
    kept: [],
    caseCollisions: [],
  });
  t.deepEqual(await listing(out), [
    '.brv/context-tree/a/b/c/d/e.html',
    '.brv/context-tree/api/errors.html',
    '.brv/context-tree/security/auth.html',
  ]);
  t.is(await readFile(path.join(tree, 'security', 'auth.html'), 'utf8'), topic('security/auth'));
  // No temporary folder is left next to the tree.
  t.deepEqual(await readdir(path.join(out, '.brv')), ['context-tree']);
});

test('an empty tree exports as an empty folder; an existing empty target is fine', async (t) => {
  const out = await tempDir();
  await mkdir(path.join(out, '.brv', 'context-tree'), { recursive: true });
  const result = await exportTree([], out);
  t.deepEqual(result.topics, []);
  t.deepEqual(await readdir(result.directory), []);
});

test('a non-empty target is refused without force; with force it is replaced and its hidden entries kept', async (t) => {
  const out = await tempDir();
  await exportTree([file('old/one'), file('old/two')], out);
  const tree = path.join(out, '.brv', 'context-tree');
  await mkdir(path.join(tree, '.git', 'refs'), { recursive: true });
  await writeFile(path.join(tree, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(path.join(tree, '.gitignore'), '_index.md\n');
  await writeFile(path.join(tree, 'index.html'), '<bv-index></bv-index>');
  const before = await listing(out);

  t.is(await kindOf(exportTree([file('new/one')], out)), 'export-target-exists');
  t.deepEqual(await listing(out), before, 'a refused export changes nothing');

  const result = await exportTree([file('new/one', 'Fresh.')], out, { force: true });
  t.like(result, { replaced: true, kept: ['.git', '.gitignore'], topics: ['new/one'] });
  t.deepEqual(await listing(out), ['.brv/context-tree/.git/HEAD', '.brv/context-tree/.gitignore', '.brv/context-tree/new/one.html']);
  t.is(await readFile(path.join(tree, 'new', 'one.html'), 'utf8'), topic('new/one', 'Fresh.'));
  t.deepEqual(await readdir(path.join(out, '.brv')), ['context-tree']);
});

test('never writes outside the export folder: every path is checked before anything is created', async (t) => {
  const parent = await tempDir();
  const out = path.join(parent, 'out');
  for (const bad of [
    '../evil.html',
    '../../evil.html',
    '/abs/evil.html',
    'a/../../../evil.html',
    'a/./b.html',
    'a//b.html',
    '.brv/format',
    '.git/config.html',
    'a/b',
    'a\\..\\..\\evil.html',
    '',
  ]) {
    t.is(await kindOf(exportTree([file('ok/fine'), { path: bad, content: 'x' }], out)), 'unsafe-path', bad);
  }
  t.is(await kindOf(exportTree([file('ok/fine'), file('ok/fine')], out)), 'duplicate-path');
  t.false(await exists(out), 'nothing was created');
  t.deepEqual(await readdir(parent), []);
});

test('symlinked .brv or context-tree folders are refused', async (t) => {
  const elsewhere = await tempDir();
  const out = await tempDir();
  await symlink(elsewhere, path.join(out, '.brv'));
  t.is(await kindOf(exportTree([file('a/b')], out)), 'export-target-invalid');
  t.deepEqual(await readdir(elsewhere), []);

  const out2 = await tempDir();
  await mkdir(path.join(out2, '.brv'));
  await symlink(elsewhere, path.join(out2, '.brv', 'context-tree'));
  t.is(await kindOf(exportTree([file('a/b')], out2, { force: true })), 'export-target-invalid');
  t.deepEqual(await readdir(elsewhere), []);

  const out3 = await tempDir();
  await writeFile(path.join(out3, '.brv'), '{"projectRoot": "/somewhere"}');
  t.is(await kindOf(exportTree([file('a/b')], out3)), 'export-target-invalid', 'a worktree pointer file named .brv');
});

test('atomic: a failure while writing leaves the previous tree exactly as it was', async (t) => {
  const out = await tempDir();
  await exportTree([file('old/one')], out);
  const tree = path.join(out, '.brv', 'context-tree');
  await mkdir(path.join(tree, '.git'));
  await writeFile(path.join(tree, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  const before = await listing(out);
  // The third file cannot be written (its content is not bytes): the first two were already staged.
  const broken = { path: 'new/three.html', content: 42 as unknown as string };
  t.is(await kindOf(exportTree([file('new/one'), file('new/two'), broken], out, { force: true })), 'export-write-error');
  t.deepEqual(await listing(out), before);
  t.deepEqual(await readdir(path.join(out, '.brv')), ['context-tree'], 'no temporary folder left behind');
  t.is(await readFile(path.join(tree, 'old', 'one.html'), 'utf8'), topic('old/one'));
});

test('readTopicBlobs: the topic blobs of a brv branch, nothing else', async (t) => {
  const repo = await makeRepo();
  const source = await tempDir();
  await mkdir(path.join(source, 'a'));
  await writeFile(path.join(source, 'a', 'one.html'), topic('a/one'));
  await writeFile(path.join(source, 'two.html'), topic('two'));
  const brv = await openBrv(repo);
  try {
    t.deepEqual(
      await readTopicBlobs(internals(brv).store, await internals(brv).store.snapshot(brv.branch)),
      [],
      'an uninitialized branch has no topics',
    );
    const imported = await brv.knowledge.importTree({ directory: source }, {});
    t.true(imported.ok);
    const blobs = await readTopicBlobs(internals(brv).store, await internals(brv).store.snapshot(brv.branch));
    t.deepEqual(blobs.map((b) => b.path).sort(), ['a/one.html', 'two.html']);
    const out = await tempDir();
    await exportTree(blobs, out);
    for (const blob of blobs) {
      t.deepEqual(await readFile(path.join(out, '.brv', 'context-tree', blob.path)), Buffer.from(blob.content));
    }
  } finally {
    brv.close();
  }
});

test('the exported tree has ordinary permissions, not those of a private temporary folder', async (t) => {
  const out = await tempDir();
  const { directory } = await exportTree([file('a/b')], out);
  const mask = process.umask();
  t.is((await stat(directory)).mode & 0o777, 0o777 & ~mask);
});
