import { BrvError } from '../base/errors.js';
import type { GitRepository } from '../git/repository.js';
import { BLOB_MODE, TREE_MODE, type TreeEntry } from '../git/tree.js';

/** Put a blob at `path`, or remove whatever (blob or sub-tree) is there. */
export type TreeEdit = { path: string; blob: string } | { path: string; remove: true };

/**
 * Rewrites only the trees on the paths being edited; sibling sub-trees are reused by oid, so one
 * topic written into a 10,000-topic tree reads and writes a handful of small trees.
 * Returns undefined when the result is an empty tree.
 */
export async function editTree(repo: GitRepository, tree: string | undefined, edits: readonly TreeEdit[]): Promise<string | undefined> {
  const entries = new Map<string, TreeEntry>();
  if (tree) for (const entry of await repo.readTree(tree)) entries.set(entry.name, entry);

  const nested = new Map<string, TreeEdit[]>();
  for (const edit of edits) {
    const slash = edit.path.indexOf('/');
    if (slash < 0) {
      if ('remove' in edit) entries.delete(edit.path);
      else entries.set(edit.path, { mode: BLOB_MODE, type: 'blob', oid: edit.blob, name: edit.path });
      continue;
    }
    const name = edit.path.slice(0, slash);
    const rest = { ...edit, path: edit.path.slice(slash + 1) };
    const list = nested.get(name);
    if (list) list.push(rest);
    else nested.set(name, [rest]);
  }

  const rewritten = await Promise.all(
    [...nested].map(async ([name, subEdits]) => {
      const existing = entries.get(name);
      if (existing && existing.type !== 'tree') {
        throw new BrvError('path-conflict', `"${name}" is a file in the context tree, so nothing can be stored below it.`);
      }
      return [name, await editTree(repo, existing?.oid, subEdits)] as const;
    }),
  );
  for (const [name, oid] of rewritten) {
    if (oid === undefined) entries.delete(name);
    else entries.set(name, { mode: TREE_MODE, type: 'tree', oid, name });
  }

  if (entries.size === 0) return undefined;
  return repo.writeTree([...entries.values()]);
}
