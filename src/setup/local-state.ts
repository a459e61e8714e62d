import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface LocalStateProblem {
  /** The file or folder, absolute. */
  readonly file: string;
  readonly problem: string;
  readonly fix: string;
}

/** Local state is caches and small files brv writes itself: far fewer entries than this, far shallower. */
const MAX_ENTRIES = 200_000;
const MAX_DEPTH = 8;

function special(entry: Dirent): string | undefined {
  if (entry.isSymbolicLink()) return 'a symbolic link (brv never writes one and does not follow it)';
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSocket()) return 'a socket';
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return 'a device';
  return undefined;
}

/**
 * Finds what would make brv's local state misbehave: special files (links, FIFOs, devices) anywhere
 * below `<git-common-dir>/brv/`, and the worktree's `brv/HEAD` not being a regular file. Walks with
 * lstat only, bounded in entries and depth, so a planted loop or FIFO cannot hang it.
 */
export async function localStateProblems(commonDir: string, gitDir: string): Promise<LocalStateProblem[]> {
  const problems: LocalStateProblem[] = [];
  const root = path.join(commonDir, 'brv');
  const head = path.join(gitDir, 'brv', 'HEAD');
  const headInfo = await lstat(head).catch(() => undefined);
  if (headInfo && !headInfo.isFile()) {
    problems.push({ file: head, problem: 'is not a regular file', fix: `rm -rf '${head}' && brv vc checkout <branch>` });
  }
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) return;
      const file = path.join(dir, entry.name);
      const what = special(entry);
      if (what) {
        if (file !== head) problems.push({ file, problem: `is ${what}`, fix: `rm '${file}' (brv rebuilds what it needs)` });
      } else if (entry.isDirectory() && depth < MAX_DEPTH) await walk(file, depth + 1);
    }
  };
  await walk(root, 0);
  return problems;
}
