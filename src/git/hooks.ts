import path from 'node:path';
import type { GitRepository } from './repository.js';

export interface HooksDirectory {
  /** Absolute path of the directory git runs hooks from (honours core.hooksPath). */
  directory: string;
  /** core.hooksPath as configured, when it is set (husky, lefthook, a shared hooks folder…). */
  hooksPath: string | undefined;
}

/**
 * Where git looks for this repository's hooks. `git rev-parse --git-path hooks` applies
 * core.hooksPath (with `~` expanded); a relative value is relative to where hooks run: the top of
 * the working tree, or the git directory of a bare repository.
 */
export async function hooksDirectory(repo: GitRepository): Promise<HooksDirectory> {
  const base = repo.location.workTree ?? repo.location.gitDir;
  const [resolved, hooksPath] = await Promise.all([
    repo.git(['rev-parse', '--path-format=absolute', '--git-path', 'hooks'], { cwd: base }),
    repo.configGet('core.hooksPath'),
  ]);
  return { directory: path.resolve(base, resolved.stdout.trim()), hooksPath: hooksPath || undefined };
}

/**
 * Paths (relative to the top of the working tree) that the next commit changes: the staged
 * differences against HEAD, renames reported as a deletion and an addition. `indexFile` is the
 * index git hands a pre-commit hook in GIT_INDEX_FILE (`git commit -a` and `git commit <paths>`
 * commit from a temporary index); brv's cleaned environment would otherwise read the main index.
 */
export async function stagedPaths(repo: GitRepository, options: { indexFile?: string } = {}): Promise<string[]> {
  const base = repo.location.workTree ?? repo.location.gitDir;
  const env = options.indexFile ? { GIT_INDEX_FILE: path.resolve(base, options.indexFile) } : undefined;
  const { stdout } = await repo.gitBuffer(['diff', '--cached', '--name-only', '-z', '--no-renames', '--no-ext-diff'], { cwd: base, env });
  return stdout.length === 0 ? [] : stdout.toString('utf8').split('\0').filter(Boolean);
}
