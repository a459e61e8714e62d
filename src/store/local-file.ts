import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fdatasyncSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { lstat, mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';

/**
 * Local state (indexes, sessions, sync state, this worktree's brv/HEAD) is read without trusting the
 * file system: a symlink at the last component is not followed (it could point at /dev/zero), a FIFO or
 * device never blocks (O_NONBLOCK, then fstat), a directory is not read, and the size is bounded.
 */
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/** What to tell the user when a cache is damaged; authoritative state passes its own fix. */
const REBUILD = 'brv rebuilds it if you delete it (or run brv doctor)';

function unreadable(file: string, why: string, fix = REBUILD): BrvError {
  return new BrvError('corrupt-local-state', `${file} ${why}; ${fix}.`, { file });
}

function refuse(file: string, error: NodeJS.ErrnoException, fix?: string): BrvError {
  if (error.code === 'ELOOP') return unreadable(file, 'is a symbolic link, which brv does not follow in its local state', fix);
  if (error.code === 'EISDIR') return unreadable(file, 'is a directory', fix);
  return unreadable(file, `cannot be read (${error.code ?? error.message})`, fix);
}

function checkStat(file: string, stat: { isFile(): boolean; size: number | bigint }, maxBytes: number, fix?: string): void {
  if (!stat.isFile()) throw unreadable(file, 'is not a regular file', fix);
  if (stat.size > BigInt(maxBytes)) throw unreadable(file, `is ${stat.size} bytes, more than the ${maxBytes} expected`, fix);
}

/**
 * The file's bytes; undefined when it does not exist; `corrupt-local-state` when it is not a bounded
 * regular file. `fix` replaces the default advice (delete it, brv rebuilds it) for state brv cannot rebuild.
 */
export async function readLocalFile(file: string, maxBytes: number, fix?: string): Promise<Buffer | undefined> {
  return (await readLocalFileStat(file, maxBytes, fix))?.bytes;
}

/** What `readLocalFileStat` read: the bytes, and the file's status (fstat of the same descriptor, taken before reading). */
export interface LocalFileRead {
  readonly bytes: Buffer;
  readonly stat: BigIntStats;
}

/**
 * `readLocalFile`, with the status of the file that was read (nanosecond times, as bigints): the
 * fstat of the descriptor the bytes came from, taken before they were read, so a later change to the
 * file shows in its ctime.
 */
export async function readLocalFileStat(file: string, maxBytes: number, fix?: string): Promise<LocalFileRead | undefined> {
  let handle;
  try {
    handle = await open(file, FLAGS);
  } catch (error) {
    if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw refuse(file, error as NodeJS.ErrnoException, fix);
  }
  try {
    const stat = await handle.stat({ bigint: true });
    checkStat(file, stat, maxBytes, fix);
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) throw unreadable(file, `is more than the ${maxBytes} bytes expected`, fix);
    return { bytes, stat };
  } catch (error) {
    throw error instanceof BrvError ? error : refuse(file, error as NodeJS.ErrnoException, fix);
  } finally {
    await handle.close();
  }
}

/** A local file opened for reading parts of it later: its descriptor (the caller closes it) and status. */
export interface LocalFileHandle {
  readonly fd: number;
  readonly stat: BigIntStats;
}

/**
 * Opens a local file as `readLocalFileStat` reads one (no symbolic link, a bounded regular file),
 * reading nothing yet; undefined when it does not exist.
 */
export function openLocalFileSync(file: string, maxBytes: number, fix?: string): LocalFileHandle | undefined {
  let fd;
  try {
    fd = openSync(file, FLAGS);
  } catch (error) {
    if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw refuse(file, error as NodeJS.ErrnoException, fix);
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    checkStat(file, stat, maxBytes, fix);
    return { fd, stat };
  } catch (error) {
    closeSync(fd);
    throw error instanceof BrvError ? error : refuse(file, error as NodeJS.ErrnoException, fix);
  }
}

/** Synchronous `readLocalFile`, for code paths that are synchronous by design (the launcher, caches). */
export function readLocalFileSync(file: string, maxBytes: number): Buffer | undefined {
  const opened = openLocalFileSync(file, maxBytes);
  if (!opened) return undefined;
  const { fd, stat } = opened;
  try {
    const bytes = Buffer.allocUnsafe(Number(stat.size));
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

/**
 * What a local state file holds: bytes, text (UTF-8), or, for files too big to build in memory, a
 * function that yields them in chunks (called again when a write is retried).
 */
export type LocalFileData = string | Uint8Array | (() => Iterable<Uint8Array>);

export interface LocalWriteOptions {
  /** File mode of a newly written file (0o666 minus the umask by default). */
  mode?: number;
  /** flush the data to disk before the rename (state brv cannot rebuild). */
  durable?: boolean;
  /**
   * For caches, the local state folder they live in: whatever is in the way below it (a directory
   * where the file goes, a file or link where a folder goes) is brv's own damaged state and is
   * removed, once, before giving up. Nothing above this folder is ever touched.
   */
  repair?: string;
  /** Advice for a damaged destination that brv does not repair itself. */
  fix?: string;
}

const IN_THE_WAY = new Set(['EISDIR', 'ENOTDIR', 'EEXIST', 'ENOTEMPTY']);

/**
 * The typed error of a failed write of local state `file`, saying what the system said: something in
 * its place (`corrupt-local-state`), no file descriptor left (`too-many-open-files`), or
 * `local-state-unwritable` naming the cause — permission denied, a read-only file system, a full disk
 * or quota, the file size limit — the folder it concerns and the fix. Every write of local state
 * (this module, the maintenance lock) reports its failures through it.
 */
export function localStateError(file: string, error: NodeJS.ErrnoException, fix?: string): BrvError {
  const code = error.code ?? error.message;
  if (IN_THE_WAY.has(error.code ?? '')) {
    const blocker = inTheWay(file);
    return new BrvError(
      'corrupt-local-state',
      `Cannot write ${file} (${code}): something that is not brv's (a directory or a file) is in its place` +
        `${blocker === file ? '' : ` (${blocker} is not a folder)`}; ${fix ?? `remove ${blocker} and run the command again`}.`,
      { file },
    );
  }
  if (error.code === 'EMFILE' || error.code === 'ENFILE') {
    return new BrvError(
      'too-many-open-files',
      `Cannot write ${file}: no file descriptor left (${code}: the open-file limit is reached). Raise it (ulimit -n 1024, or more) or close other programs, and run the command again.`,
      { file },
    );
  }
  // The folder the system refused to change: where a file is created or renamed, or a folder made.
  const folder = path.dirname(typeof error.path === 'string' && path.isAbsolute(error.path) ? error.path : file);
  const kept = 'nothing was changed there';
  let why: string;
  switch (error.code) {
    case 'EACCES':
    case 'EPERM': {
      const uid = process.getuid?.();
      why =
        `permission denied (${code}): ${folder} is not writable by the user running brv${uid === undefined ? '' : ` (uid ${uid})`}; ${kept}. ` +
        `Give that user write access to it (ls -ld ${folder} shows its owner and mode; chown or chmod it), or run brv as its owner`;
      break;
    }
    case 'EROFS':
      why = `${folder} is on a read-only file system (${code}); ${kept}. Remount it read-write (brv keeps its indexes, sessions and brv/HEAD there)`;
      break;
    case 'ENOSPC':
    case 'EDQUOT':
      why = `${error.code === 'ENOSPC' ? 'no space left on the device' : 'the disk quota is exceeded'} (${code}) holding ${folder}; ${kept}. Free some space and run the command again`;
      break;
    case 'EFBIG':
      why = `the file size limit is reached (${code}: ulimit -f); ${kept}. Raise it and run the command again`;
      break;
    default:
      why = `${code}. Check the permissions of ${folder} and the free disk space`;
  }
  return new BrvError('local-state-unwritable', `Cannot write ${file}: ${why}.`, { file });
}

/** What stands in the way of writing `file`: the outermost path on its way that exists and is not a folder, else `file`. */
function inTheWay(file: string): string {
  let found = file;
  for (let current = path.dirname(file); path.dirname(current) !== current; current = path.dirname(current)) {
    try {
      if (!lstatSync(current).isDirectory()) found = current;
    } catch {
      // not there: nothing in the way at this level
    }
  }
  return found;
}

/**
 * Creates `dir` and its missing parents. Node's recursive mkdir reports ENOENT for any failure to
 * create a folder below one that exists (a read-only `.git/brv` is "ENOENT", not EROFS or EACCES):
 * then the missing folders are made one by one, so the error is the real one, on the real folder.
 */
export async function makeLocalFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    for (const folder of await missingFolders(dir)) {
      await mkdir(folder).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
    }
  }
}

/** Synchronous `makeLocalFolder`. */
function makeLocalFolderSync(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const missing: string[] = [];
    for (let current = dir; !existsSync(current) && path.dirname(current) !== current; current = path.dirname(current))
      missing.unshift(current);
    for (const folder of missing) {
      try {
        mkdirSync(folder);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
  }
}

/** `dir` and its parents that do not exist, outermost first. */
async function missingFolders(dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (let current = dir; path.dirname(current) !== current; current = path.dirname(current)) {
    if (
      await lstat(current).then(
        () => true,
        () => false,
      )
    )
      break;
    missing.unshift(current);
  }
  return missing;
}

/** Removes what stands where a folder of brv's local state should be (a file, a link), from `root` down to `dir`. */
async function clearNonDirectories(root: string, dir: string): Promise<void> {
  const relative = path.relative(root, dir);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return;
  let current = root;
  for (const part of ['', ...relative.split(path.sep).filter(Boolean)]) {
    current = path.join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (!info) return;
    if (!info.isDirectory()) {
      await rm(current, { force: true });
      return;
    }
  }
}

/**
 * A temporary name beside `file`, unique per write (not only per process). It is created exclusively
 * (O_EXCL, O_NOFOLLOW): a planted file or symbolic link at the name makes open fail instead of being
 * written through.
 */
function temporaryName(file: string): string {
  return `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

async function writeTemporary(file: string, data: LocalFileData, options: LocalWriteOptions): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const temporary = temporaryName(file);
    let handle;
    try {
      handle = await open(temporary, CREATE, options.mode ?? 0o666);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 3) continue;
      throw error;
    }
    try {
      if (typeof data !== 'function') await handle.writeFile(data);
      else {
        for (const chunk of data()) {
          for (let written = 0; written < chunk.length;) written += (await handle.write(chunk, written)).bytesWritten;
        }
      }
      if (options.durable) await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => {});
      await unlink(temporary).catch(() => {});
      throw error;
    }
    await handle.close();
    return temporary;
  }
}

/**
 * Writes a local state file atomically: a uniquely named temporary file beside it, created with
 * O_EXCL (never through a planted link), then renamed over the file, which replaces a symbolic link
 * or FIFO there instead of following it. The temporary file is removed when anything fails. Errors
 * are typed: `corrupt-local-state` when something is in the file's or its folder's place (removed
 * and retried once with `repair`), `local-state-unwritable` otherwise; a BrvError thrown while the
 * data is produced passes through as it is.
 */
export async function writeLocalFile(file: string, data: LocalFileData, options: LocalWriteOptions = {}): Promise<void> {
  const dir = path.dirname(file);
  for (let attempt = 0; ; attempt++) {
    let temporary: string | undefined;
    try {
      await makeLocalFolder(dir);
      temporary = await writeTemporary(file, data, options);
      await rename(temporary, file);
      return;
    } catch (error) {
      if (temporary) await unlink(temporary).catch(() => {});
      if (error instanceof BrvError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (options.repair && attempt === 0 && IN_THE_WAY.has(code)) {
        // A file where a folder goes (mkdir: EEXIST/ENOTDIR), or a folder where the file goes (rename: EISDIR…).
        if (temporary) await rm(file, { recursive: true, force: true }).catch(() => {});
        else await clearNonDirectories(options.repair, dir).catch(() => {});
        continue;
      }
      // Something in the way of the folder is named as such; any other failure names the file written.
      throw localStateError(temporary || !IN_THE_WAY.has(code) ? file : dir, error as NodeJS.ErrnoException, options.fix);
    }
  }
}

/**
 * Synchronous `writeLocalFile`, for code that is synchronous by design (the per-blob document cache
 * writes thousands of small files, faster so than through promises): the same unique temporary
 * name, exclusive creation, rename and cleanup, the same typed errors. The folder is created only
 * when the first open finds it missing; nothing in the way is repaired.
 */
export function writeLocalFileSync(file: string, data: string | Uint8Array, options: Omit<LocalWriteOptions, 'repair'> = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let temporary: string | undefined;
  try {
    let fd: number | undefined;
    for (let attempt = 0; fd === undefined; attempt++) {
      const name = temporaryName(file);
      try {
        fd = openSync(name, CREATE, options.mode ?? 0o666);
        temporary = name;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && attempt === 0) makeLocalFolderSync(path.dirname(file));
        else if (code !== 'EEXIST' || attempt >= 3) throw error;
      }
    }
    try {
      for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
      if (options.durable) fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary!, file);
  } catch (error) {
    if (temporary) {
      try {
        unlinkSync(temporary);
      } catch {
        // already gone, or renamed
      }
    }
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw localStateError(temporary || !IN_THE_WAY.has(code) ? file : path.dirname(file), error as NodeJS.ErrnoException, options.fix);
  }
}
