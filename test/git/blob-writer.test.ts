import test from 'ava';
import { execa } from 'execa';
import { readdir, rm } from 'node:fs/promises';
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
  const writer = g.blobWriter();
  await rm(path.join(repo, '.git', 'objects'), { recursive: true }); // fast-import cannot write its pack
  const big = 'y'.repeat(1024 * 1024);
  await t.throwsAsync(async () => {
    for (let i = 0; i < 64; i++) await writer.write(`${big}${i}`);
    await writer.close();
  });
});

async function hashObject(repo: string, content: string): Promise<string> {
  return (await execa('git', ['hash-object', '--stdin'], { cwd: repo, env: ENV, extendEnv: false, input: content })).stdout.trim();
}
