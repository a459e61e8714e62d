import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deleteFile, readInputFile } from '../../src/curate/response-file.js';
import { tempDir } from '../helpers/repo.js';

test('deleteFile reports a failure as a message instead of throwing', async (t) => {
  const dir = await tempDir();
  t.regex((await deleteFile(path.join(dir, 'gone.json')))!, /ENOENT/);
  const file = path.join(dir, 'here.json');
  await writeFile(file, '{}');
  t.is(await deleteFile(file), undefined);
});

test('readInputFile enforces its size limit before reading', async (t) => {
  const dir = await tempDir();
  const file = path.join(dir, 'x.json');
  await writeFile(file, 'x'.repeat(101));
  const result = await readInputFile(file, 100);
  t.false(result.ok);
  t.is(!result.ok && result.kind, 'too-large');
  t.deepEqual(await readInputFile(file, 1000), { ok: true, text: 'x'.repeat(101) });
});
