import type { GitRepository } from '../git/repository.js';
import { parseCommitMessage, printableLine, type CommitMeta } from './trailers.js';

export interface HistoryEntry {
  commit: string;
  parents: string[];
  time: string;
  author: string;
  subject: string;
  meta: Partial<CommitMeta>;
  changes: Array<{ status: 'added' | 'modified' | 'deleted'; path: string }>;
  /**
   * Set on the last commit a shallow clone has (`git fetch --depth` of the knowledge refs): its
   * parents are not in this clone, so `parents` is empty and `changes` is empty too (git would list
   * every topic as added, as if the history began there).
   */
  shallow?: true;
}

const STATUS: Record<string, HistoryEntry['changes'][number]['status']> = { A: 'added', M: 'modified', D: 'deleted' };

/** The commits of a brv ref, newest first, with their trailers and the files each one changed. */
export async function readHistory(
  repo: GitRepository,
  refs: string | readonly string[],
  limit: number,
  options: { path?: string; firstParent?: boolean } = {},
): Promise<HistoryEntry[]> {
  const { stdout } = await repo.git(
    [
      '-c',
      'core.quotePath=false',
      'log',
      `-n${limit}`,
      '--no-renames',
      ...(options.firstParent === false ? [] : ['--first-parent']),
      '-m',
      '--name-status',
      // %D with every ref excluded leaves one decoration, "grafted": a shallow boundary.
      '--decorate-refs-exclude=refs/*',
      '--decorate-refs-exclude=HEAD',
      '--format=%x1e%H%x1f%P%x1f%aI%x1f%an <%ae>%x1f%D%x1f%B%x1f',
      ...(typeof refs === 'string' ? [refs] : refs),
      '--',
      ...(options.path ? [options.path] : []),
    ],
    { okExitCodes: [128] },
  );
  const entries: HistoryEntry[] = [];
  for (const record of stdout.split('\x1e').slice(1)) {
    const [commit, parents, time, author, decorations, body, files] = record.split('\x1f');
    const shallow = (decorations ?? '').split(', ').includes('grafted');
    const { subject, meta } = parseCommitMessage(body ?? '');
    const changes: HistoryEntry['changes'] = [];
    for (const line of shallow ? [] : (files ?? '').split('\n')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const status = STATUS[line.slice(0, tab).charAt(0)];
      if (status) changes.push({ status, path: printableLine(line.slice(tab + 1)) });
    }
    entries.push({
      commit: commit!,
      parents: (parents ?? '').split(' ').filter(Boolean),
      time: time!,
      author: printableLine(author!),
      subject,
      meta,
      changes,
      ...(shallow ? { shallow: true as const } : {}),
    });
  }
  return entries;
}
