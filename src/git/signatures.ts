import type { GitRepository } from './repository.js';

/**
 * git's signature check of a commit (`%G?`): G good, B bad, U good but the key is not known to be
 * valid (for ssh: not in gpg.ssh.allowedSignersFile, or outside its validity), X expired signature,
 * Y expired key, R revoked key, E cannot be checked, N no signature.
 */
export type SignatureStatus = 'G' | 'B' | 'U' | 'X' | 'Y' | 'R' | 'E' | 'N';

export interface CommitSignature {
  commit: string;
  status: SignatureStatus;
  /** The principal of the allowed-signers line that matched (`%GS`), when the key is allowed. */
  signer?: string;
  /** The signing key's fingerprint (`%GF`, else `%GK`). */
  key?: string;
  authorName: string;
  authorEmail: string;
}

export interface SignatureScan {
  signatures: CommitSignature[];
  /** git said gpg.ssh.allowedSignersFile is not configured or does not exist: ssh signatures were not checked. */
  noAllowedSigners: boolean;
}

const STATUSES = new Set<string>(['G', 'B', 'U', 'X', 'Y', 'R', 'E', 'N']);

/**
 * The signature of every commit `git log` lists for `revisions` (e.g. `[incoming, '^' + local]`), in
 * one git process: git verifies each signed commit itself, with the user's gpg/ssh configuration.
 * `allowedSignersFile` overrides git's `gpg.ssh.allowedSignersFile` (a display with no such file
 * configured passes an empty one, so ssh signatures show as signed by an unknown key rather than
 * as unsigned, which is what git 2.39 reports without one).
 */
export async function commitSignatures(
  repo: GitRepository,
  revisions: readonly string[],
  options: { allowedSignersFile?: string; maxCount?: number } = {},
): Promise<SignatureScan> {
  const config = options.allowedSignersFile !== undefined ? ['-c', `gpg.ssh.allowedSignersFile=${options.allowedSignersFile}`] : [];
  const { stdout, stderr } = await repo.git([
    ...config,
    'log',
    '--no-show-signature',
    '--format=%H%x00%G?%x00%GS%x00%GF%x00%GK%x00%an%x00%ae%x1e',
    ...(options.maxCount !== undefined ? [`--max-count=${options.maxCount}`] : []),
    ...revisions,
    '--',
  ]);
  const signatures: CommitSignature[] = [];
  for (const record of stdout.split('\x1e')) {
    const fields = record.replace(/^\n/, '').split('\0');
    if (fields.length < 7) continue;
    const [commit, status, signer, fingerprint, keyId, authorName, authorEmail] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const key = fingerprint || keyId;
    signatures.push({
      commit,
      status: (STATUSES.has(status) ? status : 'E') as SignatureStatus,
      ...(signer ? { signer } : {}),
      ...(key ? { key } : {}),
      authorName,
      authorEmail,
    });
  }
  return { signatures, noAllowedSigners: /allowedSignersFile needs to be configured/.test(stderr) };
}

/** How one signature reads in words, for logs and holds. */
export function signatureWords(status: SignatureStatus, signer: string | undefined): string {
  switch (status) {
    case 'G':
      return signer ? `signed by ${signer} (allowed)` : 'good signature';
    case 'U':
      return 'signed by a key not in the allowed signers file (or outside its validity)';
    case 'B':
      return 'bad signature';
    case 'X':
      return 'expired signature';
    case 'Y':
      return 'signed by an expired key';
    case 'R':
      return 'signed by a revoked key';
    case 'E':
      return 'signature cannot be checked';
    default:
      return 'unsigned';
  }
}
