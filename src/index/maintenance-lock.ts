import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { lstat, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { localStateError, makeLocalFolder, readLocalFile, writeLocalFile } from '../store/local-file.js';

/**
 * The lock that keeps index maintenance (compaction) to one process per repository: a small file
 * `{pid, token, since}` created exclusively (O_EXCL). A query that finds compaction due starts a
 * background `brv maintenance` only if it can take the lock, so concurrent queries start at most
 * one. A lock whose process is gone (killed, crashed: `kill -9` leaves the file) or that is older
 * than `STALE_LOCK_MS` is stale and taken over, by one process only (a takeover guard). Compaction
 * is idempotent and published atomically, so the lock saves work, it does not guard correctness.
 */

/** A maintenance run takes seconds at 100,000 topics; a lock this old is abandoned whatever its pid says (pids are reused). */
export const STALE_LOCK_MS = 10 * 60 * 1000;
const MAX_LOCK_BYTES = 4096;

export interface LockHolder {
  /** The process doing (or, for a moment while it starts the child, starting) the maintenance. */
  readonly pid: number;
  /** Names this run: only the holder of the token moves or releases the lock. */
  readonly token: string;
  /** When the lock was taken (ms since the epoch). */
  readonly since: number;
}

export function newLockToken(): string {
  return randomBytes(12).toString('hex');
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const { pid, token, since } = JSON.parse(text) as Record<string, unknown>;
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0 || typeof token !== 'string' || typeof since !== 'number') return undefined;
    return { pid: pid as number, token, since };
  } catch {
    return undefined;
  }
}

const serialize = (holder: LockHolder) => `${JSON.stringify(holder)}\n`;

/** Whether a process is running: not gone, and not a zombie nobody reaps (an orphan's exit status in a container without init still answers kill 0). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return signalable(pid);
    // No such entry: gone, where /proc exists (elsewhere, ask the kernel).
    try {
      readFileSync('/proc/self/stat');
      return false;
    } catch {
      return signalable(pid);
    }
  }
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's holder when it is live; undefined when there is no lock, or it is stale or unreadable. */
export async function liveHolder(file: string, now = Date.now()): Promise<LockHolder | undefined> {
  const read = await readHolder(file);
  return read && !stale(read.holder, read.mtimeMs, now) ? read.holder : undefined;
}

async function readHolder(file: string): Promise<{ holder: LockHolder | undefined; text: string; mtimeMs: number } | undefined> {
  let bytes;
  let mtimeMs;
  try {
    mtimeMs = (await lstat(file)).mtimeMs;
    bytes = await readLocalFile(file, MAX_LOCK_BYTES);
  } catch {
    // Not a bounded regular file (a directory, a link): damaged, treated as a stale lock.
    return { holder: undefined, text: '', mtimeMs: 0 };
  }
  if (bytes === undefined) return undefined;
  const text = bytes.toString('utf8');
  return { holder: parseHolder(text), text, mtimeMs };
}

function stale(holder: LockHolder | undefined, mtimeMs: number, now: number): boolean {
  if (!holder) return now - mtimeMs > 5000; // a lock being written right now is empty for a moment
  return now - Math.min(holder.since, mtimeMs) > STALE_LOCK_MS || !running(holder.pid);
}

/** A takeover guard older than this belongs to a process that died while taking over: removed. */
const STALE_GUARD_MS = 10_000;

/** Creates `file` with `text` only if it does not exist (O_EXCL): true when this call created it. */
async function createExclusive(file: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
  } catch (error) {
    // A full disk: no empty lock is left behind.
    await handle.close().catch(() => {});
    await unlink(file).catch(() => {});
    throw error;
  }
  await handle.close();
  return true;
}

/**
 * Takes the lock for `holder`: true when it is now theirs; false when a live lock is held by
 * someone else (or someone else is taking a stale one over right now). The lock file is created
 * exclusively; a stale one is never deleted, but replaced whole by the one process that holds the
 * takeover guard (`<lock>.takeover`, also created exclusively) after checking again, under the guard,
 * that the lock is still stale — so of many processes finding one stale lock, exactly one takes it.
 */
export async function acquireLock(file: string, holder: LockHolder): Promise<boolean> {
  try {
    return await acquire(file, holder);
  } catch (error) {
    // A folder that cannot be written (read-only, full, not this user's) is a typed error naming it.
    throw error instanceof BrvError ? error : localStateError(file, error as NodeJS.ErrnoException);
  }
}

async function acquire(file: string, holder: LockHolder): Promise<boolean> {
  const text = serialize(holder);
  await makeLocalFolder(path.dirname(file));
  if (await createExclusive(file, text)) return true;
  const read = await readHolder(file);
  if (read && !stale(read.holder, read.mtimeMs, Date.now())) return false;
  const guard = `${file}.takeover`;
  if (!(await createExclusive(guard, text))) {
    const since = await lstat(guard).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
    if (since === undefined || Date.now() - since <= STALE_GUARD_MS) return false;
    await unlink(guard).catch(() => {});
    if (!(await createExclusive(guard, text))) return false;
  }
  try {
    // Under the guard: the lock may have been released, or taken, since it was read.
    if (await createExclusive(file, text)) return true;
    const again = await readHolder(file);
    if (again && !stale(again.holder, again.mtimeMs, Date.now())) return false;
    // Whole (temp file + rename): a reader sees the old lock or ours. The lock sits in brv's own index
    // folder, so a directory planted in its place is removed.
    await writeLocalFile(file, text, { repair: path.dirname(file) });
    return true;
  } finally {
    await unlink(guard).catch(() => {});
  }
}

/** Hands the lock of `token` to another process (the background child the holder started); false when the lock is no longer this token's. */
export async function moveLock(file: string, token: string, pid: number): Promise<boolean> {
  const read = await readHolder(file);
  if (read?.holder?.token !== token) return false;
  await writeLocalFile(file, serialize({ ...read.holder, pid }));
  return true;
}

/** Releases the lock when it is still `token`'s (a lock taken over meanwhile is someone else's). */
export async function releaseLock(file: string, token: string): Promise<void> {
  const read = await readHolder(file);
  if (read?.holder?.token === token) await unlink(file).catch(() => {});
}
