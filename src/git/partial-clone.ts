import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { fetchObjects } from './remote.js';
import type { GitRepository } from './repository.js';

/**
 * Partial clones (`git clone --filter=blob:none`, as CI and cloud sandboxes make them): a blob that
 * is not here is fetched by git itself the moment anything asks for it, one `git fetch` (a process
 * and a round trip to the remote) per blob. Reading a knowledge tree of 200 topics that way is 200
 * fetches; `fetchMissingBlobs` brings them in one.
 */

/**
 * Whether this repository has objects from a promisor remote (a partial clone): git marks every pack
 * it fetched from one with a `.promisor` file, so a repository without one cannot be missing objects
 * git would fetch. Answered from the pack folder alone, without a process.
 */
async function hasPromisorPacks(repo: GitRepository): Promise<boolean> {
  try {
    return (await readdir(path.join(repo.location.commonDir, 'objects', 'pack'))).some((name) => name.endsWith('.promisor'));
  } catch {
    return false;
  }
}

/** The remote git fetches missing objects from: `extensions.partialClone`, else the first `remote.<name>.promisor`. */
async function promisorRemote(repo: GitRepository): Promise<string | undefined> {
  const entries = await repo.configList('^(extensions\\.partialclone|remote\\..*\\.promisor)$');
  const named = entries.find((e) => e.key === 'extensions.partialclone')?.value;
  if (named) return named;
  const flagged = entries.find((e) => e.key.startsWith('remote.') && /^(true|yes|on|1)$/i.test(e.value));
  return flagged?.key.slice('remote.'.length, -'.promisor'.length);
}

/**
 * Makes every blob of these trees (recursively) present, in a partial clone: the missing ones are
 * listed without fetching anything (`rev-list --missing=print`, which never fetches) and fetched in
 * one request from the promisor remote (only when it is `from`, if given). Returns how many were fetched (0, and no process at all,
 * outside partial clones). A remote that cannot be reached is a typed transport error
 * (`remote-unreachable`, `auth-failed`, …) that says what was missing, instead of one failed
 * fetch per blob.
 */
export async function fetchMissingBlobs(repo: GitRepository, trees: readonly string[], options: { from?: string } = {}): Promise<number> {
  if (trees.length === 0 || !(await hasPromisorPacks(repo))) return 0;
  let remote: string | undefined;
  let fetched = 0;
  let asked = new Set<string>();
  // A clone filtered by tree depth (`--filter=tree:0`) misses trees too: what is inside a missing
  // tree is listed once that tree is here, so a few rounds (one per level that was missing) at most.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { stdout } = await repo.git(['rev-list', '--objects', '--no-object-names', '--missing=print', ...trees, '--']);
    const missing = stdout
      .split('\n')
      .filter((line) => line.startsWith('?'))
      .map((line) => line.slice(1));
    // None missing, or the remote did not send what it was asked (then readers find them missing).
    if (missing.length === 0 || missing.every((oid) => asked.has(oid))) break;
    asked = new Set(missing);
    remote ??= await promisorRemote(repo);
    // Nothing to fetch them from (readers find them missing, as git would), or objects of another
    // remote (a knowledge source) that its own fetch should have brought.
    if (!remote || (options.from !== undefined && options.from !== remote)) break;
    try {
      await fetchObjects(repo, remote, missing);
    } catch (error) {
      if (!(error instanceof BrvError)) throw error;
      throw new BrvError(
        error.kind,
        `This is a partial clone and ${missing.length} knowledge object(s) brv needs are not here yet. ${error.message}`,
        error.details,
      );
    }
    fetched += missing.length;
  }
  return fetched;
}

const MAX_ROUNDS = 8;
