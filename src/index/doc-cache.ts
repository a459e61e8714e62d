import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { localStateDir } from '../store/layout.js';
import { readLocalFileSync, writeLocalFileSync } from '../store/local-file.js';
import type { StoredTopicProblem } from '../topic/stored.js';
import { pathFieldText, type FieldName, type SegmentInput } from './fields.js';

/**
 * Bump whenever what is extracted from a topic blob changes: `blobDocument` and `documentFromTopic`
 * (document.ts), `topicText` (src/topic/text.ts) or the markdown rendering (src/topic/render.ts);
 * test/query/doc-cache.test.ts fails until you do. Entries of other versions are then never read
 * (and are deleted by the next sweep), and since this version also names the index folder, every
 * index is rebuilt. Analysis (tokenizing, stemming) and the segment format are not part of an entry:
 * a change there bumps `INDEX_VERSION` only, and the rebuild that follows parses no HTML.
 * Bumped too when the cache's layout changes (4: packs). 5: issue 31's inert rendering. 8: issue 35's
 * plain text for excerpts, file paths as code, lists ended before a list item, table captions.
 */
export const DOC_CACHE_VERSION = 8;

/**
 * Everything the index builder needs from one topic blob, independent of where the blob sits in
 * the tree (the same bytes at two paths are one entry): the field texts and facts of its index
 * document, and its rendered markdown and plain text for the docstore.
 */
export interface BlobDocument {
  readonly title: string;
  readonly fields: Readonly<Record<Exclude<FieldName, 'path'>, string>>;
  readonly dates: readonly string[];
  readonly kinds: readonly string[];
  readonly markdown: string;
  /** The topic as plain text (src/topic/plain-text.ts): what search excerpts are cut from. */
  readonly text: string;
}

/** A blob document without its markdown and text: what the index's segment needs (tree-index.ts's scan). */
export type BlobFields = Omit<BlobDocument, 'markdown' | 'text'>;

/** A blob that is not indexed, and why (`readStoredTopic`'s verdict): remembered, so it is parsed once. */
export interface BlobProblem {
  readonly problem: StoredTopicProblem;
  readonly message: string;
}

/** What a blob holds for the index: a document, or the problem that keeps it out of the index. */
export type CachedBlob = BlobDocument | BlobProblem;

export function isBlobProblem(entry: CachedBlob): entry is BlobProblem {
  return 'problem' in entry;
}

const PROBLEMS: ReadonlySet<string> = new Set<StoredTopicProblem>(['too-large', 'too-deep', 'not-a-topic']);
/** Entries hold a topic's (at most 256 KiB) text a few times over; anything far larger is not an entry. */
const MAX_ENTRY_BYTES = 16 * 1024 * 1024;

/** The index document of a blob at `topicPath`: the cached, path-independent part plus the path. */
export function documentAt(topicPath: string, blob: string, doc: BlobDocument): SegmentInput {
  const { title, fields, dates, kinds } = doc;
  return {
    path: topicPath,
    title,
    fields: { title: fields.title, path: pathFieldText(topicPath), meta: fields.meta, key: fields.key, body: fields.body },
    dates: [...dates],
    kinds: [...kinds],
    blob,
  };
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const HEADER = `brv-doc ${DOC_CACHE_VERSION} `;
/** Entries are removed by a sweep only when unreferenced and older than this (a curate's entry waits for its query). */
const SWEEP_GRACE_MS = 24 * 60 * 60 * 1000;

function digest(body: string): string {
  return createHash('sha1').update(body).digest('hex');
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isBlobDocument(value: unknown): value is BlobDocument {
  if (typeof value !== 'object' || value === null) return false;
  const doc = value as Record<string, unknown>;
  const fields = doc.fields as Record<string, unknown> | null | undefined;
  return (
    typeof doc.title === 'string' &&
    typeof doc.markdown === 'string' &&
    typeof doc.text === 'string' &&
    isStringArray(doc.dates) &&
    isStringArray(doc.kinds) &&
    typeof fields === 'object' &&
    fields !== null &&
    ['title', 'meta', 'key', 'body'].every((f) => typeof fields[f] === 'string')
  );
}

/** The file's text, or undefined when it is not a well-formed entry for `blob` (missing, torn, damaged, another blob's). */
export function parseEntry(text: string, blob: string): CachedBlob | undefined {
  if (!text.startsWith(HEADER)) return undefined;
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  const body = text.slice(newline + 1);
  if (text.slice(HEADER.length, newline) !== digest(body)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { blob: owner, doc, problem, message } = value as { blob?: unknown; doc?: unknown; problem?: unknown; message?: unknown };
  if (owner !== blob) return undefined;
  if (doc === null) {
    if (typeof problem === 'string' && PROBLEMS.has(problem) && typeof message === 'string')
      return { problem: problem as StoredTopicProblem, message };
    return undefined;
  }
  return isBlobDocument(doc) ? doc : undefined;
}

export function serializeEntry(blob: string, doc: CachedBlob): string {
  const body = JSON.stringify(
    isBlobProblem(doc)
      ? { blob, doc: null, problem: doc.problem, message: doc.message }
      : { blob, doc: { title: doc.title, fields: doc.fields, dates: doc.dates, kinds: doc.kinds, markdown: doc.markdown, text: doc.text } },
  );
  return `${HEADER}${digest(body)}\n${body}`;
}

/*
 * Packs: entries written in bulk (a build, an import) go into one file instead of one file each —
 * creating thousands of small files costs more than extracting them. A pack is written whole (a
 * temporary file renamed into place, like git's packs) and never changed after; its name is the
 * SHA-1 of its bytes. Layout (integers are unsigned 32-bit little-endian):
 *
 *   header   "BRVPACK\n", DOC_CACHE_VERSION, oid bytes (20 or 32)
 *   entries  serializeEntry() texts, one after another (each checked by its own digest when read)
 *   fanout   256 cumulative counts by first oid byte (as in git's pack indexes)
 *   index    per entry, sorted by oid: oid, offset, length
 *   trailer  count, offset of the fanout, oid bytes, DOC_CACHE_VERSION, SHA-1 of fanout..trailer
 *
 * A reader loads the fanout and index once per DocCache instance (checked against the trailer's
 * SHA-1), finds an entry by binary search and reads only its bytes. Anything that does not check out
 * — truncated, flipped, planted, not a regular file — is a miss, never a throw or a hang.
 */
const PACK_MAGIC = Buffer.from('BRVPACK\n', 'latin1');
const PACK_HEADER_BYTES = 16;
const FANOUT_BYTES = 256 * 4;
const TRAILER_BYTES = 16 + 20;
/** Offsets are 32-bit: a pack is at most this large (a writer starts a new pack past PACK_ROLLOVER_BYTES). */
const MAX_PACK_BYTES = 2 ** 31;
const PACK_ROLLOVER_BYTES = 2 ** 30;
/** A bigger index is not one brv wrote (a million entries take 28 MiB): never loaded. */
const MAX_PACK_INDEX_BYTES = 64 * 1024 * 1024;
/** Fewer entries than this are written as loose files (a curate's one entry); more go into a pack. */
const PACK_MIN_ENTRIES = 32;
/** A pack with fewer entries than this is merged by the sweep into the pack it writes, so small packs do not pile up. */
const PACK_MERGE_ENTRIES = 4096;
const PACK_NAME = /^[0-9a-f]{40}\.pack$/;
/** Entries of a pack closer than this are read in one run, of at most READ_RUN_BYTES. */
const READ_GAP_BYTES = 16 * 1024;
const READ_RUN_BYTES = 1024 * 1024;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A pack's checked index, and the file state it was read from (a replaced file is read again). */
interface PackIndex {
  readonly name: string;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly oidBytes: number;
  readonly count: number;
  /** Where the entries end (the fanout's offset): no entry reaches past it. */
  readonly entriesEnd: number;
  /** The fanout and the index records. */
  readonly table: Buffer;
}

interface OpenPack {
  readonly fd: number;
  readonly index: PackIndex;
}

/** Reads exactly `length` bytes at `position`, or undefined when the file is shorter. */
function readAt(fd: number, position: number, length: number): Buffer | undefined {
  const bytes = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, bytes, read, length - read, position + read);
    if (n === 0) return undefined;
    read += n;
  }
  return bytes;
}

/** The checked index of the pack open at `fd`, or undefined when it is not a whole pack of this version. */
function readPackIndex(fd: number, name: string, stat: { ino: number; size: number; mtimeMs: number }): PackIndex | undefined {
  const { size } = stat;
  if (size < PACK_HEADER_BYTES + FANOUT_BYTES + TRAILER_BYTES || size > MAX_PACK_BYTES) return undefined;
  const header = readAt(fd, 0, PACK_HEADER_BYTES);
  if (!header || !header.subarray(0, 8).equals(PACK_MAGIC) || header.readUInt32LE(8) !== DOC_CACHE_VERSION) return undefined;
  const oidBytes = header.readUInt32LE(12);
  if (oidBytes !== 20 && oidBytes !== 32) return undefined;
  const trailer = readAt(fd, size - TRAILER_BYTES, TRAILER_BYTES);
  if (!trailer) return undefined;
  const count = trailer.readUInt32LE(0);
  const entriesEnd = trailer.readUInt32LE(4);
  if (trailer.readUInt32LE(8) !== oidBytes || trailer.readUInt32LE(12) !== DOC_CACHE_VERSION) return undefined;
  const tableBytes = FANOUT_BYTES + count * (oidBytes + 8);
  if (entriesEnd < PACK_HEADER_BYTES || tableBytes > MAX_PACK_INDEX_BYTES || entriesEnd + tableBytes + TRAILER_BYTES !== size)
    return undefined;
  const checked = readAt(fd, entriesEnd, tableBytes + 16);
  if (!checked) return undefined;
  if (!createHash('sha1').update(checked).digest().equals(trailer.subarray(16))) return undefined;
  let previous = 0;
  for (let b = 0; b < 256; b++) {
    const upTo = checked.readUInt32LE(b * 4);
    if (upTo < previous) return undefined;
    previous = upTo;
  }
  if (previous !== count) return undefined;
  return { name, ino: stat.ino, size, mtimeMs: stat.mtimeMs, oidBytes, count, entriesEnd, table: checked.subarray(0, tableBytes) };
}

/** Where `blob`'s entry is in a pack: binary search in its first byte's fanout range. */
function findInPack(index: PackIndex, oid: Buffer): { offset: number; length: number } | undefined {
  if (oid.length !== index.oidBytes) return undefined;
  const { table, oidBytes } = index;
  const record = oidBytes + 8;
  let lo = oid[0] === 0 ? 0 : table.readUInt32LE((oid[0]! - 1) * 4);
  let hi = table.readUInt32LE(oid[0]! * 4);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = FANOUT_BYTES + mid * record;
    const order = oid.compare(table, at, at + oidBytes);
    if (order === 0) {
      const offset = table.readUInt32LE(at + oidBytes);
      const length = table.readUInt32LE(at + oidBytes + 4);
      if (offset < PACK_HEADER_BYTES || length > MAX_ENTRY_BYTES || offset + length > index.entriesEnd) return undefined;
      return { offset, length };
    }
    if (order < 0) hi = mid;
    else lo = mid + 1;
  }
  return undefined;
}

/** Every entry of a pack, as (oid, offset, length), in oid order. */
function* packRecords(index: PackIndex): Generator<{ blob: string; offset: number; length: number }> {
  const record = index.oidBytes + 8;
  for (let i = 0; i < index.count; i++) {
    const at = FANOUT_BYTES + i * record;
    const blob = index.table.toString('hex', at, at + index.oidBytes);
    const offset = index.table.readUInt32LE(at + index.oidBytes);
    const length = index.table.readUInt32LE(at + index.oidBytes + 4);
    if (offset >= PACK_HEADER_BYTES && length <= MAX_ENTRY_BYTES && offset + length <= index.entriesEnd) yield { blob, offset, length };
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? '';
}

/**
 * Writes a batch of entries: the first PACK_MIN_ENTRIES are held; a batch that stays smaller is
 * written as loose files when finished, a larger one streams into a pack (a temporary file in the
 * packs folder, renamed to its SHA-1 name when finished), holding only each entry's index record.
 * Nothing is visible to readers before `finish`. The first failure abandons the pack (its
 * temporary file is removed) and is thrown by `finish`; `abort` drops everything.
 */
export class DocCacheWriter {
  private held: Array<[string, Buffer]> = [];
  private readonly seen = new Set<string>();
  /**
   * The pack being written, and its index records: oids as hex strings (a 20-byte Buffer would be a
   * slice of Node's shared pool and keep the entries allocated beside it alive).
   */
  private pack:
    { fd: number; temp: string; offset: number; hash: ReturnType<typeof createHash>; records: Array<[string, number, number]> } | undefined;
  private queued: Buffer[] = [];
  private queuedBytes = 0;
  private failure: unknown;
  private readonly written: string[] = [];

  constructor(
    private readonly cache: DocCache,
    /** Write a pack however few the entries (the sweep's). */
    private readonly alwaysPack = false,
  ) {}

  add(blob: string, doc: CachedBlob): void {
    if (this.seen.has(blob)) return;
    this.addBytes(blob, Buffer.from(serializeEntry(blob, doc), 'utf8'));
  }

  /** An entry already serialized (and checked): the sweep copies entries without parsing them again. */
  addBytes(blob: string, bytes: Buffer): void {
    if (this.failure !== undefined || this.seen.has(blob)) return;
    this.cache.file(blob); // throws on a name that is not an oid
    this.seen.add(blob);
    try {
      if (!this.pack) {
        this.held.push([blob, bytes]);
        if (this.held.length >= PACK_MIN_ENTRIES) {
          const held = this.held;
          this.held = [];
          for (const [b, e] of held) this.append(b, e);
        }
        return;
      }
      this.append(blob, bytes);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Makes the batch visible: loose files for a small batch, else the pack; throws the first failure. */
  finish(): string[] {
    try {
      if (this.failure === undefined) {
        if (this.alwaysPack && this.held.length > 0) {
          const held = this.held;
          this.held = [];
          for (const [b, e] of held) this.append(b, e);
        }
        for (const [blob, bytes] of this.held) writeLocalFileSync(this.cache.file(blob), bytes);
        this.held = [];
        if (this.pack) this.seal();
      }
    } catch (error) {
      this.fail(error);
    }
    if (this.failure !== undefined) throw this.failure;
    return this.written;
  }

  abort(): void {
    this.fail(new Error('aborted'));
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    this.held = [];
    this.queued = [];
    this.queuedBytes = 0;
    if (this.pack) {
      try {
        closeSync(this.pack.fd);
      } catch {
        // already closed
      }
      try {
        unlinkSync(this.pack.temp);
      } catch {
        // already gone
      }
      this.pack = undefined;
    }
  }

  private open(oidBytes: number): void {
    mkdirSync(this.cache.packs, { recursive: true });
    const temp = path.join(this.cache.packs, `${process.pid}-${randomBytes(6).toString('hex')}.pack.tmp`);
    const fd = openSync(temp, CREATE_FLAGS, 0o666);
    this.pack = { fd, temp, offset: 0, hash: createHash('sha1'), records: [] };
    const header = Buffer.alloc(PACK_HEADER_BYTES);
    PACK_MAGIC.copy(header);
    header.writeUInt32LE(DOC_CACHE_VERSION, 8);
    header.writeUInt32LE(oidBytes, 12);
    this.queue(header);
  }

  private append(blob: string, bytes: Buffer): void {
    if (this.pack && (this.pack.records[0]?.[0].length ?? blob.length) !== blob.length) {
      writeLocalFileSync(this.cache.file(blob), bytes); // another object format: not in this pack
      return;
    }
    if (this.pack && this.pack.offset + bytes.length > PACK_ROLLOVER_BYTES) this.seal();
    if (!this.pack) this.open(blob.length / 2);
    const pack = this.pack!;
    pack.records.push([blob, pack.offset, bytes.length]);
    this.queue(bytes);
  }

  private queue(bytes: Buffer): void {
    const pack = this.pack!;
    pack.hash.update(bytes);
    pack.offset += bytes.length;
    this.queued.push(bytes);
    this.queuedBytes += bytes.length;
    if (this.queuedBytes >= 1024 * 1024) this.flush();
  }

  private flush(): void {
    if (this.queued.length === 0) return;
    const bytes = this.queued.length === 1 ? this.queued[0]! : Buffer.concat(this.queued);
    this.queued = [];
    this.queuedBytes = 0;
    for (let written = 0; written < bytes.length;) written += writeSync(this.pack!.fd, bytes, written, bytes.length - written);
  }

  /** Writes the fanout, index and trailer, and renames the pack into place. */
  private seal(): void {
    const pack = this.pack!;
    const oidBytes = pack.records[0]![0].length / 2;
    pack.records.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const record = oidBytes + 8;
    const table = Buffer.alloc(FANOUT_BYTES + pack.records.length * record + 16);
    const firstBytes = new Uint32Array(256);
    pack.records.forEach(([oid, offset, length], i) => {
      firstBytes[parseInt(oid.slice(0, 2), 16)]!++;
      table.write(oid, FANOUT_BYTES + i * record, 'hex');
      table.writeUInt32LE(offset, FANOUT_BYTES + i * record + oidBytes);
      table.writeUInt32LE(length, FANOUT_BYTES + i * record + oidBytes + 4);
    });
    let total = 0;
    for (let b = 0; b < 256; b++) table.writeUInt32LE((total += firstBytes[b]!), b * 4);
    const trailerAt = table.length - 16;
    const entriesEnd = pack.offset;
    table.writeUInt32LE(pack.records.length, trailerAt);
    table.writeUInt32LE(entriesEnd, trailerAt + 4);
    table.writeUInt32LE(oidBytes, trailerAt + 8);
    table.writeUInt32LE(DOC_CACHE_VERSION, trailerAt + 12);
    this.queue(table);
    this.queue(createHash('sha1').update(table).digest());
    this.flush();
    closeSync(pack.fd);
    const name = `${pack.hash.digest('hex')}.pack`;
    this.pack = undefined;
    try {
      renameSync(pack.temp, path.join(this.cache.packs, name));
    } catch (error) {
      try {
        unlinkSync(pack.temp);
      } catch {
        // already gone
      }
      throw error;
    }
    this.written.push(name);
  }
}

/**
 * Per-blob extracted text under `<git-common-dir>/brv/cache/docs/v<N>/`: what the index builder
 * needs from each topic blob, so a rebuild (after a branch switch, a clone, an `INDEX_VERSION` bump)
 * and the index update after a curate load no HTML code. Content-addressed by blob oid, so an entry
 * is never stale. Bulk writes go into packs (`packs/<sha1>.pack`, see above), small ones into loose
 * files (`<2 hex>/<rest of oid>`); both are written whole (temp file + rename), and anything that
 * does not check out (digest, shape, owner) is a miss: the blob is parsed again.
 */
export class DocCache {
  readonly dir: string;
  readonly packs: string;
  /** Pack indexes read by this instance, by name: read once, unless the file was replaced. */
  private readonly indexes = new Map<string, PackIndex>();
  /** For `has`: the pack indexes and loose folders as they were at its first call. */
  private known: { packs: PackIndex[]; prefixes: Set<string> } | undefined;

  constructor(readonly root: string) {
    this.dir = path.join(root, `v${DOC_CACHE_VERSION}`);
    this.packs = path.join(this.dir, 'packs');
  }

  /** The repository's cache: `<git-common-dir>/brv/cache/docs` (shared by worktrees, like the indexes). */
  static forRepository(commonDir: string): DocCache {
    return new DocCache(localStateDir(commonDir, 'cache', 'docs'));
  }

  /** The loose entry file of `blob`. */
  file(blob: string): string {
    if (!OID.test(blob)) throw new Error(`"${blob}" is not a blob id.`);
    return path.join(this.dir, blob.slice(0, 2), blob.slice(2));
  }

  /**
   * Entries for `blobs`, in order; `undefined` where there is none (or it is damaged). Packs first
   * (each pack's index read once per instance), then loose files. Synchronous reads on purpose:
   * entries are a few KiB, and a promise round trip each cost more than the read.
   */
  read(blobs: readonly string[]): Array<CachedBlob | undefined> {
    const found: Array<CachedBlob | undefined> = new Array(blobs.length).fill(undefined);
    if (blobs.length === 0) return found;
    const open = this.openPacks();
    try {
      // Pack by pack: where each wanted entry is, then the entries read in runs of neighbours (a
      // build asks for a tree's blobs in the order a build wrote them: one read per ~1 MiB, not per entry).
      const oids = open.length === 0 ? [] : blobs.map((blob) => (OID.test(blob) ? Buffer.from(blob, 'hex') : undefined));
      for (const { fd, index } of open) {
        const hits: Array<{ i: number; offset: number; length: number }> = [];
        oids.forEach((oid, i) => {
          const at = oid && found[i] === undefined ? findInPack(index, oid) : undefined;
          if (at) hits.push({ i, ...at });
        });
        hits.sort((a, b) => a.offset - b.offset);
        for (let first = 0; first < hits.length;) {
          const start = hits[first]!.offset;
          let last = first;
          let end = start + hits[first]!.length;
          while (last + 1 < hits.length) {
            const next = hits[last + 1]!;
            if (next.offset - end >= READ_GAP_BYTES || next.offset + next.length - start > READ_RUN_BYTES) break;
            end = Math.max(end, next.offset + next.length);
            last++;
          }
          let run: Buffer | undefined;
          try {
            run = readAt(fd, start, end - start);
          } catch {
            run = undefined;
          }
          for (const { i, offset, length } of hits.slice(first, last + 1)) {
            if (run) found[i] = parseEntry(run.toString('utf8', offset - start, offset - start + length), blobs[i]!);
          }
          first = last + 1;
        }
      }
    } finally {
      for (const { fd } of open) closeSync(fd);
    }
    let prefixes: Set<string> | undefined;
    blobs.forEach((blob, i) => {
      if (found[i] !== undefined) return;
      // One listing instead of a failed open per blob when (as after a cold build) loose entries are few.
      prefixes ??= this.loosePrefixes();
      if (!prefixes.has(blob.slice(0, 2))) return;
      let bytes;
      try {
        // Not followed if a symlink, never blocking on a FIFO, bounded: a damaged cache is a miss, never a hang.
        bytes = readLocalFileSync(this.file(blob), MAX_ENTRY_BYTES);
      } catch {
        return;
      }
      if (bytes !== undefined) found[i] = parseEntry(bytes.toString('utf8'), blob);
    });
    return found;
  }

  /**
   * Whether the cache holds an entry for `blob` (damaged or not: reading it tells), as far as this
   * instance knows: packs and loose folders are listed at the first call (a batch asks many times).
   */
  has(blob: string): boolean {
    if (!this.known) {
      const open = this.openPacks();
      for (const { fd } of open) closeSync(fd);
      this.known = { packs: open.map((p) => p.index), prefixes: this.loosePrefixes() };
    }
    const oid = Buffer.from(blob, 'hex');
    if (this.known.packs.some((index) => findInPack(index, oid) !== undefined)) return true;
    return this.known.prefixes.has(blob.slice(0, 2)) && existsSync(this.file(blob));
  }

  /** A writer for a batch of entries: a pack when the batch is large, loose files when small. */
  writer(): DocCacheWriter {
    return new DocCacheWriter(this);
  }

  /**
   * Writes entries (a pack for a large batch, else each a loose file), each whole, so a reader never
   * sees half of one, and concurrent writers of a blob (same bytes) simply race to the same result.
   * Throws on the first failure (the caller decides whether it matters).
   */
  write(entries: ReadonlyMap<string, CachedBlob>): void {
    const writer = this.writer();
    for (const [blob, doc] of entries) writer.add(blob, doc);
    writer.finish();
  }

  /** The two-hex folders of loose entries that exist. */
  private loosePrefixes(): Set<string> {
    try {
      return new Set(readdirSync(this.dir).filter((name) => /^[0-9a-f]{2}$/.test(name)));
    } catch {
      return new Set();
    }
  }

  /**
   * The packs there are, open, with their checked indexes. A pack removed between the listing and
   * its open (a sweep replaced it, writing its successor first) makes the listing be read again.
   */
  private openPacks(): OpenPack[] {
    for (let attempt = 0; ; attempt++) {
      let names: string[];
      try {
        names = readdirSync(this.packs).filter((name) => PACK_NAME.test(name));
      } catch {
        return [];
      }
      const open: OpenPack[] = [];
      let vanished = false;
      for (const name of names.sort()) {
        let fd;
        try {
          fd = openSync(path.join(this.packs, name), READ_FLAGS);
        } catch (error) {
          if (errorCode(error) === 'ENOENT') vanished = true;
          continue;
        }
        try {
          const stat = fstatSync(fd);
          if (!stat.isFile()) throw new Error('not a file');
          let index = this.indexes.get(name);
          if (!index || index.ino !== stat.ino || index.size !== stat.size || index.mtimeMs !== stat.mtimeMs) {
            index = readPackIndex(fd, name, stat);
            if (!index) throw new Error('not a pack');
            this.indexes.set(name, index);
          }
          open.push({ fd, index });
        } catch {
          this.indexes.delete(name);
          closeSync(fd);
        }
      }
      if (!vanished || attempt > 0) return open;
      for (const { fd } of open) closeSync(fd);
    }
  }

  /**
   * Deletes what no index uses and packs what is left. Loose entries and packs younger than
   * `graceMs` stay as they are (a fresh entry may be a curate's whose query has not run yet). Older
   * loose entries of blobs not in `referenced` are deleted, and so are stale temp files and every
   * other cache version. An older pack whose entries are all referenced stays, unless it is small.
   * The other older packs — holding unreferenced entries, or small — and the older referenced loose
   * entries are copied (entries that check out only) into ONE new pack, written whole before anything it replaces is deleted, so a
   * concurrent reader finds every entry in one place or the other. `kept` and `removed` count entries.
   */
  async sweep(referenced: ReadonlySet<string>, graceMs = SWEEP_GRACE_MS, now = Date.now()): Promise<{ kept: number; removed: number }> {
    let kept = 0;
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return { kept, removed };
    }
    for (const name of names) {
      if (name !== path.basename(this.dir)) await rm(path.join(this.root, name), { recursive: true, force: true });
    }
    const old = async (file: string) => now - (await stat(file).catch(() => ({ mtimeMs: now }))).mtimeMs >= graceMs;
    const fold: Array<{ blob: string; file: string }> = [];
    const prefixes = await readdir(this.dir).catch(() => [] as string[]);
    for (const prefix of prefixes) {
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      const dir = path.join(this.dir, prefix);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        const file = path.join(dir, name);
        if (name.endsWith('.tmp')) {
          if (await old(file)) await rm(file, { recursive: true, force: true });
        } else if (!(await old(file))) kept++;
        else if (referenced.has(prefix + name)) fold.push({ blob: prefix + name, file });
        else {
          await rm(file, { recursive: true, force: true });
          removed++;
        }
      }
    }
    for (const name of await readdir(this.packs).catch(() => [] as string[])) {
      if (!PACK_NAME.test(name) && (await old(path.join(this.packs, name))))
        await rm(path.join(this.packs, name), { recursive: true, force: true });
    }
    const open = this.openPacks();
    const rewrite: OpenPack[] = [];
    try {
      for (const pack of open) {
        const young = now - pack.index.mtimeMs < graceMs;
        let used = 0;
        for (const { blob } of packRecords(pack.index)) if (referenced.has(blob)) used++;
        if (young || (used === pack.index.count && pack.index.count >= PACK_MERGE_ENTRIES)) kept += pack.index.count;
        else rewrite.push(pack);
      }
      const worthIt = fold.length > 0 || rewrite.length > 1 || rewrite.some((p) => !this.allReferenced(p.index, referenced));
      if (worthIt) {
        const writer = new DocCacheWriter(this, true);
        for (const { fd, index } of rewrite) {
          for (const { blob, offset, length } of packRecords(index)) {
            const bytes = referenced.has(blob) ? this.checked(() => readAt(fd, offset, length), blob) : undefined;
            if (bytes) writer.addBytes(blob, bytes);
          }
        }
        for (const { blob, file } of fold) {
          const bytes = this.checked(() => readLocalFileSync(file, MAX_ENTRY_BYTES), blob);
          if (bytes) writer.addBytes(blob, bytes);
        }
        const written = new Set(writer.finish());
        for (const { index } of rewrite) {
          for (const { blob } of packRecords(index)) referenced.has(blob) ? kept++ : removed++;
          if (!written.has(index.name)) await rm(path.join(this.packs, index.name), { force: true });
        }
        for (const { file } of fold) await rm(file, { force: true });
        kept += fold.length;
      } else for (const { index } of rewrite) kept += index.count;
    } finally {
      for (const { fd } of open) closeSync(fd);
    }
    // Loose folders left empty go, so readers skip them without a failed open per blob.
    for (const prefix of prefixes) {
      if (/^[0-9a-f]{2}$/.test(prefix)) await rmdir(path.join(this.dir, prefix)).catch(() => {});
    }
    return { kept, removed };
  }

  private allReferenced(index: PackIndex, referenced: ReadonlySet<string>): boolean {
    for (const { blob } of packRecords(index)) if (!referenced.has(blob)) return false;
    return true;
  }

  /** An entry's bytes when they are a well-formed entry of `blob`, else undefined. */
  private checked(read: () => Buffer | undefined, blob: string): Buffer | undefined {
    let bytes;
    try {
      bytes = read();
    } catch {
      return undefined;
    }
    return bytes && parseEntry(bytes.toString('utf8'), blob) ? bytes : undefined;
  }
}
