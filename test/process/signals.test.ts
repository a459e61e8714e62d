import test from 'ava';
import { alive, waitFor } from '../helpers/wait.js';
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { modelEnv, startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { brvJson, cleanup, CLI, ENV, git, makeRepo, refTip, reply, tempDir } from '../helpers/repo.js';

// Signals to a brv process: it stops its git children (and the ssh under them), and a Ctrl-C during
// a self-driven curate leaves nothing written.

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** A repository whose origin is reached through an ssh that never answers (it records its pid, then sleeps). */
async function hangingRemote() {
  const repo = await makeRepo();
  const bin = await tempDir('brv-hang-');
  const pidFile = path.join(bin, 'ssh.pid');
  const ssh = path.join(bin, 'ssh');
  await writeFile(ssh, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 60\n`);
  await chmod(ssh, 0o755);
  await git(repo, 'remote', 'add', 'origin', 'example.com:/srv/project.git');
  await brvJson(repo, ['init']);
  const env = { ...ENV, GIT_SSH_COMMAND: ssh, GIT_SSH_VARIANT: 'simple' };
  return { repo, bin, pidFile, env };
}

async function sshAndGit(pidFile: string): Promise<{ ssh: number; git: number }> {
  t_true(await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 8000), 'ssh started');
  const ssh = Number((await readFile(pidFile, 'utf8')).trim());
  return { ssh, git: parentOf(ssh) };
}

function t_true(value: boolean, message: string) {
  if (!value) throw new Error(message);
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`${signal} to brv sync stops its git fetch and the ssh under it within 2 s`, async (t) => {
    const { repo, bin, pidFile, env } = await hangingRemote();
    t.teardown(() => cleanup(repo, bin));
    const run = execa('node', [CLI, 'sync', '--format', 'json'], { cwd: repo, env, extendEnv: false, reject: false });
    const { ssh, git: gitPid } = await sshAndGit(pidFile);
    t.true(alive(ssh) && alive(gitPid));
    t.regex(readFileSync(`/proc/${gitPid}/cmdline`, 'utf8'), /fetch/);
    run.kill(signal);
    t.true(await waitFor(() => !alive(ssh) && !alive(gitPid), 2000), 'git and ssh are gone');
    const result = await run;
    t.true(result.exitCode !== 0 || result.signal !== undefined);
  });
}

test('when the parent of brv sync goes away, brv stops its git children and exits', async (t) => {
  const { repo, bin, pidFile, env } = await hangingRemote();
  t.teardown(() => cleanup(repo, bin));
  const brvPidFile = path.join(bin, 'brv.pid');
  // A parent shell that starts brv and is then killed outright, as a crashed agent harness would be.
  const parent = execa('sh', ['-c', `node '${CLI}' sync --format json & echo $! > '${brvPidFile}'; wait`], {
    cwd: repo,
    env,
    extendEnv: false,
    reject: false,
    stdio: 'ignore',
  });
  const { ssh, git: gitPid } = await sshAndGit(pidFile);
  const brvPid = Number((await readFile(brvPidFile, 'utf8')).trim());
  t.true(alive(brvPid));
  parent.kill('SIGKILL');
  t.true(await waitFor(() => !alive(ssh) && !alive(gitPid) && !alive(brvPid), 2500), 'brv, git and ssh are gone');
  await parent;
});

const servers: LlmServer[] = [];
test.after.always(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A repository with brv's model set to the scripted OpenAI-compatible server on loopback (test/cli/curate-auto.test.ts). */
async function setup() {
  const server = await startLlmServer();
  servers.push(server);
  const repo = await makeRepo();
  await git(repo, 'config', 'brv.llm.retries', '0');
  const env = modelEnv(server);
  return { server, repo, env };
}

const sessions = async (repo: string) => readdir(path.join(repo, '.git/brv/sessions')).catch(() => [] as string[]);

test('Ctrl-C mid-stream: exit 130, no commit, no session left', async (t) => {
  const { server, repo, env } = await setup();
  server.reply({ text: reply('a/b', 'AB', `<bv-highlights><p>${'word '.repeat(400)}</p></bv-highlights>`), chunks: 60, chunkDelayMs: 100 });
  const child = execa('node', [CLI, 'curate', 'x'], {
    cwd: repo,
    env: { ...ENV, ...env, BRV_PROGRESS: 'always' },
    extendEnv: false,
    reject: false,
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 8000;
  while (!(server.requests.length === 1 && stderr.includes('attempt 1 of 4')) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 400));
  child.kill('SIGINT');
  const result = await child;
  t.is(result.exitCode, 130, stderr);
  t.regex(result.stderr, /Curate cancelled; nothing was written/);
  t.is(await refTip(repo), undefined);
  t.deepEqual(await sessions(repo), []);
});
