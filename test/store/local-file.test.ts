import test from 'ava';
import { execa } from 'execa';
import { chmod, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isBrvError } from '../../src/errors.js';
import { readLocalFile, readLocalFileSync, writeLocalFile } from '../../src/store/local-file.js';
import { cleanup, tempDir } from '../helpers/repo.js';

const temporaries = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.tmp'));

test('writeLocalFile replaces a planted link or FIFO instead of writing through it, and leaves no temporary file', async (t) => {
  const dir = await tempDir();
  const victim = path.join(dir, 'victim');
  await writeFile(victim, 'untouched');
  const file = path.join(dir, 'state', 'file');
  await mkdir(path.dirname(file));
  // the destination is a link, and the names earlier versions used for their temporary files too
  await symlink(victim, file);
  await symlink(victim, `${file}.${process.pid}.tmp`);
  await writeLocalFile(file, 'new\n');
  t.is(await readFile(victim, 'utf8'), 'untouched');
  t.is(await readFile(file, 'utf8'), 'new\n');
  t.is((await readLocalFile(file, 100))!.toString(), 'new\n');
  t.deepEqual(await temporaries(path.dirname(file)), [`file.${process.pid}.tmp`]);

  const fifo = path.join(dir, 'state', 'fifo');
  await execa('mkfifo', [fifo]);
  await t.throwsAsync(readLocalFile(fifo, 100), { message: /is not a regular file/ });
  t.throws(() => readLocalFileSync(fifo, 100), { message: /is not a regular file/ });
  await writeLocalFile(fifo, 'replaced');
  t.is(await readFile(fifo, 'utf8'), 'replaced');
  await cleanup(dir);
});

test("writeLocalFile: a directory in the file's place or a file in its folder's is a typed error, or repaired for caches", async (t) => {
  const dir = await tempDir();
  const root = path.join(dir, 'brv');
  const file = path.join(root, 'cache', 'x', 'file');
  await mkdir(file, { recursive: true });
  await writeFile(path.join(file, 'inside'), 'x');
  const error = await t.throwsAsync(writeLocalFile(file, 'data', { fix: 'remove it, then run brv vc checkout main' }));
  t.true(isBrvError(error));
  t.like(error, { kind: 'corrupt-local-state' });
  t.regex(error!.message, /remove it, then run brv vc checkout main/);
  t.deepEqual(await temporaries(path.dirname(file)), [], 'the temporary file is removed when the rename fails');
  await writeLocalFile(file, 'data', { repair: root });
  t.is(await readFile(file, 'utf8'), 'data');

  await cleanup(path.join(root, 'cache'));
  await writeFile(path.join(root, 'cache'), 'a file where a folder goes');
  await t.throwsAsync(writeLocalFile(file, 'data'), { instanceOf: Error, message: /Cannot write .*\(E(EXIST|NOTDIR)\)/ });
  await writeLocalFile(file, 'data', { repair: root });
  t.is(await readFile(file, 'utf8'), 'data');
  // repair never touches anything above its root
  await writeFile(path.join(dir, 'above'), 'x');
  await t.throwsAsync(writeLocalFile(path.join(dir, 'above', 'f'), 'data', { repair: root }), { message: /Cannot write/ });
  t.is(await readFile(path.join(dir, 'above'), 'utf8'), 'x');
  await cleanup(dir);
});

test('writeLocalFile gives each write its own temporary name, so concurrent writers in one process never collide', async (t) => {
  const dir = await tempDir();
  const file = path.join(dir, 'file');
  await Promise.all(Array.from({ length: 20 }, (_, i) => writeLocalFile(file, `writer ${i}\n`)));
  t.regex(await readFile(file, 'utf8'), /^writer \d+\n$/);
  t.deepEqual(await temporaries(dir), []);
  if (process.getuid?.() !== 0) {
    // an unwritable folder: local-state-unwritable, nothing left behind
    await chmod(dir, 0o500);
    await t.throwsAsync(writeLocalFile(file, 'x'), { message: /Check the permissions/ });
    await chmod(dir, 0o700);
  }
  await cleanup(dir);
});
