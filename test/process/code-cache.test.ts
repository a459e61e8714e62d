import test from 'ava';
import { execa } from 'execa';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { copyBuiltCli, ENV, ROOT, tempDir } from '../helpers/repo.js';

/**
 * The launcher's V8 code cache (src/cli/launcher.ts) is an optimisation only: whatever state the
 * cache is in, brv runs. Each test runs its own copy of the built CLI, so the cache it sees is its own.
 */
async function install() {
  const dir = await copyBuiltCli();
  const home = await tempDir('brv-cache-home-');
  const run = (env: Record<string, string> = {}, args = ['--version']) =>
    execa('node', [path.join(dir, 'cli/main.js'), ...args], {
      env: { ...ENV, XDG_CACHE_HOME: home, BRV_TRACE: '1', ...env },
      reject: false,
    });
  const local = path.join(dir, 'app/.code-cache');
  const files = async (cacheDir: string) => (await readdir(cacheDir).catch(() => [] as string[])).sort();
  return { dir, home, run, local, files };
}

const cacheState = (stderr: string) => /code cache (\w+)/.exec(stderr)?.[1];

test('the first run writes the cache next to the bundle and later runs use it', async (t) => {
  const { run, local, files } = await install();
  const first = await run();
  t.is(first.stdout, JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')).version);
  t.is(cacheState(first.stderr), 'miss');
  t.is((await files(local)).length, 1);
  t.is(cacheState((await run()).stderr), 'hit');
});

test('concurrent first runs each succeed and leave one whole cache file', async (t) => {
  const { run, local, files } = await install();
  const runs = await Promise.all(Array.from({ length: 6 }, () => run()));
  t.true(runs.every((r) => r.exitCode === 0));
  const written = await files(local);
  t.is(written.length, 1, written.join(', '));
  t.is(cacheState((await run()).stderr), 'hit');
});

test('where the bundle directory cannot hold it, the cache goes to XDG_CACHE_HOME; where neither can, brv runs without', async (t) => {
  const { run, local, home, files } = await install();
  await writeFile(local, 'not a directory');
  t.is(cacheState((await run()).stderr), 'miss');
  t.is((await files(path.join(home, 'brv'))).length, 1);
  t.is(cacheState((await run()).stderr), 'hit');
  const nowhere = await run({ XDG_CACHE_HOME: path.join(local, 'x'), HOME: path.join(local, 'y') });
  t.is(nowhere.exitCode, 0);
  t.is(cacheState(nowhere.stderr), 'miss');
});

test('a damaged cache is ignored and replaced; BRV_CODE_CACHE=0 turns it off', async (t) => {
  const { run, local, files } = await install();
  await run();
  const [name] = await files(local);
  const file = path.join(local, name!);
  const data = await readFile(file);
  // Bytes flipped inside V8's data: V8 would run (or crash on) it; the CRC-32 catches it.
  for (let i = data.length - 1; i > data.length / 2; i -= 997) data[i]! ^= 0x5a;
  await writeFile(file, data);
  const damaged = await run();
  t.is(damaged.exitCode, 0);
  t.is(cacheState(damaged.stderr), 'miss');
  t.is(cacheState((await run()).stderr), 'hit');
  await writeFile(file, data.subarray(0, 1000));
  t.is((await run()).exitCode, 0);
  t.is(cacheState((await run({ BRV_CODE_CACHE: '0' })).stderr), 'off');
});

test('each command and other V8 flags get their own cache; a failed run writes none', async (t) => {
  const { run, local, files } = await install();
  await run();
  t.is(cacheState((await run({ NODE_OPTIONS: '--max-old-space-size=200' })).stderr), 'miss');
  t.is((await files(local)).length, 2);
  t.is((await run({}, ['frobnicate'])).exitCode, 2);
  t.is((await files(local)).length, 2);
  t.is((await run({}, ['query', '--help'])).exitCode, 0);
  t.is((await files(local)).length, 3);
  t.is(cacheState((await run({}, ['query', '--help'])).stderr), 'hit');
});
