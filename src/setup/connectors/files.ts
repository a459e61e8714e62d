import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, lstat, mkdir, readFile, readdir, realpath, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../../base/errors.js';

// File work for connectors: every path checked to stay inside its root (the work tree or the home
// directory), symbolic links refused, writes atomic (a temporary file in the same directory, then
// rename), and a group of writes applied all or nothing.

export interface ConfigFile {
  path: string;
  /** The file's text; undefined when it does not exist. */
  content: string | undefined;
  /** Permission bits of an existing file (kept on rewrite). */
  mode: number | undefined;
}

/** Whether `child` is `parent` or inside it (both absolute and normalized). */
function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The absolute path of `relative` under `root`, refusing `..`, absolute paths, and any existing
 * ancestor whose real location (symbolic links resolved) is outside the root's.
 */
export async function resolveInside(root: string, relative: string): Promise<string> {
  const parts = relative.split(/[\\/]+/).filter(Boolean);
  if (path.isAbsolute(relative) || parts.length === 0 || parts.some((part) => part === '..' || part === '.')) {
    throw new BrvError('path-outside-root', `Refusing the path "${relative}": connector files must stay inside ${root}.`);
  }
  const file = path.join(root, ...parts);
  const realRoot = await realpath(root).catch(() => {
    throw new BrvError('path-outside-root', `${root} does not exist.`);
  });
  let ancestor = path.dirname(file);
  for (;;) {
    const stats = await lstat(ancestor).catch(() => undefined);
    if (stats) {
      const real = await realpath(ancestor).catch(() => undefined);
      if (!real || !isInside(realRoot, real)) {
        throw new BrvError(
          'path-outside-root',
          `${path.relative(root, ancestor) || ancestor} leads outside ${root} (a symbolic link?); brv does not write there.`,
        );
      }
      if (!(await stat(ancestor)).isDirectory()) {
        throw new BrvError('config-not-a-file', `${ancestor} is not a directory, so brv cannot write ${file}.`);
      }
      return file;
    }
    const parent = path.dirname(ancestor);
    if (parent === ancestor) return file;
    ancestor = parent;
  }
}

/** Reads a file brv may edit: refuses symbolic links, non-files and text that is not UTF-8. */
export async function readConfigFile(file: string): Promise<ConfigFile> {
  let stats;
  try {
    stats = await lstat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path: file, content: undefined, mode: undefined };
    throw new BrvError('config-not-readable', `Cannot read ${file} (${code ?? (error as Error).message}); brv changed nothing.`);
  }
  if (stats.isSymbolicLink()) {
    throw new BrvError(
      'config-is-symlink',
      `${file} is a symbolic link; brv does not edit the file it points to. Replace the link with a regular file, or edit it by hand.`,
    );
  }
  if (!stats.isFile()) throw new BrvError('config-not-a-file', `${file} is not a regular file; brv leaves it alone.`);
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new BrvError('config-not-readable', `Cannot read ${file} (${error.code ?? error.message}); brv changed nothing.`);
  });
  const content = bytes.toString('utf8');
  if (!Buffer.from(content, 'utf8').equals(bytes)) {
    throw new BrvError('config-malformed', `${file} is not UTF-8 text; brv left it untouched.`);
  }
  return { path: file, content, mode: stats.mode & 0o7777 };
}

/** A file's new content (undefined deletes it); `before` is what was read, checked again just before writing. */
export interface FileWrite {
  path: string;
  before: string | undefined;
  after: string | undefined;
  mode: number | undefined;
}

async function writable(target: string): Promise<boolean> {
  const stats = await stat(target).catch(() => undefined);
  if (!stats) return false;
  // Even root honours a file with no write bit at all: someone made it read-only on purpose.
  if ((stats.mode & 0o222) === 0) return false;
  return access(target, constants.W_OK).then(
    () => true,
    () => false,
  );
}

async function deepestExisting(dir: string): Promise<string> {
  let current = dir;
  while (!(await lstat(current).catch(() => undefined))) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

/** Refuses the whole group before anything is written when one file or directory cannot be written. */
async function checkWritable(writes: readonly FileWrite[]): Promise<void> {
  for (const write of writes) {
    if (write.before !== undefined && write.after !== undefined && !(await writable(write.path))) {
      throw new BrvError('config-not-writable', `${write.path} is read-only; brv changed nothing. Make it writable, or edit it by hand.`);
    }
    const dir = await deepestExisting(path.dirname(write.path));
    if (!(await writable(dir))) {
      throw new BrvError('config-not-writable', `Cannot write in ${dir} (read-only); brv changed nothing.`);
    }
  }
}

/**
 * Not store/local-file.ts's writeLocalFile, which is for brv's own local state: these are the user's
 * files, in folders the user reads (so the temporary name is hidden), rewritten with exactly the
 * permission bits they had (chmod, not the umask-reduced create mode), and their folders are created
 * by the caller, which removes them again when the group of writes is rolled back.
 */
async function atomicWrite(file: string, content: string, mode: number | undefined): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.brv-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, content, { encoding: 'utf8', flag: 'wx', ...(mode !== undefined ? { mode } : {}) });
    if (mode !== undefined) await chmod(temporary, mode);
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}

/** Creates `dir` and its missing parents, returning the ones it created (outermost first). */
async function makeDirectories(dir: string): Promise<string[]> {
  const missing: string[] = [];
  let current = dir;
  while (!(await lstat(current).catch(() => undefined))) {
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  if (missing.length > 0) await mkdir(dir, { recursive: true });
  return missing;
}

/**
 * Applies a group of writes all or nothing: each file is checked to still hold what was read, every
 * file and directory to be writable, then files are replaced atomically; a failure part-way restores
 * the files already written. Returns the directories it created.
 */
export async function applyWrites(writes: readonly FileWrite[]): Promise<string[]> {
  for (const write of writes) {
    const current = await readConfigFile(write.path);
    if (current.content !== write.before) {
      throw new BrvError('config-changed', `${write.path} changed while brv was editing it; brv changed nothing. Run the command again.`);
    }
  }
  await checkWritable(writes);
  const done: FileWrite[] = [];
  const createdDirs: string[] = [];
  try {
    for (const write of writes) {
      if (write.after === undefined) {
        if (write.before !== undefined) await rm(write.path, { force: true });
      } else {
        createdDirs.push(...(await makeDirectories(path.dirname(write.path))));
        await atomicWrite(write.path, write.after, write.mode);
      }
      done.push(write);
    }
  } catch (error) {
    for (const write of done.reverse()) {
      try {
        if (write.before === undefined) await rm(write.path, { force: true });
        else await atomicWrite(write.path, write.before, write.mode);
      } catch {
        // best effort: the error below says what failed
      }
    }
    await removeEmptyDirectories(createdDirs);
    const reason = (error as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : (error as Error).message;
    if (error instanceof BrvError) throw error;
    throw new BrvError('config-not-writable', `Could not write connector files (${reason}); brv restored what it had changed.`);
  }
  return createdDirs;
}

/** Removes each directory that is empty, innermost first; directories holding anything stay. */
export async function removeEmptyDirectories(dirs: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of [...new Set(dirs)].sort((a, b) => b.length - a.length)) {
    try {
      const stats = await lstat(dir);
      if (!stats.isDirectory() || (await readdir(dir)).length > 0) continue;
      await rmdir(dir);
      removed.push(dir);
    } catch {
      // gone already, or not empty
    }
  }
  return removed;
}
