import type { GitRepository } from './repository.js';

/** One path `git merge-tree` could not merge, with the blob of each stage it had (1 base, 2 ours, 3 theirs). */
export interface MergeConflict {
  path: string;
  base?: string;
  ours?: string;
  theirs?: string;
}

export interface TreeMerge {
  /** The merged tree; conflicted paths hold git's best effort (text markers or the surviving side). */
  tree: string;
  conflicts: MergeConflict[];
}

/**
 * Merges two commits with `git merge-tree --write-tree` (git >= 2.38): no index, no work tree, so
 * the user's checkout is never touched. The merge base is the commits' own.
 */
export async function mergeCommits(repo: GitRepository, ours: string, theirs: string): Promise<TreeMerge> {
  const { stdout } = await repo.gitBuffer(
    ['merge-tree', '--write-tree', '-z', '--no-messages', '--allow-unrelated-histories', ours, theirs],
    {
      okExitCodes: [1],
    },
  );
  return parseMergeTree(stdout.toString('utf8'));
}

/**
 * A three-way merge of trees with an explicit base (`base` → `ours` and `base` → `theirs`), as a
 * revert or cherry-pick needs. `merge-tree --merge-base` only exists from git 2.40; instead two
 * throwaway commits whose only parent is a commit of `base` make git find that base by itself, so
 * one code path serves every supported git.
 */
export async function mergeTreesWithBase(
  repo: GitRepository,
  base: { commit: string; tree: string },
  oursTree: string,
  theirsTree: string,
): Promise<TreeMerge> {
  const [ours, theirs] = await Promise.all([
    repo.commitTree(oursTree, [base.commit], 'brv: merge side (temporary)\n', { sign: false }),
    repo.commitTree(theirsTree, [base.commit], 'brv: merge side (temporary)\n', { sign: false }),
  ]);
  return mergeCommits(repo, ours, theirs);
}

function parseMergeTree(output: string): TreeMerge {
  const fields = output.split('\0');
  const tree = fields[0]!.trim();
  const byPath = new Map<string, MergeConflict>();
  for (const field of fields.slice(1)) {
    // "<mode> <oid> <stage>\t<path>"; an empty field ends the conflicted-file list.
    const match = /^(\d+) ([0-9a-f]+) ([123])\t(.*)$/s.exec(field);
    if (!match) break;
    const [, , oid, stage, path] = match;
    const conflict = byPath.get(path!) ?? { path: path! };
    if (stage === '1') conflict.base = oid;
    else if (stage === '2') conflict.ours = oid;
    else conflict.theirs = oid;
    byPath.set(path!, conflict);
  }
  return { tree, conflicts: [...byPath.values()] };
}
