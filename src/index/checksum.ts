import { crc32 } from 'node:zlib';

/**
 * The checksum of one of brv's own local index files (a manifest, the stamp file): it catches damage
 * — a bit flip, a torn or truncated write — and nothing more; whoever can write these files can
 * write a matching sum. CRC-32 ("crc32:" and 8 hex digits): SHA-256, used before index version 5,
 * is no better at this and cost a warm query ~3 ms to load node:crypto, which it otherwise never
 * needs; zlib is loaded anyway (the launcher checks its code cache with it). Bench/README.md, "Warm
 * path, round 4".
 */
export function checksum(text: string): string {
  return `crc32:${crc32(text).toString(16).padStart(8, '0')}`;
}
