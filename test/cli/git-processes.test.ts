import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, brvJson, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

// Which git processes a command starts, counted through a git on PATH that logs its subcommand.
// A write moves the brv tip; the command after it still finds the tip without `git rev-parse`,
// because the write told the remembered discovery where it moved it (src/git/discovery-cache.ts).

async function loggingPath(): Promise<{ env: Record<string, string>; calls: () => Promise<string[]> }> {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = await tempDir();
  const log = path.join(bin, 'calls.log');
  await writeFile(log, '');
  // brv runs `git --git-dir=… <subcommand>`: log the first argument that is not an option.
  await writeFile(
    path.join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do case "$a" in -*) ;; *) echo "$a" >> "${log}"; break ;; esac; done\nexec "${realGit}" "$@"\n`,
    { mode: 0o755 },
  );
  return {
    env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
    calls: async () => {
      const calls = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
      await writeFile(log, '');
      return calls;
    },
  };
}

const topic = (n: number) => reply(`notes/n${n}`, `Note ${n}`, `<bv-rule severity="must">Note number ${n} about tokens.</bv-rule>`);

test('after a curate, the next query and the next curate find the brv tip without git rev-parse, and see the new tip', async (t) => {
  const repo = await makeRepo();
  const { env, calls } = await loggingPath();
  const curate = async (n: number) => {
    const start = await brvJson(repo, ['curate', 'record a note'], { env });
    const done = await brvJson(repo, ['curate', '--session', start.json!.data.sessionId, '--response', topic(n)], { env });
    t.is(done.json?.data.status, 'done');
  };
  // The first commands ask git: there is no brv branch to remember before the first curate.
  await curate(1);
  await brvJson(repo, ['query', 'tokens'], { env });
  t.true((await calls()).includes('rev-parse'));

  await curate(2);
  t.false((await calls()).includes('rev-parse'), 'a curate after a curate');
  const query = await brvJson(repo, ['query', 'tokens', '--limit', '5'], { env });
  t.false((await calls()).includes('rev-parse'), 'a query after a curate');
  t.deepEqual(query.json!.data.matchedDocs.map((d: { topicPath: string }) => d.topicPath).sort(), ['notes/n1', 'notes/n2']);

  // Moved by something else (git itself): the remembered tip no longer matches, git is asked.
  const tip = (await git(repo, 'rev-parse', 'refs/brv/heads/main')).trim();
  await git(repo, 'update-ref', 'refs/brv/heads/main', `${tip}~1`);
  const after = await brvJson(repo, ['query', 'tokens', '--limit', '5'], { env });
  t.true((await calls()).includes('rev-parse'));
  t.deepEqual(
    after.json!.data.matchedDocs.map((d: { topicPath: string }) => d.topicPath),
    ['notes/n1'],
  );
  t.is((await brv(repo, ['status'], { env })).exitCode, 0);
});
