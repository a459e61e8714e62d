import type { GitRepository } from '../git/repository.js';
import { signatureWords, type SignatureStatus } from '../git/signatures.js';
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
  /** Its signature as git checked it; only when asked for (signing or the trust policy is configured). */
  signature?: EntrySignature;
}

/** A commit's signature state: git's letter (`%G?`), in words, and who signed with which key. */
export interface EntrySignature {
  status: SignatureStatus;
  /** "signed by alice@example.com (allowed)", "unsigned", "bad signature"… */
  text: string;
  signer?: string;
  key?: string;
}

const STATUS: Record<string, HistoryEntry['changes'][number]['status']> = { A: 'added', M: 'modified', D: 'deleted' };

/** The commits of a brv ref, newest first, with their trailers and the files each one changed. */
export async function readHistory(
  repo: GitRepository,
  refs: string | readonly string[],
  limit: number,
  options: {
    path?: string;
    firstParent?: boolean;
    /**
     * Each commit's signature, checked by git in the same process (`%G?`: git verifies every signed
     * commit). `allowedSignersFile` overrides git's, for a display with none configured.
     */
    signatures?: { allowedSignersFile?: string };
  } = {},
): Promise<HistoryEntry[]> {
  const signatures = options.signatures;
  const { stdout } = await repo.git(
    [
      '-c',
      'core.quotePath=false',
      ...(signatures?.allowedSignersFile !== undefined ? ['-c', `gpg.ssh.allowedSignersFile=${signatures.allowedSignersFile}`] : []),
      'log',
      '--no-show-signature',
      `-n${limit}`,
      '--no-renames',
      ...(options.firstParent === false ? [] : ['--first-parent']),
      '-m',
      '--name-status',
      // %D with every ref excluded leaves one decoration, "grafted": a shallow boundary.
      '--decorate-refs-exclude=refs/*',
      '--decorate-refs-exclude=HEAD',
      `--format=%x1e%H%x1f%P%x1f%aI%x1f%an <%ae>%x1f%D%x1f${signatures ? '%G?%x1d%GS%x1d%GF%x1d%GK' : ''}%x1f%B%x1f`,
      ...(typeof refs === 'string' ? [refs] : refs),
      '--',
      ...(options.path ? [options.path] : []),
    ],
    { okExitCodes: [128] },
  );
  const entries: HistoryEntry[] = [];
  for (const record of stdout.split('\x1e').slice(1)) {
    const [commit, parents, time, author, decorations, signed, body, files] = record.split('\x1f');
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
      ...(signatures ? { signature: entrySignature(signed ?? '', signatures.allowedSignersFile !== undefined) } : {}),
    });
  }
  return entries;
}

const STATUSES = new Set<string>(['G', 'B', 'U', 'X', 'Y', 'R', 'E', 'N']);

/** `%G?%x1d%GS%x1d%GF%x1d%GK` as an EntrySignature; `unchecked`: no allowed-signers file, so ssh keys are not vouched for. */
function entrySignature(field: string, unchecked: boolean): EntrySignature {
  const [letter = '', principal = '', fingerprint = '', keyId = ''] = field.split('\x1d');
  const status = (STATUSES.has(letter) ? letter : 'E') as SignatureStatus;
  const signer = principal ? printableLine(principal) : undefined;
  const key = fingerprint || keyId ? printableLine(fingerprint || keyId) : undefined;
  const text =
    status === 'U' && unchecked
      ? `signed${key ? ` with key ${key}` : ''}, not checked (no gpg.ssh.allowedSignersFile)`
      : `${signatureWords(status, signer)}${status !== 'G' && status !== 'N' && key ? ` (key ${key})` : ''}`;
  return { status, text, ...(signer ? { signer } : {}), ...(key ? { key } : {}) };
}
