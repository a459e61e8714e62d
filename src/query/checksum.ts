import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The checksum of one of brv's own local index files (a manifest, the stamp file): it catches damage
 * — a bit flip, a torn or truncated write — and nothing more; whoever can write these files can
 * write a matching sum. New files carry CRC-32 ("crc32:" and 8 hex digits). SHA-256 would be no
 * better at this and costs a warm query ~3 ms to load node:crypto, which it otherwise never needs;
 * zlib is loaded anyway (the launcher checks its code cache with it). Bench/README.md, "Warm path,
 * round 4".
 */
export function checksum(text: string): string {
  return `crc32:${crc32(text).toString(16).padStart(8, '0')}`;
}

/** Whether `sum` is `text`'s checksum; files written before CRC-32 carry SHA-256 (64 hex digits), still read. */
export function checksumMatches(sum: string, text: string): boolean {
  if (/^[0-9a-f]{64}$/.test(sum)) return createHash('sha256').update(text).digest('hex') === sum;
  return sum === checksum(text);
}
