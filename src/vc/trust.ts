import { access, constants, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { BrvError } from '../base/errors.js';
import { commitSignatures, signatureWords } from '../git/signatures.js';
import type { GitRepository } from '../git/repository.js';
import { readSettings } from '../settings/settings.js';
import { printableLine } from '../store/trailers.js';

// Knowledge only from people the team trusts (issue 32, point 7). With the setting
// sync.requireSigned on, every commit an incoming change brings (those in `local..incoming`, new to this clone; merges
// made here are the user's own) must carry a good signature by a key in git's own
// gpg.ssh.allowedSignersFile: git checks them, all in one `git log`. integrateIncoming
// (removal.ts) holds what fails as a review instead of applying it.
//
// The list is git's, not a brv setting: the team keeps one allowed-signers file (often committed in
// the code), and `git log --show-signature` / `git verify-commit` agree with brv about it.

/** A commit an incoming change brings that the policy does not accept, and why. */
export interface UntrustedCommit {
  commit: string;
  /** "Name <email>" as the commit says (anyone can write any author). */
  author: string;
  /** The allowed-signers principal that signed it, when one did. */
  signer?: string;
  /** The signing key's fingerprint, when it is signed. */
  key?: string;
  /** Why it is not accepted, in words: "unsigned", "signed by a key not in the allowed signers file"… */
  why: string;
}

/**
 * The policy's list must be there: git's gpg.ssh.allowedSignersFile set and, when it is an absolute
 * path (after git expands `~`), a readable file. Without one git reports ssh-signed commits as
 * unsigned (unset) or signed by an unknown key (missing file), so this is a typed error instead.
 */
export async function requireTrustConfigured(repo: GitRepository): Promise<void> {
  const { stdout, exitCode } = await repo.git(['config', '--type=path', '--get', 'gpg.ssh.allowedSignersFile'], { okExitCodes: [1] });
  const file = exitCode === 0 ? stdout.trim() : '';
  const fix =
    "Point it at the team's allowed signers file (git config gpg.ssh.allowedSignersFile <file>), or turn the policy off (brv settings set sync.requireSigned false).";
  if (!file)
    throw new BrvError(
      'trust-not-configured',
      `The setting sync.requireSigned is on, but git has no gpg.ssh.allowedSignersFile to check signatures against, so no fetched knowledge was taken. ${fix}`,
    );
  if (isAbsolute(file)) {
    const readable = await stat(file)
      .then(async (info) => info.isFile() && (await access(file, constants.R_OK).then(() => true)))
      .catch(() => false);
    if (!readable)
      throw new BrvError(
        'trust-not-configured',
        `The setting sync.requireSigned is on, but gpg.ssh.allowedSignersFile names ${file}, which is not a readable file, so no fetched knowledge was taken. ${fix}`,
        { file },
      );
  }
}

/**
 * The commits of `incoming` that `local` does not have (all of its history when there is no local
 * branch) and that fail the policy: not a good signature (git's `G`) by an allowed key, or signed by
 * one person's key under another's name (the allowed-signers principal is an exact address and the
 * author's address differs). One git process for the whole range.
 */
export async function untrustedCommits(repo: GitRepository, incoming: string, local: string | undefined): Promise<UntrustedCommit[]> {
  const scan = await commitSignatures(repo, local ? [incoming, `^${local}`] : [incoming]);
  if (scan.noAllowedSigners) {
    throw new BrvError(
      'trust-not-configured',
      'The setting sync.requireSigned is on, but the file gpg.ssh.allowedSignersFile names does not exist or cannot be read, so no fetched knowledge was taken. ' +
        'Fix the path (git config gpg.ssh.allowedSignersFile <file>), or turn the policy off (brv settings set sync.requireSigned false).',
    );
  }
  const untrusted: UntrustedCommit[] = [];
  for (const sig of scan.signatures) {
    const author = printableLine(`${sig.authorName} <${sig.authorEmail}>`);
    const signer = sig.signer === undefined ? undefined : printableLine(sig.signer);
    let why: string | undefined;
    if (sig.status !== 'G') why = signatureWords(sig.status, undefined);
    else if (signer && isExactAddress(signer) && signer.toLowerCase() !== sig.authorEmail.toLowerCase())
      why = `signed by ${signer}, but the author is ${printableLine(sig.authorEmail)}`;
    if (why) untrusted.push({ commit: sig.commit, author, ...(signer ? { signer } : {}), ...(sig.key ? { key: sig.key } : {}), why });
  }
  return untrusted;
}

/** A principal that names one address (no wildcard pattern, no list). */
function isExactAddress(principal: string): boolean {
  return principal.includes('@') && !/[*?,!\s]/.test(principal);
}

/** One line per held commit, as the hold's commit records it: `<oid> <author>: <why> [key <fp>]`. */
export function untrustedLine(commit: UntrustedCommit): string {
  return `${commit.commit.slice(0, 12)} ${commit.author}: ${commit.why}${commit.key ? ` [key ${commit.key}]` : ''}`;
}

/**
 * With the policy on, refuses to start a brv branch at a fetched tip whose history has a commit the
 * policy does not accept (there is no local branch to hold it against): `untrusted-knowledge`, naming
 * them. Nothing to do when the policy is off (one `git config` run).
 */
export async function refuseUntrusted(repo: GitRepository, incoming: string, source: string, branch: string): Promise<void> {
  if (!(await readSettings(repo))['sync.requireSigned']) return;
  await requireTrustConfigured(repo);
  const untrusted = await untrustedCommits(repo, incoming, undefined);
  if (untrusted.length === 0) return;
  throw new BrvError(
    'untrusted-knowledge',
    `${source} has ${untrusted.length} commit(s) not signed by an allowed key (setting sync.requireSigned), and there is no brv branch ${branch} here to keep instead, so nothing was taken: ` +
      untrusted.slice(0, 3).map(untrustedLine).join('; ') +
      (untrusted.length > 3 ? `; and ${untrusted.length - 3} more` : '') +
      '. Ask the authors to sign their commits with an allowed key (or add their keys to gpg.ssh.allowedSignersFile), then pull again.',
    { source, branch, commits: untrusted.map((c) => c.commit) },
  );
}
