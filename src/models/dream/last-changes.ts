import type { GitRepository } from '../../git/repository.js';

/** Paths per git command line: far below any system's argument limit. */
const CHUNK = 300;

export interface PathChange {
  commit: string;
  /** Committer time, seconds. */
  time: number;
  /** Position in the log (0 = the most recent commit): orders changes made in the same second. */
  order: number;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Each path's most recent change in `rev`'s history (with `deleted`, its most recent deletion): one `git log` per 300 paths. */
export async function lastChanges(
  repo: GitRepository,
  rev: string,
  paths: readonly string[],
  options: { deleted?: boolean } = {},
): Promise<Map<string, PathChange>> {
  const found = new Map<string, PathChange>();
  for (const chunk of chunks([...new Set(paths)])) {
    const { stdout } = await repo.git([
      'log',
      '--format=%x1e%H %ct',
      '--name-only',
      '--no-renames',
      '-z',
      ...(options.deleted ? ['--diff-filter=D'] : []),
      rev,
      '--',
      ...chunk.map((p) => `:(literal)${p}`),
    ]);
    const wanted = new Set(chunk);
    let order = 0;
    for (const record of stdout.split('\x1e')) {
      const match = /^([0-9a-f]+) (\d+)\n?/.exec(record);
      if (!match) continue;
      const change = { commit: match[1]!, time: Number(match[2]), order: order++ };
      for (const name of record.slice(match[0].length).split('\0')) {
        const path = name.replace(/^\n/, '');
        if (wanted.has(path) && !found.has(path)) found.set(path, change);
      }
    }
  }
  return found;
}

/** Which of `paths` exist in `tree` (a file, or a folder with files). */
export async function presentPaths(repo: GitRepository, tree: string, paths: readonly string[]): Promise<Set<string>> {
  const present = new Set<string>();
  for (const chunk of chunks([...new Set(paths)])) {
    const { stdout } = await repo.git(['ls-tree', '-r', '--name-only', '-z', tree, '--', ...chunk.map((p) => `:(literal)${p}`)]);
    const listed = stdout.split('\0').filter(Boolean);
    const set = new Set(listed);
    for (const path of chunk) if (set.has(path) || listed.some((l) => l.startsWith(`${path}/`))) present.add(path);
  }
  return present;
}

/**
 * The contents of many blobs through one `git cat-file --batch` (the long-lived reader answers one
 * object per round trip: 10,000 of them cost seconds). In the order asked; undefined for a missing one.
 * The caller bounds the sizes (from the tree listing) before asking.
 */
export async function readBlobs(repo: GitRepository, oids: readonly string[]): Promise<Array<Buffer | undefined>> {
  if (oids.length === 0) return [];
  const { stdout } = await repo.gitBuffer(['cat-file', '--batch'], { input: oids.map((oid) => `${oid}\n`).join('') });
  const out: Array<Buffer | undefined> = [];
  let at = 0;
  for (let i = 0; i < oids.length; i++) {
    const newline = stdout.indexOf(10, at);
    if (newline < 0) break;
    const header = stdout.toString('utf8', at, newline).split(' ');
    at = newline + 1;
    if (header[1] === 'missing' || header.length < 3) {
      out.push(undefined);
      continue;
    }
    const size = Number(header[2]);
    out.push(header[1] === 'blob' ? stdout.subarray(at, at + size) : undefined);
    at += size + 1;
  }
  while (out.length < oids.length) out.push(undefined);
  return out;
}
