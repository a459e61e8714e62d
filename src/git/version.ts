import { BrvError } from '../base/errors.js';
import type { GitProcesses } from './processes.js';
import { runGit } from './run.js';

const MINIMUM_GIT_VERSION = [2, 38, 0] as const;

export function parseGitVersion(output: string): [number, number, number] | undefined {
  const match = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

export function isSupportedGitVersion(version: readonly number[]): boolean {
  for (let i = 0; i < MINIMUM_GIT_VERSION.length; i++) {
    const have = version[i] ?? 0;
    const need = MINIMUM_GIT_VERSION[i]!;
    if (have !== need) return have > need;
  }
  return true;
}

/** brv relies on `merge-tree --write-tree` and `update-ref --stdin` transactions (git >= 2.38). */
export async function checkGitVersion(processes: GitProcesses): Promise<string> {
  const { stdout } = await runGit(processes, ['version']);
  const version = parseGitVersion(stdout);
  if (!version) throw new BrvError('git-version-unknown', `Could not read the git version from "${stdout.trim()}".`);
  if (!isSupportedGitVersion(version)) {
    throw new BrvError(
      'git-too-old',
      `brv needs git ${MINIMUM_GIT_VERSION.join('.')} or newer; this is git ${version.join('.')}. Upgrade git and try again.`,
    );
  }
  return version.join('.');
}
