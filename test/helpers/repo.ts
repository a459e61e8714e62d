import { execa } from 'execa';
import { rmSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/cli/main.js');

/**
 * A pinned environment (like git-branchless' tests): no system or user config leaks in, identities
 * and dates are fixed, so object ids are deterministic. Applied to this test process too, because
 * in-process tests run git through the library.
 */
function pinnedEnvironment(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'),
    GIT_AUTHOR_NAME: 'Ada Author',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
    GIT_COMMITTER_NAME: 'Ada Author',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
    TZ: 'UTC',
    LANG: 'C',
    LC_ALL: 'C',
    // No background `brv maintenance` after queries: a detached child would outlive the test and its
    // temp folders. Tests of it unset this (test/process/maintenance.test.ts).
    BRV_NO_AUTO_MAINTENANCE: '1',
    // No test may wait on a credential prompt: git never asks on the terminal, ssh never through an
    // askpass program (nor does a display or an agent of the machine's user leak in: only PATH does).
    // brv sets GIT_TERMINAL_PROMPT=0 itself; tests of that unset it (test/cli/git-servers.test.ts).
    GIT_TERMINAL_PROMPT: '0',
    SSH_ASKPASS_REQUIRE: 'never',
    // Passed on so that what brv itself leaves in the temp folder lands where .ci/run looks for it.
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
  };
}

/**
 * Every folder this test process made in the temp folder, removed when it exits (ava runs each
 * test file in its own process), so a test needs no cleanup of its own and a failing one leaves
 * nothing behind. .ci/run checks that a whole run leaves the temp folder as it found it.
 */
const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // a folder a test made read-only, or still in use: nothing more to do at exit
    }
  }
});

async function madeTemp(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const home = await madeTemp('brv-home-');
export const ENV = pinnedEnvironment(home);
for (const key of Object.keys(process.env)) if (key.startsWith('GIT_')) delete process.env[key];
Object.assign(process.env, ENV);

export async function tempDir(prefix = 'brv-test-'): Promise<string> {
  return realpath(await madeTemp(prefix));
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await execa('git', args, { cwd, env: ENV, extendEnv: false });
  return result.stdout;
}

/** A fresh repository with one code commit on `main`. */
export async function makeRepo(options: { commit?: boolean; bare?: boolean } = {}): Promise<string> {
  const dir = await tempDir();
  await git(dir, 'init', '-q', '-b', 'main', ...(options.bare ? ['--bare'] : []));
  if (options.commit !== false && !options.bare) {
    await execa('sh', ['-c', 'echo "# demo" > README.md && mkdir -p src/deep && echo x > src/deep/a.txt'], { cwd: dir });
    await git(dir, 'add', '.');
    await git(dir, 'commit', '-q', '-m', 'initial');
  }
  return dir;
}

export async function makeWorktree(repo: string, name = 'feature'): Promise<string> {
  const dir = path.join(await tempDir('brv-wt-'), name);
  await git(repo, 'worktree', 'add', '-q', '-b', name, dir);
  return dir;
}

export interface BrvRun {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The parsed JSON line when the command printed one. */
  json: { command: string; success: boolean; data: any; timestamp: string } | undefined;
}

type BrvOptions = {
  env?: Record<string, string>;
  unset?: string[];
  input?: string;
  timeout?: number;
  /** A real process (the built binary): for what only processes do, e.g. run at the same time. */
  process?: boolean;
};

/**
 * Runs a brv command line: in this process (runCli, src/cli/run.ts) by default, as a real process
 * (brvProcess) when the run needs one: BRV_TRACE's timings, background maintenance (which starts
 * brv itself), NODE_OPTIONS, a timeout, and the commands that own the process (mcp, webui, tui). CONTRIBUTING.md, "Tests".
 */
export async function brv(cwd: string, args: string[], options: BrvOptions = {}): Promise<BrvRun> {
  return needsProcess(args, options) ? brvProcess(cwd, args, options) : brvInProcess(cwd, args, options);
}

const PROCESS_COMMANDS = new Set(['mcp', 'webui', 'tui']);

function needsProcess(args: string[], options: BrvOptions): boolean {
  if (options.process || process.env.BRV_TEST_PROCESS === '1') return true;
  if (options.env?.BRV_TRACE || options.unset?.includes('BRV_NO_AUTO_MAINTENANCE')) return true;
  if (options.env && 'BRV_NO_AUTO_MAINTENANCE' in options.env && !['', '1'].includes(options.env.BRV_NO_AUTO_MAINTENANCE!)) return true;
  if (options.timeout !== undefined) return true;
  if (options.env?.NODE_OPTIONS) return true;
  const words = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return words.some((a) => PROCESS_COMMANDS.has(a));
}

function result(args: string[], stdout: string, stderr: string, exitCode: number): BrvRun {
  let json;
  if (args.includes('json')) {
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
  }
  return { stdout, stderr, exitCode, json };
}

/** Runs the built CLI as a real process, the way agents call it. */
async function brvProcess(cwd: string, args: string[], options: BrvOptions = {}): Promise<BrvRun & { timedOut: boolean }> {
  const env: Record<string, string> = { ...ENV, ...options.env };
  for (const key of options.unset ?? []) delete env[key];
  const run = await execa('node', [CLI, ...args], {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    input: options.input,
    stdin: options.input === undefined ? 'ignore' : 'pipe',
    ...(options.timeout ? { timeout: options.timeout } : {}),
  });
  return { ...result(args, run.stdout, run.stderr, run.exitCode ?? -1), timedOut: run.timedOut };
}

/** One in-process run at a time: a command may resolve a relative path against the process's folder. */
let inProcessQueue: Promise<unknown> = Promise.resolve();

/** Runs the CLI's source in this process (runCli) with its own stdout, stderr, stdin, env and folder. */
async function brvInProcess(cwd: string, args: string[], options: BrvOptions = {}): Promise<BrvRun> {
  const env: Record<string, string> = { ...ENV, ...options.env };
  for (const key of options.unset ?? []) delete env[key];
  const { runCli } = await import('../../src/cli/run.js');
  const { Readable } = await import('node:stream');
  let stdout = '';
  let stderr = '';
  const run = async () => {
    const home = process.cwd();
    process.chdir(cwd);
    try {
      return await runCli(args, {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
        env,
        cwd,
        home: env.HOME ?? ENV.HOME!,
        platform: process.platform,
      });
    } finally {
      process.chdir(home);
    }
  };
  const done = inProcessQueue.then(run, run);
  inProcessQueue = done.catch(() => {});
  const exitCode = await done;
  // execa strips the final newline; so do we, for the same result shape.
  return result(args, stdout.replace(/\n$/, ''), stderr.replace(/\n$/, ''), exitCode);
}

/**
 * brv() with a deadline: a run still going after `ms` counts as hung (`timedOut`), so a hang fails the
 * test instead of stalling the suite. In this process a hung run is left behind (the test fails);
 * as a process it is killed.
 */
export async function brvWithin(
  ms: number,
  cwd: string,
  args: string[],
  options: Omit<BrvOptions, 'timeout'> = {},
): Promise<BrvRun & { timedOut: boolean }> {
  if (needsProcess(args, options)) return brvProcess(cwd, args, { ...options, timeout: ms });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  const run = await Promise.race([brvInProcess(cwd, args, options), deadline]).finally(() => clearTimeout(timer));
  return run ? { ...run, timedOut: false } : { ...result(args, '', '', -1), timedOut: true };
}

export async function brvJson(cwd: string, args: string[], options: Omit<BrvOptions, 'input'> = {}): Promise<BrvRun> {
  return brv(cwd, [...args, '--format', 'json'], options);
}

export async function refTip(repo: string, ref = 'refs/brv/heads/main'): Promise<string | undefined> {
  const result = await execa('git', ['rev-parse', '--verify', '-q', ref], { cwd: repo, env: ENV, extendEnv: false, reject: false });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

export async function showTopic(repo: string, file: string, ref = 'refs/brv/heads/main'): Promise<string | undefined> {
  const result = await execa('git', ['show', `${ref}:${file}`], { cwd: repo, env: ENV, extendEnv: false, reject: false });
  return result.exitCode === 0 ? result.stdout : undefined;
}

export async function cleanup(...dirs: string[]): Promise<void> {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
}

/** A curate reply envelope for a small valid topic. */
export function reply(
  pathName: string,
  title = 'A topic',
  body = '<bv-rule severity="must">Do the thing.</bv-rule>',
  meta?: object,
): string {
  return JSON.stringify({ html: `<bv-topic path="${pathName}" title="${title}">${body}</bv-topic>`, ...(meta ? { meta } : {}) });
}

/** Kickoff + continuation through the real CLI; returns the continuation's JSON data. */
export async function curateTopic(cwd: string, response: string, extra: string[] = []): Promise<any> {
  const start = await brvJson(cwd, ['curate', 'record something']);
  const sessionId = start.json?.data.sessionId;
  if (!sessionId) throw new Error(`kickoff failed: ${start.stdout} ${start.stderr}`);
  const done = await brvJson(cwd, ['curate', '--session', sessionId, '--response', response, ...extra]);
  if (!done.json) throw new Error(`continuation printed no JSON: ${done.stdout} ${done.stderr}`);
  return done.json.data;
}

/** A copy of the built CLI (dist/) in a folder of its own, so a test can damage its code cache freely. */
export async function copyBuiltCli(): Promise<string> {
  const dir = await tempDir('brv-install-');
  await mkdir(path.join(dir, 'cli'));
  await mkdir(path.join(dir, 'app'));
  const chunks = (await readdir(path.join(ROOT, 'dist/app'))).filter((f) => f.endsWith('.js')).map((f) => `app/${f}`);
  for (const file of ['package.json', 'cli/main.js', ...chunks]) await copyFile(path.join(ROOT, 'dist', file), path.join(dir, file));
  return dir;
}
