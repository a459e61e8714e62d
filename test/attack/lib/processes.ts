/**
 * Process and repository checks shared by the attack campaigns (tests in test/attack, benches in
 * bench/attack): run the real CLI and kill it with SIGKILL, wait for the git children it leaves
 * behind, and look for what a crash could leave: fsck errors and stale `*.lock` files.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { CLI, ENV, tempDir } from '../../helpers/repo.js';

export { seededRandom } from '../../helpers/random.js';

export interface CliRun {
  exitCode: number | null;
  /** 'SIGKILL' when the campaign killed it before it finished. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  json: { success: boolean; data: any } | undefined;
}

export interface RunOptions {
  /** SIGKILL the brv process after this long (its git children are orphaned, as in a real crash). */
  killAfterMs?: number;
  /** With killAfterMs: kill the whole process group instead, git children included (a hang guard). */
  killGroup?: boolean;
  env?: Record<string, string>;
}

/**
 * Runs `brv args` in its own process group, optionally killed (see RunOptions), and waits until every
 * process of the group has exited, so what is checked next is what the run (or the crash) left.
 */
export async function runCli(cwd: string, args: string[], options: RunOptions = {}): Promise<CliRun> {
  const start = performance.now();
  const env = { ...ENV, ...options.env };
  const child = spawn('node', [CLI, ...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const kill = () => {
    if (options.killGroup && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  };
  const timer = options.killAfterMs === undefined ? undefined : setTimeout(kill, options.killAfterMs);
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, sig) => resolve([code, sig]));
  });
  clearTimeout(timer);
  const ms = performance.now() - start;
  if (child.pid !== undefined) {
    // A group still alive after a group kill can only be a process that left the group: not ours to wait for.
    await waitForProcessGroup(child.pid);
  }
  let json;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { exitCode, signal, stdout, stderr, ms, json };
}

/** Resolves once no live process is left in process group `pgid` (zombies count as gone). */
export async function waitForProcessGroup(pgid: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await processGroupMembers(pgid)).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  throw new Error(`processes of group ${pgid} still running after ${timeoutMs} ms: ${(await processGroupMembers(pgid)).join(', ')}`);
}

async function processGroupMembers(pgid: number): Promise<string[]> {
  const members: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const [state, , pgrp] = stat.slice(close + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, close)}`);
  }
  return members;
}

/** `*.lock` files anywhere under a git directory: after every process has exited, each is stale. */
export async function staleLocks(gitDir: string): Promise<string[]> {
  const entries = await readdir(gitDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.name.endsWith('.lock'))
    .map((entry) => path.relative(gitDir, path.join(entry.parentPath, entry.name)));
}

/** `git fsck` output (errors and warnings, dangling objects excluded); empty when the repository is sound. */
export async function fsckProblems(repo: string): Promise<string> {
  const result = await execa('git', ['fsck', '--no-dangling', '--no-progress'], { cwd: repo, env: ENV, extendEnv: false, reject: false });
  return result.exitCode === 0 ? result.stderr.trim() : `exit ${result.exitCode}: ${result.stdout} ${result.stderr}`.trim();
}

/** The tree of a ref, or '' when the ref does not exist. */
export async function treeOf(repo: string, ref: string): Promise<string> {
  const result = await execa('git', ['rev-parse', '--verify', '-q', `${ref}^{tree}`], {
    cwd: repo,
    env: ENV,
    extendEnv: false,
    reject: false,
  });
  return result.exitCode === 0 ? result.stdout.trim() : '';
}

export async function tipOf(repo: string, ref: string): Promise<string> {
  const result = await execa('git', ['rev-parse', '--verify', '-q', ref], { cwd: repo, env: ENV, extendEnv: false, reject: false });
  return result.exitCode === 0 ? result.stdout.trim() : '';
}

/**
 * Commits files on top of `ref` with plumbing (as a teammate's push would), keeping the rest of its
 * tree; creates the ref from `from` when it does not exist yet.
 */
export async function plumbCommit(repo: string, ref: string, files: Record<string, string>, from = ref): Promise<string> {
  const dir = await tempDir('brv-kill-index-');
  const env = { ...ENV, GIT_INDEX_FILE: path.join(dir, 'index') };
  const run = async (args: string[], input?: string) =>
    (await execa('git', args, { cwd: repo, env, extendEnv: false, input })).stdout.trim();
  try {
    const parent = (await tipOf(repo, ref)) || (await tipOf(repo, from));
    await run(['read-tree', parent]);
    for (const [file, content] of Object.entries(files)) {
      const oid = await run(['hash-object', '-w', '--stdin'], content);
      await run(['update-index', '--add', '--cacheinfo', `100644,${oid},${file}`]);
    }
    const commit = await run(['commit-tree', await run(['write-tree']), '-p', parent, '-m', `planted: ${Object.keys(files).join(', ')}`]);
    await run(['update-ref', ref, commit]);
    return commit;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** fsck findings and stale locks of a repository (bare or not), each labelled. */
export async function repositoryProblems(repo: string, label: string): Promise<string[]> {
  const problems: string[] = [];
  const fsck = await fsckProblems(repo);
  if (fsck) problems.push(`${label}: git fsck: ${fsck}`);
  const gitDir = repo.endsWith('.git') ? repo : path.join(repo, '.git');
  const locks = await staleLocks(gitDir);
  if (locks.length > 0) problems.push(`${label}: stale lock files: ${locks.join(', ')}`);
  return problems;
}

/** A small valid topic whose rule holds `words`. */
export const topicHtml = (topicPath: string, words: string) =>
  `<bv-topic path="${topicPath}" title="${topicPath}">\n  <bv-rule severity="must">${words}</bv-rule>\n</bv-topic>\n`;
