export type TreeEntryType = 'blob' | 'tree' | 'commit';

export interface TreeEntry {
  mode: string;
  type: TreeEntryType;
  oid: string;
  name: string;
}

export const TREE_MODE = '40000';
export const BLOB_MODE = '100644';

function typeOfMode(mode: string): TreeEntryType {
  if (mode === TREE_MODE || mode === '040000') return 'tree';
  if (mode === '160000') return 'commit';
  return 'blob';
}

/** Decodes a raw tree object as `git cat-file --batch` returns it: `<mode> <name>\0<binary oid>`... */
export function parseTree(data: Buffer, oidBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const nul = data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + oidBytes > data.length) throw new Error('Corrupt tree object');
    const mode = data.toString('latin1', offset, space);
    entries.push({
      mode,
      type: typeOfMode(mode),
      name: data.toString('utf8', space + 1, nul),
      oid: data.toString('hex', nul + 1, nul + 1 + oidBytes),
    });
    offset = nul + 1 + oidBytes;
  }
  return entries;
}

/** One tree in `git mktree -z` input form, terminated for `--batch`. */
export function formatTreeForMktree(entries: readonly TreeEntry[]): string {
  let out = '';
  for (const entry of entries) out += `${entry.mode} ${entry.type} ${entry.oid}\t${entry.name}\0`;
  return `${out}\0`;
}
