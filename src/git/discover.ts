import { existsSync } from 'node:fs';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { rememberedLocation, rememberLocation } from './discovery-cache.js';
import type { RepositoryLocation } from './location.js';
import type { GitProcesses } from './processes.js';
import { GitCommandError, runGit } from './run.js';
import { checkGitVersion } from './version.js';

export type { RepositoryLocation } from './location.js';

/**
 * Finds the repository that contains `cwd` (any sub-directory, a linked worktree, or a bare repo).
 * `revisions` are resolved by the same `git rev-parse` process when they all exist, which saves
 * a process start on every command that reads the brv tip; in the plain case, what git answered is
 * remembered and checked against the files next time, without a process (discovery-cache.ts).
 */
export async function discoverRepository(
  cwd: string,
  processes: GitProcesses,
  revisions: readonly string[] = [],
): Promise<RepositoryLocation> {
  if (!existsSync(cwd)) throw new BrvError('not-a-git-repository', `${cwd} does not exist.`);
  const env = processes.environment();
  const remembered = rememberedLocation(cwd, env, revisions);
  if (remembered) return remembered;
  const location = await askGit(cwd, processes, revisions);
  rememberLocation(cwd, env, revisions, location);
  return location;
}

async function askGit(cwd: string, processes: GitProcesses, revisions: readonly string[]): Promise<RepositoryLocation> {
  const lines = await revParse(cwd, processes, revisions);
  const [gitDir, commonDir, bare, insideWorkTree, objectFormat, topLevel] = lines;
  if (!gitDir || !commonDir || !bare || !objectFormat) {
    throw new BrvError('git-failed', `Unexpected output from git rev-parse in ${cwd}.`);
  }
  return {
    gitDir: path.resolve(gitDir),
    commonDir: path.resolve(commonDir),
    bare: bare === 'true',
    workTree: insideWorkTree === 'true' && topLevel ? path.resolve(topLevel) : undefined,
    objectFormat: objectFormat === 'sha256' ? 'sha256' : 'sha1',
    revisions: new Map(lines.length >= 6 + revisions.length && revisions.length > 0 ? revisions.map((rev, i) => [rev, lines[6 + i]!]) : []),
  };
}

async function revParse(cwd: string, processes: GitProcesses, revisions: readonly string[]): Promise<string[]> {
  const common = [
    'rev-parse',
    '--path-format=absolute',
    '--git-dir',
    '--git-common-dir',
    '--is-bare-repository',
    '--is-inside-work-tree',
    '--show-object-format',
  ];
  try {
    // One process in the common case; --show-toplevel fails in bare repositories and inside .git,
    // and any revision that does not resolve fails the whole call: then ask again without them.
    const attempts =
      revisions.length > 0
        ? [
            [...common, '--show-toplevel', ...revisions],
            [...common, '--show-toplevel'],
          ]
        : [[...common, '--show-toplevel']];
    for (const args of attempts) {
      const result = await runGit(processes, args, { cwd, okExitCodes: [128] });
      if (result.exitCode === 0) return result.stdout.split('\n');
      if (/not a git repository/i.test(result.stderr)) throw new GitCommandError(common, 128, result.stderr);
    }
    return (await runGit(processes, common, { cwd })).stdout.split('\n');
  } catch (error) {
    // Older gits reject --path-format / --show-object-format: say which version is needed.
    if (error instanceof GitCommandError && /unknown option|needs an argument|usage:/i.test(error.stderr)) await checkGitVersion(processes);
    if (error instanceof GitCommandError && /not a git repository/i.test(error.stderr)) {
      throw new BrvError(
        'not-a-git-repository',
        `${cwd} is not inside a git repository. Run brv from inside one, or create one with "git init".`,
      );
    }
    throw error;
  }
}
