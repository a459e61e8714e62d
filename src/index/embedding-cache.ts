import { createHash } from 'node:crypto';
import { appendFileSync, constants, fstatSync, mkdirSync, openSync, closeSync, rmSync } from 'node:fs';
import path from 'node:path';
import { localStateDir } from '../store/layout.js';
import { readLocalFileSync, writeLocalFileSync } from '../store/local-file.js';
import { crc32 } from './docstore.js';
import { EMBEDDING_TEXT_VERSION } from './embedding-text.js';

/**
 * Topic embeddings for hybrid retrieval, per blob and per embedding model, under
 * `<git-common-dir>/brv/cache/embeddings/`: never committed, shared by worktrees, safe to delete (the
 * next hybrid query or `brv maintenance` embeds again). One file per model identity (provider, model,
 * base URL and the embedding text's version, hashed into the name): a vector of one model is never
 * compared with another's. The file is a run of records, each checked by its CRC:
 *
 *   u8 oid bytes (20 or 32) · oid · u16 dims · f32 × dims (unit length) · u32 CRC-32 of the above
 *
 * New vectors are appended (one write per batch). A record that does not check (a torn append, a
 * damaged disk) ends the read: what follows is embedded again, and the next write rewrites the file
 * with the good records instead of appending after the damage. Bounded: past `MAX_FILE_BYTES` the
 * file is rewritten with only the vectors still wanted (the caller's live blobs).
 */
export interface EmbeddingModelIdentity {
  provider: string;
  model: string;
  baseUrl?: string;
}

const EMBEDDING_CACHE_FORMAT = 1;
/** ~65,000 vectors of 1,024 dims, 256,000 of 256: far beyond a tree's topics times a few models' changes. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
const MAX_DIMS = 8192;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export function identityKey(identity: EmbeddingModelIdentity): string {
  const text = JSON.stringify([EMBEDDING_CACHE_FORMAT, EMBEDDING_TEXT_VERSION, identity.provider, identity.model, identity.baseUrl ?? '']);
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** A vector scaled to unit length (cosine similarity is then a dot product); undefined for a zero or non-finite one. */
export function unitVector(values: readonly number[]): Float32Array | undefined {
  let norm = 0;
  for (const x of values) norm += x * x;
  if (!(norm > 0) || !Number.isFinite(norm)) return undefined;
  const scale = 1 / Math.sqrt(norm);
  return Float32Array.from(values, (x) => x * scale);
}

function record(blob: string, vector: Float32Array): Buffer {
  const oid = Buffer.from(blob, 'hex');
  const out = Buffer.alloc(1 + oid.length + 2 + vector.length * 4 + 4);
  out.writeUInt8(oid.length, 0);
  oid.copy(out, 1);
  let at = 1 + oid.length;
  out.writeUInt16LE(vector.length, at);
  at += 2;
  for (const x of vector) {
    out.writeFloatLE(x, at);
    at += 4;
  }
  out.writeUInt32LE(crc32(out.subarray(0, at)), at);
  return out;
}

/** Every well-formed record from the start; `damaged` when something that is not one follows them. */
export function parseRecords(bytes: Buffer): { vectors: Map<string, Float32Array>; damaged: boolean } {
  const vectors = new Map<string, Float32Array>();
  let at = 0;
  while (at < bytes.length) {
    const oidBytes = bytes[at]!;
    if ((oidBytes !== 20 && oidBytes !== 32) || at + 1 + oidBytes + 2 > bytes.length) return { vectors, damaged: true };
    const dims = bytes.readUInt16LE(at + 1 + oidBytes);
    const end = at + 1 + oidBytes + 2 + dims * 4;
    if (dims === 0 || dims > MAX_DIMS || end + 4 > bytes.length) return { vectors, damaged: true };
    if (crc32(bytes.subarray(at, end)) !== bytes.readUInt32LE(end)) return { vectors, damaged: true };
    const vector = new Float32Array(dims);
    for (let i = 0, p = at + 1 + oidBytes + 2; i < dims; i++, p += 4) vector[i] = bytes.readFloatLE(p);
    if (vector.every(Number.isFinite)) vectors.set(bytes.toString('hex', at + 1, at + 1 + oidBytes), vector);
    at = end + 4;
  }
  return { vectors, damaged: false };
}

export class EmbeddingCache {
  private loaded: { vectors: Map<string, Float32Array>; damaged: boolean; bytes: number } | undefined;

  constructor(readonly file: string) {}

  /** The repository's cache for one embedding model. */
  static forRepository(commonDir: string, identity: EmbeddingModelIdentity): EmbeddingCache {
    return new EmbeddingCache(path.join(localStateDir(commonDir, 'cache', 'embeddings'), `${identityKey(identity)}.vec`));
  }

  /** The vectors on disk (read once per cache object); a missing, unreadable or too large file is an empty cache. */
  vectors(): ReadonlyMap<string, Float32Array> {
    return this.load().vectors;
  }

  private load() {
    if (this.loaded) return this.loaded;
    let bytes: Buffer | undefined;
    try {
      bytes = readLocalFileSync(this.file, MAX_FILE_BYTES);
    } catch {
      bytes = undefined; // a folder, a link, too large: rebuilt by the next write
      this.loaded = { vectors: new Map(), damaged: true, bytes: 0 };
      return this.loaded;
    }
    const parsed = bytes ? parseRecords(bytes) : { vectors: new Map<string, Float32Array>(), damaged: false };
    this.loaded = { ...parsed, bytes: bytes?.length ?? 0 };
    return this.loaded;
  }

  /**
   * Stores new vectors (unit length, as `unitVector` makes them). Appended, unless the file is
   * damaged or would pass the bound: then rewritten (atomically) with the vectors of `keep` and the
   * new ones. Failures are the caller's to ignore: the cache is optional.
   */
  add(entries: ReadonlyMap<string, Float32Array>, keep?: ReadonlySet<string>): void {
    if (entries.size === 0) return;
    const state = this.load();
    const fresh = [...entries].map(([blob, vector]) => record(blob, vector));
    const added = fresh.reduce((n, r) => n + r.length, 0);
    for (const [blob, vector] of entries) state.vectors.set(blob, vector);
    if (!state.damaged && state.bytes + added <= MAX_FILE_BYTES && this.sameFileSize(state.bytes)) {
      mkdirSync(path.dirname(this.file), { recursive: true });
      appendFileSync(this.file, Buffer.concat(fresh));
      state.bytes += added;
      return;
    }
    if (keep) for (const blob of [...state.vectors.keys()]) if (!keep.has(blob) && !entries.has(blob)) state.vectors.delete(blob);
    this.rewrite(state);
  }

  /** Rewrites the file with only the vectors of `keep` (maintenance: blobs no longer in the tree go). */
  retain(keep: ReadonlySet<string>): { kept: number; dropped: number } {
    const state = this.load();
    let dropped = 0;
    for (const blob of [...state.vectors.keys()])
      if (!keep.has(blob)) {
        state.vectors.delete(blob);
        dropped++;
      }
    if (dropped > 0 || state.damaged) this.rewrite(state);
    return { kept: state.vectors.size, dropped };
  }

  /** Whether the file is still as this process read it (another process appending meanwhile is fine: records are whole). */
  private sameFileSize(expected: number): boolean {
    if (expected === 0) return true;
    let fd;
    try {
      fd = openSync(this.file, READ_FLAGS);
      return fstatSync(fd).size >= expected;
    } catch {
      return false;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  private rewrite(state: { vectors: Map<string, Float32Array>; damaged: boolean; bytes: number }): void {
    const records = [...state.vectors].map(([blob, vector]) => record(blob, vector));
    let total = records.reduce((n, r) => n + r.length, 0);
    // Still past the bound (a huge tree): keep the first records that fit, the rest is embedded when asked.
    while (total > MAX_FILE_BYTES && records.length > 0) total -= records.pop()!.length;
    try {
      writeLocalFileSync(this.file, Buffer.concat(records));
    } catch (error) {
      // Something in the way of the file (a folder): brv's own damaged state, removed once.
      rmSync(this.file, { recursive: true, force: true });
      writeLocalFileSync(this.file, Buffer.concat(records));
      void error;
    }
    state.damaged = false;
    state.bytes = total;
  }
}
