import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { threeTopics } from '../helpers/knowledge.js';
import { brv, cleanup, ROOT, tempDir } from '../helpers/repo.js';

// The model layer is optional: commands that make no model call must not pay for the ai SDK or any
// provider package, with or without a provider connected.
const app = path.join(ROOT, 'dist', 'app');
const holdsSdk = async (chunk: string) => /AI_APICallError|vercel\.ai\.error/.test(await readFile(path.join(app, chunk), 'utf8'));

test('commands that call no model load no chunk of the ai SDK, with or without a provider connected', async (t) => {
  const repo = await threeTopics();
  t.teardown(() => cleanup(repo));
  const all = (await readdir(app)).filter((file) => file.endsWith('.js'));
  t.true((await Promise.all(all.map(holdsSdk))).some(Boolean), 'no chunk holds the SDK: the marker is wrong');
  const home = await tempDir('brv-user-');
  const connected = { XDG_CONFIG_HOME: path.join(home, '.config') };
  const made = await brv(repo, ['providers', 'connect', 'openai-compatible', '--base-url', 'http://127.0.0.1:9/v1'], { env: connected });
  t.is(made.exitCode, 0, made.stderr);
  const commands: string[][] = [['query', 'session tokens'], ['search', 'deploy'], ['ls'], ['status'], ['providers', 'list']];
  for (const [env, list] of [
    [{}, commands],
    [connected, [...commands, ['model', 'list']]],
  ] as Array<[Record<string, string>, string[][]]>) {
    for (const args of list) {
      const run = await brv(repo, args, { env: { ...env, BRV_TRACE: '1' } });
      t.is(run.exitCode, 0, `${args.join(' ')}: ${run.stderr}`);
      const chunks = [...run.stderr.matchAll(/cli: chunk (\S+)/g)].map((m) => m[1]!);
      t.true(chunks.length > 0, args.join(' '));
      for (const chunk of chunks) t.false(await holdsSdk(chunk), `${args.join(' ')} loads ${chunk}`);
    }
  }
});
