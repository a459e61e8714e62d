import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, curateTopic, makeRepo, reply, tempDir } from '../helpers/repo.js';

// A warm query starts no process (the discovery cache answers for git), so it must not pay for
// loading Node's process machinery either: node:child_process brings dgram (and net, when stdout is
// not a pipe) with it, 1–3 ms of every command on a slow machine (docs/archive/bench-notebook-2026.md, "Warm path, round 2").

/** A preload that prints, at exit, the Node built-ins the process loaded after it started. */
async function builtinLogger(): Promise<string> {
  const file = path.join(await tempDir(), 'log-builtins.cjs');
  await writeFile(
    file,
    [
      'const before = new Set(process.moduleLoadList);',
      "process.on('exit', () => {",
      "  const loaded = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule '));",
      "  require('node:fs').writeSync(2, loaded.map((m) => 'BUILTIN ' + m.slice(13) + '\\n').join(''));",
      '});',
    ].join('\n'),
  );
  return file;
}

async function tracedQuery(repo: string, logger: string) {
  const run = await brv(repo, ['query', 'tokens signed', '--format', 'json'], { env: { NODE_OPTIONS: `--require=${logger}` } });
  return {
    topics: JSON.parse(run.stdout).data.matchedDocs.map((d: { topicPath: string }) => d.topicPath),
    builtins: [...run.stderr.matchAll(/^BUILTIN (\S+)$/gm)].map((m) => m[1]!),
  };
}

test('a warm query loads neither node:child_process nor node:timers/promises; a query that runs git does', async (t) => {
  const repo = await makeRepo();
  await curateTopic(repo, reply('security/jwt', 'JWT signing', '<bv-rule severity="must">Tokens are signed with RS256.</bv-rule>'));
  const logger = await builtinLogger();

  // The first query in this state asks git (discovery, then the object reader for the index build).
  const first = await tracedQuery(repo, logger);
  t.deepEqual(first.topics, ['security/jwt']);
  t.true(first.builtins.includes('child_process'), 'the logger sees child_process when git runs');

  const warm = await tracedQuery(repo, logger);
  t.deepEqual(warm.topics, ['security/jwt']);
  t.true(warm.builtins.length > 0, 'the logger ran');
  t.false(warm.builtins.includes('child_process'), warm.builtins.join(' '));
  t.false(warm.builtins.includes('timers/promises'), warm.builtins.join(' '));
});
