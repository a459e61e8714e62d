import test from 'ava';
import { execa } from 'execa';
import { chmod, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError, isBrvError } from '../../src/base/errors.js';
import { readLocalFile, readLocalFileSync, writeLocalFile, writeLocalFileSync } from '../../src/store/local-file.js';
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
  const blocked = await t.throwsAsync(writeLocalFile(file, 'data'), { instanceOf: Error, message: /Cannot write .*\(E(EXIST|NOTDIR)\)/ });
  t.true(blocked!.message.includes(`remove ${path.join(root, 'cache')} and run the command again`), 'names what is in the way');
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
    await t.throwsAsync(writeLocalFile(file, 'x'), { message: /permission denied \(EACCES\): .* is not writable by the user running brv/ });
    await chmod(dir, 0o700);
  }
  await cleanup(dir);
});

test('writeLocalFile writes data given as chunks whole, asks for them again on a repair, and passes a BrvError from them through', async (t) => {
  const dir = await tempDir();
  const root = path.join(dir, 'brv');
  const file = path.join(root, 'index', 'segment');
  await mkdir(file, { recursive: true }); // in the way: removed, then the chunks are asked for again
  let calls = 0;
  const chunks = function* () {
    calls++;
    yield Buffer.from('one ');
    yield Buffer.alloc(3 << 20, 'x'); // bigger than one write
    yield Buffer.from(' two');
  };
  await writeLocalFile(file, chunks, { repair: root });
  t.is(calls, 2);
  const written = await readFile(file, 'utf8');
  t.is(written.length, 4 + (3 << 20) + 4);
  t.true(written.startsWith('one xxx') && written.endsWith('xxx two'));

  const damaged = function* () {
    yield Buffer.from('half');
    throw new BrvError('index-corrupt', 'a damaged source');
  };
  await t.throwsAsync(writeLocalFile(file, damaged), { instanceOf: BrvError, message: 'a damaged source' });
  t.like(await t.throwsAsync(writeLocalFile(file, damaged)), { kind: 'index-corrupt' });
  t.is((await readFile(file)).length, written.length, 'the file is untouched');
  t.deepEqual(await temporaries(path.dirname(file)), []);
  await cleanup(dir);
});

test('writeLocalFileSync: folder made on demand, planted links replaced, not followed, typed errors, no temporary file left', async (t) => {
  const dir = await tempDir();
  const victim = path.join(dir, 'victim');
  await writeFile(victim, 'untouched');
  const file = path.join(dir, 'cache', 'ab', 'entry');
  writeLocalFileSync(file, 'first\n');
  t.is(await readFile(file, 'utf8'), 'first\n');
  await cleanup(file);
  await symlink(victim, file);
  writeLocalFileSync(file, Buffer.from('second\n'), { durable: true });
  t.is(await readFile(victim, 'utf8'), 'untouched');
  t.is(await readFile(file, 'utf8'), 'second\n');
  t.deepEqual(await temporaries(path.dirname(file)), []);

  // a directory in the file's place: corrupt-local-state, nothing repaired, the temporary file removed
  await cleanup(file);
  await mkdir(path.join(file, 'inside'), { recursive: true });
  const error = t.throws(() => writeLocalFileSync(file, 'x', { fix: 'delete the cache' }));
  t.true(isBrvError(error));
  t.like(error, { kind: 'corrupt-local-state' });
  t.regex(error!.message, /delete the cache/);
  t.deepEqual(await temporaries(path.dirname(file)), []);
  // a file where the folder goes
  await writeFile(path.join(dir, 'blocked'), 'x');
  t.like(
    t.throws(() => writeLocalFileSync(path.join(dir, 'blocked', 'ab', 'entry'), 'x')),
    { kind: 'corrupt-local-state' },
  );
  t.is(await readFile(path.join(dir, 'blocked'), 'utf8'), 'x');
  await cleanup(dir);
});
