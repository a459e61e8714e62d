import type { GitProcesses } from './processes.js';
import { parseConfigList } from './config-list.js';
import { runGit } from './run.js';

/**
 * The user's global git config (`git config --global`), with no repository: what `brv settings
 * --global` reads and writes outside one. The same calls as GitRepository's config methods, so the
 * settings layer takes either; every call is global whatever `options.global` says.
 */
export class GlobalGitConfig {
  constructor(
    private readonly processes: GitProcesses,
    /** Where git runs (the home directory): no repository is discovered or needed. */
    private readonly cwd: string,
  ) {}

  private git(args: readonly string[], okExitCodes: number[] = []) {
    return runGit(this.processes, ['config', '--global', ...args], { cwd: this.cwd, okExitCodes });
  }

  async configSet(key: string, value: string): Promise<void> {
    await this.git(['--', key, value]);
  }

  async configUnset(key: string, options: { valuePattern?: string } = {}): Promise<void> {
    await this.git(
      [options.valuePattern ? '--unset-all' : '--unset', '--', key, ...(options.valuePattern ? [options.valuePattern] : [])],
      [5],
    );
  }

  async configList(pattern: string): Promise<Array<{ key: string; value: string }>> {
    const { stdout } = await this.git(['-z', '--get-regexp', '--', pattern], [1]);
    return parseConfigList(stdout);
  }
}
