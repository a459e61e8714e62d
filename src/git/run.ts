import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { BrvError } from '../errors.js';
import { cleanGitEnvironment } from './env.js';

// brv spawns git through node:child_process rather than execa (the design's first choice):
// measured on Node 20 here, importing execa added ~45 ms to every command, about a sixth of a
// curate's whole budget; what we need from it (argument arrays, no shell, clean env, typed
// failures) is the few lines below. Tests still use execa.

export interface GitRunOptions {
  /** Working directory for the git process (discovery only; everything else names --git-dir). */
  cwd?: string;
  input?: string | Uint8Array;
  /** Extra environment variables (on top of the cleaned process environment). */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 from `git config --get` for a missing key). */
  okExitCodes?: number[];
}

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface GitBufferResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

let baseEnvironment: Record<string, string> | undefined;
export function gitEnvironment(extra?: Record<string, string>): Record<string, string> {
  baseEnvironment ??= cleanGitEnvironment();
  return extra ? { ...baseEnvironment, ...extra } : baseEnvironment;
}

/** Runs git with an argument array (never a shell) and fails with a typed error on a bad exit. */
export async function runGit(args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
  const result = await runGitBuffer(args, options);
  return { stdout: result.stdout.toString('utf8'), stderr: result.stderr, exitCode: result.exitCode };
}

export function runGitBuffer(args: readonly string[], options: GitRunOptions = {}): Promise<GitBufferResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: gitEnvironment(options.env),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    trackGitProcess(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(spawnFailure(error)));
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exitCode = code ?? (signal ? 128 : 1);
      if (exitCode !== 0 && !(options.okExitCodes ?? []).includes(exitCode)) {
        reject(new GitCommandError(args, exitCode, stderr));
        return;
      }
      resolve({ stdout: Buffer.concat(out), stderr, exitCode });
    });
    if (options.input !== undefined) {
      // git may exit before reading all input (e.g. on a usage error); that is reported by exit code.
      child.stdin!.on('error', () => {});
      child.stdin!.end(options.input);
    }
  });
}

export function spawnFailure(cause: unknown): BrvError {
  const code = (cause as { code?: string } | undefined)?.code;
  if (code === 'ENOENT') {
    return new BrvError('git-not-found', 'git was not found on PATH. Install git 2.38 or newer and try again.');
  }
  return new BrvError('git-failed', `Could not run git: ${(cause as Error)?.message ?? String(cause)}`);
}

/** A git process that exited with a failure status; `stderr` is kept for callers that classify it. */
export class GitCommandError extends BrvError {
  readonly exitCode: number;
  readonly stderr: string;
  constructor(args: readonly string[], exitCode: number, stderr: string) {
    const shown = args
      .filter((a) => !a.startsWith('--git-dir='))
      .slice(0, 4)
      .join(' ');
    super('git-failed', `git ${shown} failed (exit ${exitCode}): ${stderr.trim().split('\n').slice(-3).join(' ')}`);
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** Every git process brv started that has not exited (or, for batch processes, been closed). */
const running = new Set<ChildProcess>();

/** Registers a git child so terminateGitProcesses can stop it (and what it started). */
export function trackGitProcess(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
}

/** A child brv no longer needs to stop at exit (a batch process whose input is closed: it ends by itself). */
export function untrackGitProcess(child: ChildProcess): void {
  running.delete(child);
}

/**
 * Stops every git process this brv process started that is still running, and every process
 * those started (ssh, remote helpers: git does not stop its transport when it is killed), with
 * `signal`. For front ends: call it when brv is told to stop (SIGTERM, SIGINT, SIGHUP), when its
 * parent goes away, or at exit. The library installs no signal handlers itself. Synchronous, so
 * it can run in an `exit` handler. Returns how many processes were signalled.
 */
export function terminateGitProcesses(signal: NodeJS.Signals = 'SIGTERM'): number {
  const roots = [...running].map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
  running.clear();
  if (roots.length === 0) return 0;
  const pids = withDescendants(roots);
  // Deepest first, so a transport is gone before git can notice and start anything else.
  for (const pid of pids.reverse()) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
  return pids.length;
}

/** `roots` and all their descendants, parents before children (best effort: Linux /proc, else ps). */
function withDescendants(roots: readonly number[]): number[] {
  let children: Map<number, number[]>;
  try {
    children = processChildren();
  } catch {
    return [...roots];
  }
  const seen = new Set<number>();
  const order: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    order.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return order;
}

function processChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  const add = (pid: number, ppid: number) => {
    if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return;
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  };
  if (process.platform === 'linux') {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // "<pid> (<comm>) <state> <ppid> …": comm may hold spaces and parentheses, so split after the last ")".
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        add(Number(entry), Number(fields[1]));
      } catch {
        // Exited meanwhile.
      }
    }
    return children;
  }
  if (process.platform === 'win32') return children;
  const ps = spawnSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 2000 });
  for (const line of (ps.stdout ?? '').split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid !== undefined && ppid !== undefined) add(pid, ppid);
  }
  return children;
}
