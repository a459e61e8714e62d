// The knowledge tree: folders with topic counts built from the flat, sorted path list of GET /api/tree.
// Pure: no DOM, tested in test/web/client-tree.test.ts.

export interface TreeTopic {
  path: string;
  /** The last segment of the path. */
  name: string;
  title: string;
}

export interface TreeFolder {
  /** '' for the root. */
  path: string;
  name: string;
  /** Every topic below this folder, at any depth. */
  count: number;
  folders: TreeFolder[];
  topics: TreeTopic[];
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Folders (sorted, with counts) and topics from topic paths such as `security/auth/tokens`. Duplicates count once. */
export function buildTree(topics: ReadonlyArray<{ path: string; title?: string | null }>): TreeFolder {
  const root: TreeFolder = { path: '', name: '', count: 0, folders: [], topics: [] };
  const folders = new Map<string, TreeFolder>([['', root]]);
  const seen = new Set<string>();
  for (const topic of topics) {
    const segments = topic.path.split('/').filter((segment) => segment !== '');
    if (segments.length === 0) continue;
    const path = segments.join('/');
    if (seen.has(path)) continue;
    seen.add(path);
    let folder = root;
    root.count++;
    for (let i = 0; i < segments.length - 1; i++) {
      const folderPath = segments.slice(0, i + 1).join('/');
      let child = folders.get(folderPath);
      if (!child) {
        child = { path: folderPath, name: segments[i]!, count: 0, folders: [], topics: [] };
        folders.set(folderPath, child);
        folder.folders.push(child);
      }
      child.count++;
      folder = child;
    }
    const name = segments[segments.length - 1]!;
    folder.topics.push({ path, name, title: topic.title?.trim() || name });
  }
  for (const folder of folders.values()) {
    folder.folders.sort(byName);
    folder.topics.sort(byName);
  }
  return root;
}

/** The folders that contain a topic, outermost first: `a/b/c` → `a`, `a/b`. */
export function ancestors(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment !== '');
  return segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'));
}
