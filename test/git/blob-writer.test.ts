import test from 'ava';
import { execa } from 'execa';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitRepository } from '../../src/git/repository.js';
import { ENV, git, makeRepo } from '../helpers/repo.js';
import { testProcesses } from '../helpers/processes.js';

test('the blob writer streams blobs into one pack; each id is the one git gives, returned as it is written', async (t) => {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const writer = g.blobWriter();
  const contents = Array.from({ length: 3000 }, (_, i) => `<bv-topic path="d/t${i}" title="ünï ${i}">${'x'.repeat(i % 700)}</bv-topic>\n`);
  const oids: string[] = [];
  for (const content of contents) oids.push(await writer.write(content));
  await writer.close();
  for (const i of [0, 1, 1234, 2999]) {
    t.is(oids[i], await hashObject(repo, contents[i]!));
    t.is(await git(repo, 'cat-file', 'blob', oids[i]!), contents[i]!.trimEnd());
  }
  t.is((await readdir(path.join(repo, '.git', 'objects', 'pack'))).filter((f) => f.endsWith('.pack')).length, 1);
  t.deepEqual(await g.writeBlobs(contents.slice(0, 3)), oids.slice(0, 3));
});

test('a git that fails makes the blob writer throw, never hang', async (t) => {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  // fast-import cannot write its pack: a file where its folder should be. Done before the writer
  // starts its git (removing the folder under a running fast-import raced it: ENOTEMPTY).
  const pack = path.join(repo, '.git', 'objects', 'pack');
  await rm(pack, { recursive: true, force: true });
  await writeFile(pack, 'not a folder');
  const writer = g.blobWriter();
  const big = 'y'.repeat(1024 * 1024);
  const error = await t.throwsAsync(async () => {
    for (let i = 0; i < 64; i++) await writer.write(`${big}${i}`);
    await writer.close();
  });
  t.regex(String(error?.message), /fast-import/);
});

async function hashObject(repo: string, content: string): Promise<string> {
  return (await execa('git', ['hash-object', '--stdin'], { cwd: repo, env: ENV, extendEnv: false, input: content })).stdout.trim();
}
