import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { brv, brvJson, CLI, ENV, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

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

test('under ulimit -n 20 every command answers with a typed error or succeeds: a git that could not start is never used', async (t) => {
  const repo = await makeRepo();
  const file = path.join(await tempDir(), 'topic.html');
  await writeFile(file, '<bv-topic path="ops/deploy" title="Deploys"><bv-rule id="r1">Deploy blue green.</bv-rule></bv-topic>');
  t.is((await brvJson(repo, ['curate', '--html-file', file])).exitCode, 0);
  const commands = [['status'], ['query', 'deploy'], ['read', 'ops/deploy'], ['curate', '--html-file', file, '--overwrite'], ['vc', 'log']];
  const kinds = new Set<string>();
  for (const limit of [20, 26]) {
    for (const args of commands) {
      const run = await execa('bash', ['-c', 'ulimit -n "$0" && exec node "$@"', String(limit), CLI, ...args, '--format', 'json'], {
        cwd: repo,
        env: ENV,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 20_000,
      });
      const where = `ulimit -n ${limit}: brv ${args.join(' ')} (exit ${run.exitCode}): ${run.stdout} ${run.stderr}`;
      t.false(run.timedOut, where);
      const envelope = JSON.parse(run.stdout);
      const kind: string = envelope.success ? 'success' : (envelope.data.error?.kind ?? envelope.data.errors?.[0]?.kind);
      t.not(kind, 'internal-error', where);
      t.true(kind === 'success' || kind === 'too-many-open-files', where);
      if (kind === 'too-many-open-files') t.regex(envelope.data.error.message, /ulimit -n/, where);
      t.is(run.exitCode, kind === 'success' ? 0 : 1, where);
      t.notRegex(run.stderr, /Unhandled|TypeError/, where);
      kinds.add(kind);
    }
  }
  t.true(kinds.has('too-many-open-files'), 'the limit was low enough to refuse a git process');
});
