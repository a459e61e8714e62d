import type { ChildProcess } from 'node:child_process';
import { childProcess } from './child-process.js';
import { Readable } from 'node:stream';
import { BrvError, redactCredentials } from '../base/errors.js';
import type { GitProcesses } from './processes.js';
import { TransferLines, type GitTransferProgress } from './transfer-progress.js';

// brv spawns git through node:child_process rather than execa (the design's first choice):
// measured on Node 20 here, importing execa added ~45 ms to every command, about a sixth of a
// curate's whole budget; what we need from it (argument arrays, no shell, clean env, typed
// failures) is the few lines below. Tests still use execa.

export interface GitRunOptions {
  /** Working directory for the git process (discovery only; everything else names --git-dir). */
  cwd?: string;
  /** What git reads on stdin: a string or bytes, or a stream piped in (with backpressure). */
  input?: string | Uint8Array | Readable;
  /** Extra environment variables (on top of the cleaned environment of `processes`). */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 from `git config --get` for a missing key). */
  okExitCodes?: number[];
  /**
   * git's transfer progress as it runs (for `fetch`/`push` with `--progress`): progress lines are
   * reported here and left out of the `stderr` the result or the error carries.
   */
  onTransfer?: (progress: GitTransferProgress) => void;
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

/**
 * Runs git with an argument array (never a shell) in the environment of `processes`, which tracks
 * the child until it exits, and fails with a typed error on a bad exit.
 */
export async function runGit(processes: GitProcesses, args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
  const result = await runGitBuffer(processes, args, options);
  return { stdout: result.stdout.toString('utf8'), stderr: result.stderr, exitCode: result.exitCode };
}

export function runGitBuffer(processes: GitProcesses, args: readonly string[], options: GitRunOptions = {}): Promise<GitBufferResult> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnGit(processes, args, { cwd: options.cwd, env: options.env, stdin: options.input !== undefined });
    } catch (error) {
      reject(error as BrvError);
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const transfer = options.onTransfer ? new TransferLines(options.onTransfer) : undefined;
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    if (transfer) child.stderr!.setEncoding('utf8').on('data', (chunk: string) => transfer.push(chunk));
    else child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(spawnFailure(error)));
    child.on('close', (code, signal) => {
      const stderr = transfer ? transfer.end() : Buffer.concat(err).toString('utf8');
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
      if (options.input instanceof Readable) options.input.pipe(child.stdin!);
      else child.stdin!.end(options.input);
    }
  });
}

/**
 * Starts git with pipes for stdout and stderr (and stdin when asked), tracked by `processes`. A start
 * that fails before the child has its pipes throws the typed error now: Node then hands back a child
 * without streams (EMFILE, ENFILE: no file descriptor left for them) or throws (ENOMEM and others),
 * and a child without streams must never be used as if it had started. A failure Node reports later
 * (EAGAIN, ENOENT, EACCES) arrives as the child's `error` event: callers map it with `spawnFailure`.
 */
export function spawnGit(
  processes: GitProcesses,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; stdin: boolean },
): ChildProcess {
  let child: ChildProcess;
  try {
    child = childProcess().spawn('git', args, {
      cwd: options.cwd,
      env: processes.environment(options.env),
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      // A session of its own: no controlling terminal, so nothing git starts (ssh asking to trust a
      // host or for a passphrase, a credential helper) can wait on a prompt there; it fails instead.
      // brv still stops these children itself (GitProcesses.terminate), as a terminal's Ctrl-C no
      // longer reaches them.
      detached: !processes.terminalPrompts && process.platform !== 'win32',
    });
  } catch (error) {
    throw spawnFailure(error);
  }
  if (!child.stdout || !child.stderr || (options.stdin && !child.stdin)) {
    // Its `error` event (the errno) still comes, on the next tick: heard here, so it is not an uncaught one.
    child.on('error', () => {});
    throw spawnFailure(Object.assign(new Error('spawn git EMFILE'), { code: 'EMFILE' }));
  }
  processes.track(child);
  return child;
}

/** What a failed start of git means, and what to do about it. */
export function spawnFailure(cause: unknown): BrvError {
  const code = (cause as { code?: string } | undefined)?.code;
  if (code === 'ENOENT') {
    return new BrvError('git-not-found', 'git was not found on PATH. Install git 2.38 or newer and try again.');
  }
  if (code === 'EMFILE' || code === 'ENFILE') {
    return new BrvError(
      'too-many-open-files',
      `Could not start git: no file descriptor left (${code}: ${code === 'EMFILE' ? "this process's open-file limit, ulimit -n," : "the system's open-file limit"} is reached). ` +
        'Raise it (ulimit -n 1024, or more) or close other programs, and run the command again.',
    );
  }
  if (code === 'EAGAIN' || code === 'ENOMEM') {
    return new BrvError(
      'cannot-start-process',
      `Could not start git: the system refused a new process (${code}: ${code === 'EAGAIN' ? 'the process limit, ulimit -u, is reached' : 'out of memory'}). ` +
        'Close other programs (or raise the limit) and run the command again.',
    );
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
    // git quotes the URL it talked to, which may hold a token: what brv keeps (and may show) never does.
    this.stderr = redactCredentials(stderr);
  }
}
