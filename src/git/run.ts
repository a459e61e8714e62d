import { execa } from 'execa';
import { BrvError } from '../errors.js';
import { cleanGitEnvironment } from './env.js';

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
function environment(extra?: Record<string, string>): Record<string, string> {
  baseEnvironment ??= cleanGitEnvironment();
  return extra ? { ...baseEnvironment, ...extra } : baseEnvironment;
}

/** Runs git with an argument array (never a shell) and fails with a typed error on a bad exit. */
export async function runGit(args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
  const result = await spawnGit(args, options, 'utf8');
  return { stdout: result.stdout as string, stderr: result.stderr, exitCode: result.exitCode };
}

export async function runGitBuffer(args: readonly string[], options: GitRunOptions = {}): Promise<GitBufferResult> {
  const result = await spawnGit(args, options, 'buffer');
  return { stdout: Buffer.from(result.stdout as Uint8Array), stderr: result.stderr, exitCode: result.exitCode };
}

async function spawnGit(args: readonly string[], options: GitRunOptions, encoding: 'utf8' | 'buffer') {
  let result;
  try {
    result = await execa('git', args, {
      cwd: options.cwd,
      input: options.input,
      env: environment(options.env),
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      encoding,
      stdin: options.input === undefined ? 'ignore' : 'pipe',
    });
  } catch (error) {
    throw gitNotFound(error);
  }
  if (result.failed && result.exitCode === undefined) throw gitNotFound(result);
  const exitCode = result.exitCode ?? 1;
  const stderr = typeof result.stderr === 'string' ? result.stderr : Buffer.from(result.stderr as Uint8Array).toString('utf8');
  if (exitCode !== 0 && !(options.okExitCodes ?? []).includes(exitCode)) {
    throw new GitCommandError(args, exitCode, stderr);
  }
  return { stdout: result.stdout, stderr, exitCode };
}

function gitNotFound(cause: unknown): BrvError {
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
    const shown = args.filter((a) => !a.startsWith('--git-dir=')).slice(0, 4).join(' ');
    super('git-failed', `git ${shown} failed (exit ${exitCode}): ${stderr.trim().split('\n').slice(-3).join(' ')}`);
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}
