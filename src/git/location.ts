/** Where a repository is, as `git rev-parse` reports it (discover.ts). */
export interface RepositoryLocation {
  /** This worktree's git directory (per-worktree state such as the current brv branch lives here). */
  gitDir: string;
  /** The directory shared by all worktrees (objects, refs, brv's local caches). */
  commonDir: string;
  bare: boolean;
  /** Top of the working tree; undefined in a bare repository. */
  workTree: string | undefined;
  objectFormat: 'sha1' | 'sha256';
  /** Object ids of the revisions asked for at discovery (absent when any of them did not resolve). */
  revisions: Map<string, string>;
}
