import type { GitProcesses } from './processes.js';
import { runGit } from './run.js';

/** One credential as git's helpers file it: brv keys go under https://<host> with username "brv". */
export interface CredentialKey {
  host: string;
  username: string;
}

/**
 * git's credential helpers (`git credential fill|approve|reject`), never interactive: no terminal
 * prompt and no askpass program, so a missing credential is an answer, not a prompt. Runs in `cwd`
 * (the home directory) so the user's global helper applies.
 */
export class GitCredentials {
  constructor(
    private readonly processes: GitProcesses,
    private readonly cwd: string,
  ) {}

  private git(args: string[], input?: string, okExitCodes: number[] = []) {
    return runGit(this.processes, ['-c', 'core.askPass=', '-c', 'credential.interactive=false', ...args], {
      cwd: this.cwd,
      input,
      okExitCodes,
      env: { GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' },
    });
  }

  /** Whether any credential helper is configured (without one, fill would only prompt). */
  async configured(): Promise<boolean> {
    const { stdout, exitCode } = await this.git(['config', '--get-all', 'credential.helper'], undefined, [1]);
    return exitCode === 0 && stdout.split('\n').some((line) => line.trim().length > 0);
  }

  async fill(key: CredentialKey): Promise<string | undefined> {
    const { stdout, exitCode } = await this.git(['credential', 'fill'], describe(key), [1, 128]);
    if (exitCode !== 0) return undefined;
    const line = stdout.split('\n').find((l) => l.startsWith('password='));
    const secret = line?.slice('password='.length);
    return secret ? secret : undefined;
  }

  async approve(key: CredentialKey, secret: string): Promise<void> {
    await this.git(['credential', 'approve'], describe(key, secret));
  }

  async reject(key: CredentialKey): Promise<void> {
    await this.git(['credential', 'reject'], describe(key), [1, 128]);
  }
}

function describe(key: CredentialKey, secret?: string): string {
  const clean = (value: string) => value.replace(/[\r\n\0]/g, '');
  return [
    'protocol=https',
    `host=${clean(key.host)}`,
    `username=${clean(key.username)}`,
    ...(secret !== undefined ? [`password=${clean(secret)}`] : []),
    '',
    '',
  ].join('\n');
}
