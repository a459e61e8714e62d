import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { BrvError } from '../errors.js';

/**
 * Local state (indexes, sessions, sync state, this worktree's brv/HEAD) is read without trusting the
 * file system: a symlink at the last component is not followed (it could point at /dev/zero), a FIFO or
 * device never blocks (O_NONBLOCK, then fstat), a directory is not read, and the size is bounded.
 */
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

const MISSING = new Set(['ENOENT', 'ENOTDIR']);

function unreadable(file: string, why: string): BrvError {
  return new BrvError('corrupt-local-state', `${file} ${why}; brv rebuilds it if you delete it (or run brv doctor).`, { file });
}

function refuse(file: string, error: NodeJS.ErrnoException): BrvError {
  if (error.code === 'ELOOP') return unreadable(file, 'is a symbolic link, which brv does not follow in its local state');
  if (error.code === 'EISDIR') return unreadable(file, 'is a directory');
  return unreadable(file, `cannot be read (${error.code ?? error.message})`);
}

function checkStat(file: string, stat: { isFile(): boolean; size: number }, maxBytes: number): void {
  if (!stat.isFile()) throw unreadable(file, 'is not a regular file');
  if (stat.size > maxBytes) throw unreadable(file, `is ${stat.size} bytes, more than the ${maxBytes} expected`);
}

/** The file's bytes; undefined when it does not exist; `corrupt-local-state` when it is not a bounded regular file. */
export async function readLocalFile(file: string, maxBytes: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, FLAGS);
  } catch (error) {
    if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw refuse(file, error as NodeJS.ErrnoException);
  }
  try {
    checkStat(file, await handle.stat(), maxBytes);
    return await handle.readFile();
  } catch (error) {
    throw error instanceof BrvError ? error : refuse(file, error as NodeJS.ErrnoException);
  } finally {
    await handle.close();
  }
}

/** Synchronous `readLocalFile`, for code paths that are synchronous by design (the launcher, caches). */
export function readLocalFileSync(file: string, maxBytes: number): Buffer | undefined {
  let fd;
  try {
    fd = openSync(file, FLAGS);
  } catch (error) {
    if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw refuse(file, error as NodeJS.ErrnoException);
  }
  try {
    const stat = fstatSync(fd);
    checkStat(file, stat, maxBytes);
    const bytes = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } catch (error) {
    throw error instanceof BrvError ? error : refuse(file, error as NodeJS.ErrnoException);
  } finally {
    closeSync(fd);
  }
}
