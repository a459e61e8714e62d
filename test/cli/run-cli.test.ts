import test from 'ava';
import { Readable } from 'node:stream';
import { runCli } from '../../src/cli/run.js';
import type { CliIo } from '../../src/cli/io.js';
import { ENV, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

/** An io of strings: what runCli wrote, per run. */
function io(cwd: string, env: Record<string, string> = {}): CliIo & { out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([]),
    env: { ...ENV, ...env },
    cwd,
    home: ENV.HOME!,
    platform: process.platform,
    out: () => stdout,
    err: () => stderr,
  };
}

test('runs at the same time in one process keep their own output, exit code, folder and environment', async (t) => {
  const repo = await makeRepo();
  const elsewhere = await tempDir();
  t.is(await runCli(['init', '--format', 'json'], io(repo)), 0);
  const runs = [io(repo), io(elsewhere), io(repo, { BRV_DEBUG: '1' }), io(elsewhere)];
  const codes = await Promise.all(runs.map((r) => runCli(['status', '--format', 'json'], r)));
  t.deepEqual(codes, [0, 1, 0, 1]);
  for (const [i, r] of runs.entries()) {
    const envelope = JSON.parse(r.out());
    t.is(envelope.success, codes[i] === 0, r.out());
    t.is(r.err(), '');
  }
  t.is(JSON.parse(runs[1]!.out()).data.error.kind, JSON.parse(runs[3]!.out()).data.error.kind);
});

test('git run by a command gets the run’s environment, not the test process’s', async (t) => {
  const repo = await makeRepo();
  const env = { GIT_AUTHOR_NAME: 'Injected Author', GIT_COMMITTER_NAME: 'Injected Committer', BRV_AGENT: 'in-process-agent' };
  t.is(await runCli(['init'], io(repo, env)), 0);
  const kickoff = io(repo, env);
  t.is(await runCli(['curate', 'record it', '--format', 'json'], kickoff), 0);
  const session = JSON.parse(kickoff.out()).data.sessionId;
  t.is(await runCli(['curate', '--session', session, '--response', reply('team/injected'), '--format', 'json'], io(repo, env)), 0);
  const log = await git(repo, 'log', '-1', '--format=%an|%cn|%B', 'refs/brv/heads/main');
  t.true(log.startsWith('Injected Author|Injected Committer|'), log);
  t.regex(log, /Brv-Agent: in-process-agent/);
  t.not(process.env.GIT_AUTHOR_NAME, 'Injected Author');
});
