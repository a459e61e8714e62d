import { checksum } from './checksum.js';
import type { BigIntStats } from 'node:fs';

/**
 * Stamps of segment files whose SHA-256 was found to match their content-addressed name: the file's
 * device, inode, size, mtime and ctime (nanoseconds) when it was checked. Opening an index skips the
 * hash of a segment whose status still equals its stamp exactly, so a 10,000-topic query does not
 * hash megabytes each time. Any write to the file (a torn write after kill -9, a flipped byte, a
 * file copied or renamed over it, even with its mtime put back) changes its ctime or inode, and the
 * segment is checked again.
 *
 * The racy case (git's "racily clean" index entries): a file changed again within one tick of the
 * file system's clock after it was stamped keeps the same times. So a stamp is trusted only when the
 * file's mtime and ctime are older than the moment the stamps were written by more than a window
 * (`racyWindowNs`), measured on the file system's own clock (the stamp file's mtime, so a network
 * file system whose clock differs from this machine's is judged right). A segment written just
 * before it was stamped is hashed again on later opens until its stamp is old enough: after a
 * curate, for 100 ms on a file system with sub-second times, 3 s on one with whole seconds.
 *
 * The stamp file is local state, so it is untrusted: bounded, checksummed and parsed strictly. Any
 * damage makes it empty, which only means every segment is hashed again; it never fails an open.
 */

export interface FileStamp {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/**
 * How much older than the stamp file a segment's times must be for its stamp to be trusted: more
 * than the file system's timestamp granularity plus the time between checking a segment and writing
 * its stamp (at most `STAMP_DELAY_LIMIT_MS`). Sub-second file system times are at worst a kernel
 * tick apart (≤ 10 ms; 10 ms on exFAT); a stamp file whose mtime is a whole second is taken to be on
 * a file system with whole-second (or FAT's 2 s) times.
 */
export const FINE_RACY_WINDOW_NS = 100_000_000n;
export const COARSE_RACY_WINDOW_NS = 3_000_000_000n;
/**
 * A stamp is kept only when the stamp file is on disk within this many milliseconds of the segment's
 * status being taken (else a file changed right after the check, in the same clock tick, could pass
 * for unchanged): below the fine window minus its granularity.
 */
export const STAMP_DELAY_LIMIT_MS = 50;
/** At most this many stamps are kept (indexes keep a dozen manifests of a few segments each). */
export const MAX_STAMPS = 1024;
/** The stamp file is read only up to this size (a line is ~150 bytes). */
export const MAX_STAMP_FILE_BYTES = 256 * 1024;

const HEADER = 'brv-segment-stamps 1 ';
const LINE = /^([0-9a-f]{32}\.seg) (\d{1,20}) (\d{1,20}) (\d{1,20}) (-?\d{1,24}) (-?\d{1,24})$/;

export function stampOf(stat: BigIntStats): FileStamp {
  return { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** The racy window for stamps written at `writtenNs` (the stamp file's mtime): wide when the file system keeps whole seconds. */
function racyWindowNs(writtenNs: bigint): bigint {
  return writtenNs % 1_000_000_000n === 0n ? COARSE_RACY_WINDOW_NS : FINE_RACY_WINDOW_NS;
}

/** Whether a stamp written at `writtenNs` (the stamp file's mtime) is old enough to be trusted: not racy. */
export function settled(stamp: FileStamp, writtenNs: bigint): boolean {
  const limit = writtenNs - racyWindowNs(writtenNs);
  return stamp.mtimeNs < limit && stamp.ctimeNs < limit;
}

/** Whether the file whose status is `current` may skip its hash: a settled stamp equal to it in every field. */
export function trusted(stamp: FileStamp | undefined, current: FileStamp, writtenNs: bigint): boolean {
  return stamp !== undefined && sameStamp(stamp, current) && settled(stamp, writtenNs);
}

/** The stamp file: a header line with the checksum of the body (checksum.ts), then one line per segment file. */
export function serializeStamps(stamps: Iterable<readonly [string, FileStamp]>): string {
  let body = '';
  for (const [file, s] of stamps) body += `${file} ${s.dev} ${s.ino} ${s.size} ${s.mtimeNs} ${s.ctimeNs}\n`;
  return `${HEADER}${checksum(body)}\n${body}`;
}

/** The stamps of a stamp file; empty for anything damaged (wrong header or checksum, a malformed line, too many lines). */
export function parseStamps(text: string): Map<string, FileStamp> {
  const stamps = new Map<string, FileStamp>();
  const newline = text.indexOf('\n');
  if (newline < 0 || !text.startsWith(HEADER)) return stamps;
  const body = text.slice(newline + 1);
  if (text.slice(HEADER.length, newline) !== checksum(body)) return stamps;
  const lines = body.split('\n');
  if (lines.pop() !== '' || lines.length > MAX_STAMPS) return new Map();
  for (const line of lines) {
    const match = LINE.exec(line);
    if (!match) return new Map();
    const [, file, dev, ino, size, mtimeNs, ctimeNs] = match as unknown as [string, string, string, string, string, string, string];
    stamps.set(file, { dev: BigInt(dev), ino: BigInt(ino), size: BigInt(size), mtimeNs: BigInt(mtimeNs), ctimeNs: BigInt(ctimeNs) });
  }
  return stamps;
}
