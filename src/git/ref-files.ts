import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

/**
 * Reading refs from git's own files (a loose ref file, else `packed-refs`), without starting git:
 * what lets a warm command find a tip with no process (discovery-cache.ts) and compare a brv branch
 * with its remote-tracking ref on every read (src/vc/arrival.ts). Only the plain case is told:
 * anything else (reftable, a symbolic ref, an unreadable or oversized file, a malformed value) is
 * `undefined`, which means "ask git".
 */

/** A repository with this many refs packed is better asked through git. */
const MAX_PACKED_REFS_BYTES = 16 * 1024 * 1024;
const REF = /^refs\/[A-Za-z0-9._/-]+$/;

export function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** A regular file's text, at most `maxBytes`, not following a symbolic link; undefined when there is none. */
export function readRegularFile(file: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const bytes = Buffer.alloc(stat.size);
    return readSync(fd, bytes, 0, bytes.length, 0) === bytes.length ? bytes.toString('utf8') : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A ref's object id as git stores it under `dir` (the common git directory for shared refs): its
 * loose file first, then packed-refs. `null`: the ref certainly does not exist (no loose file, and a
 * readable packed-refs, or none, without it); `undefined`: cannot be told from the files (reftable, a
 * symbolic or malformed ref, an unreadable file): ask git.
 */
export function readRefFile(dir: string, ref: string, objectFormat: 'sha1' | 'sha256'): string | null | undefined {
  return readRefFileWhere(dir, ref, objectFormat)?.oid;
}

/**
 * readRefFile, also saying where the value came from: `loose`, or `packed` with the stamp of the
 * packed-refs file read. `known`: a value read before from packed-refs with that stamp; while there is
 * still no loose file and packed-refs has the same stamp, it is the answer without reading packed-refs
 * again (a repository with many refs packed has a large one). undefined: ask git.
 */
export function readRefFileWhere(
  dir: string,
  ref: string,
  objectFormat: 'sha1' | 'sha256',
  known?: { packed: string; oid: string | null },
): { oid: string | null; packed?: string } | undefined {
  try {
    if (!REF.test(ref) || ref.split('/').some((part) => part === '' || part.startsWith('.'))) return undefined;
    const oid = objectFormat === 'sha256' ? /^[0-9a-f]{64}$/ : /^[0-9a-f]{40}$/;
    if (lstatOrUndefined(path.join(dir, 'reftable'))) return undefined;
    const looseFile = path.join(dir, ref);
    const loose = lstatOrUndefined(looseFile);
    if (loose) {
      // A loose ref wins over packed-refs; one that is not a plain object id (a symbolic ref) is git's to read.
      const value = loose.isFile() ? readRegularFile(looseFile, 1024)?.trimEnd() : undefined;
      return value !== undefined && oid.test(value) ? { oid: value } : undefined;
    }
    const packedFile = path.join(dir, 'packed-refs');
    const stamp = fileStamp(packedFile) ?? 'none';
    if (known && known.packed === stamp && (known.oid === null || oid.test(known.oid))) return { oid: known.oid, packed: stamp };
    if (stamp === 'none') return lstatOrUndefined(packedFile) ? undefined : { oid: null, packed: stamp };
    const packed = readRegularFile(packedFile, MAX_PACKED_REFS_BYTES);
    if (packed === undefined) return undefined;
    for (const line of packed.split('\n')) {
      if (line.endsWith(` ${ref}`)) {
        const value = line.slice(0, line.length - ref.length - 1);
        return oid.test(value) ? { oid: value, packed: stamp } : undefined;
      }
    }
    return { oid: null, packed: stamp };
  } catch {
    return undefined;
  }
}

/** `<inode>:<size>:<mtime ms>` of a regular file (a config file), or undefined when there is none. */
export function fileStamp(file: string): string | undefined {
  const stat = lstatOrUndefined(file);
  return stat?.isFile() ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : undefined;
}
