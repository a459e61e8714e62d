// The `brv` executable (built to dist/cli/main.js, a CommonJS script). It loads the CLI's chunks
// (dist/app/*.js: esbuild's code-split bundle of main.ts, as CommonJS script bodies) itself, so that
// each is compiled through a V8 code cache: Node 20 keeps no compiled code between processes, and
// parsing and compiling the chunks a command needs was the largest part of its start-up after Node's
// own (docs/decisions/0002-startup-launcher-code-cache.md). Node 22's module.enableCompileCache on the plain ES-module build is still
// ~50 ms slower per command than this (docs/decisions/0100-node-floor.md, bench/node-floor.ts). The
// bytecode V8 made while a command ran is saved at exit and handed back the next time it runs.
//
// The cache is an optimisation, never an error. One file per command ("pack": every chunk that
// command loaded) lives next to the chunks (dist/app/.code-cache) or, where that cannot be written,
// under $XDG_CACHE_HOME/brv (~/.cache/brv). Its name carries the build's hash, the command, the
// Node version, architecture and binary, and any V8 flags. V8 rejects data from another V8 or other
// flags; it does not check the bytecode itself (damaged bytecode would crash it, or worse), so each
// chunk's data carries a CRC-32 and is ignored when that does not match. A rejected or missing
// chunk makes the run write a new pack at exit, to a temporary file renamed into place, so
// concurrent first runs each write a whole file. BRV_CODE_CACHE=0 turns it off.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

/** The first hex digits of the sha256 of all chunks, put in by the build. */
declare const BUILD_HASH: string;

const trace = Boolean(process.env.BRV_TRACE);
if (trace) performance.mark('cli: launcher started');
const appDir = path.join(__dirname, '..', 'app');
const enabled = process.env.BRV_CODE_CACHE !== '0' && typeof crc32 === 'function';
const MAGIC = 0x31767262; // "brv1"
// One pack per command: it holds what that command runs (yargs for most, the search engine for
// query) and nothing that command would not use.
const command = /^[a-z]+(-[a-z]+)*$/.test(process.argv[2] ?? '') ? process.argv[2]!.slice(0, 32) : '_';
const runtime = [process.execPath, ...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
const packName = `${BUILD_HASH}-${command}-${process.version}-${process.arch}-${fnv1a(runtime)}.bin`;

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16);
}

function cacheDirs(): string[] {
  const home = process.env.HOME || process.env.USERPROFILE;
  const user = process.env.XDG_CACHE_HOME || (home ? path.join(home, '.cache') : undefined);
  return [path.join(appDir, '.code-cache'), ...(user ? [path.join(user, 'brv')] : [])];
}

interface Entry {
  crc: number;
  data: Buffer;
}

/** Packs are a few MB; anything far bigger is not one brv wrote. */
const MAX_PACK_BYTES = 256 * 1024 * 1024;

/**
 * A pack file's bytes, read the way brv reads its local state (store/local-file.ts, not imported so
 * the launcher stays small): a symbolic link is not followed (it could point at /dev/zero), a FIFO
 * never blocks, only a bounded regular file is read. Throws for anything else.
 */
function readPackFile(file: string): Buffer {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_PACK_BYTES) throw new Error(`${file} is not a code cache`);
    const bytes = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** A pack: magic, the byte length of a JSON index {chunk: [offset, length, crc]} (uint32 LE both), the index, the data. */
function readPack(): Map<string, Entry> {
  for (const dir of cacheDirs()) {
    let file: Buffer;
    try {
      file = readPackFile(path.join(dir, packName));
    } catch {
      continue; // Not there (or not a pack file): try the next place; a run that misses writes a new one.
    }
    const entries = new Map<string, Entry>();
    try {
      if (file.readUInt32LE(0) !== MAGIC) return entries;
      const indexEnd = 8 + file.readUInt32LE(4);
      const index = JSON.parse(file.toString('utf8', 8, indexEnd)) as Record<string, [number, number, number]>;
      for (const [name, [offset, length, crc]] of Object.entries(index))
        entries.set(name, { crc, data: file.subarray(indexEnd + offset, indexEnd + offset + length) });
    } catch {
      entries.clear(); // A damaged index: start over.
    }
    return entries;
  }
  return new Map();
}

function writePack(entries: Map<string, Entry>): void {
  const index: Record<string, [number, number, number]> = {};
  let offset = 0;
  for (const [name, { crc, data }] of entries) {
    index[name] = [offset, data.length, crc];
    offset += data.length;
  }
  const json = Buffer.from(JSON.stringify(index));
  const header = Buffer.alloc(8);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(json.length, 4);
  const bytes = Buffer.concat([header, json, ...[...entries.values()].map((e) => e.data)]);
  for (const dir of cacheDirs()) {
    const file = path.join(dir, packName);
    // writeLocalFileSync (store/local-file.ts) written out again: the launcher is bundled on its own
    // and must not pull in brv's modules (errors.ts and the rest) before it has loaded the code cache,
    // and a failure here is not an error but a reason to try the next folder. Unique per write and
    // created exclusively: a file or symbolic link planted at the name makes the write fail instead of
    // going through it. The rename replaces whatever is at the pack's name.
    const temporary = `${file}.${process.pid}-${(require('node:crypto') as typeof import('node:crypto')).randomBytes(6).toString('hex')}.tmp`;
    let created = false;
    try {
      mkdirSync(dir, { recursive: true });
      const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      created = true;
      try {
        for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, file);
    } catch {
      if (created) remove(temporary);
      continue; // Read-only, full, or something else in the way: try the next place.
    }
    prune(dir);
    return;
  }
}

/** Packs of other builds (older brv versions, other Node versions) go after a month unused. */
function prune(dir: string): void {
  const monthAgo = Date.now() - 30 * 24 * 3600 * 1000;
  try {
    for (const entry of readdirSync(dir)) {
      if (entry === packName || !/\.(bin|tmp)$/.test(entry)) continue;
      const file = path.join(dir, entry);
      if (lstatSync(file).mtimeMs < monthAgo) remove(file);
    }
  } catch {
    // Another process pruned first.
  }
}

function remove(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

const pack = enabled ? readPack() : new Map<string, Entry>();
const compiled: Array<{ name: string; script: Script }> = [];
let misses = 0;
const modules = new Map<string, { exports: unknown }>();

// Node's crypto module takes ~3 ms to load here, and a warm query (most commands) hashes nothing:
// chunks get a stand-in that loads it on first use. esbuild's CommonJS output reads a named import
// off the module object at each use (`(0, import_node_crypto.createHash)(…)`), so only a call
// touches the stand-in (docs/archive/bench-notebook-2026.md, "Warm path, round 4").
const DEFERRED = new Set(['node:crypto']);
const standIns = new Map<string, object>();

function deferred(id: string): object {
  let standIn = standIns.get(id);
  if (standIn) return standIn;
  let real: object | undefined;
  const builtin = (): object => {
    if (real) return real;
    if (trace) performance.mark(`cli: ${id} loaded`);
    return (real = require(id) as object);
  };
  standIn = new Proxy(
    {},
    {
      get: (_, key) => Reflect.get(builtin(), key),
      has: (_, key) => Reflect.has(builtin(), key),
      ownKeys: () => Reflect.ownKeys(builtin()),
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(builtin(), key);
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
  standIns.set(id, standIn);
  return standIn;
}

/** require() for the chunks: their relative requires are other chunks, anything else is Node's. */
function load(file: string): unknown {
  const cached = modules.get(file);
  if (cached) return cached.exports;
  const mod = { exports: {} as unknown };
  modules.set(file, mod);
  const name = path.basename(file);
  const entry = pack.get(name);
  const cachedData = entry && crc32(entry.data) === entry.crc ? entry.data : undefined;
  // Wrapped on the chunk's first line, so stack traces keep their line numbers; strict, as the ES
  // modules the chunk was built from.
  const source = `(function (exports, require, module, __filename, __dirname, __brvUrl) {'use strict';${readFileSync(file, 'utf8')}\n})`;
  const script = new Script(source, { filename: file, cachedData });
  const miss = cachedData === undefined || script.cachedDataRejected;
  if (miss) misses++;
  compiled.push({ name, script });
  // BRV_TRACE lists the chunks a command loaded (which code it needed), and which were compiled.
  if (trace) performance.mark(`cli: chunk ${name}${miss ? ' (compiled)' : ''}`);
  const dir = path.dirname(file);
  // A chunk's imports are its siblings ("./chunk-X.js"): joined by hand, since path.join on each of
  // the few hundred requires of a start-up made V8 optimise path.normalize in the background, a
  // compile the process then waited for at exit (docs/archive/bench-notebook-2026.md, "Warm path, round 3").
  const chunkRequire = (id: string) =>
    id.startsWith('./') && !id.includes('/', 2) && !id.includes('\\')
      ? load(`${dir}${path.sep}${id.slice(2)}`)
      : id.startsWith('./') || id.startsWith('../')
        ? load(path.join(dir, id))
        : DEFERRED.has(id)
          ? deferred(id)
          : require(id);
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    mod.exports,
    mod.exports,
    chunkRequire,
    mod,
    file,
    dir,
    pathToFileURL(file).href,
  );
  return mod.exports;
}

if (enabled) {
  // At exit every chunk's cache also holds the functions this run compiled, not only the top level.
  // Only a successful run writes: a typo or a failure should not leave a pack behind.
  process.once('exit', (code) => {
    if (process.env.BRV_TRACE)
      performance.mark(`cli: code cache ${misses === 0 ? 'hit' : 'miss'} (${compiled.length} chunks, ${misses} compiled)`);
    if (misses === 0 || code !== 0) return;
    try {
      // Chunks this run did not load keep their data (a query that built its index loaded more).
      const entries = new Map([...pack].filter(([, entry]) => crc32(entry.data) === entry.crc));
      for (const { name, script } of compiled) {
        const data = script.createCachedData();
        entries.set(name, { crc: crc32(data), data });
      }
      writePack(entries);
    } catch {
      // No cache this time.
    }
  });
} else if (trace) performance.mark('cli: code cache off');
load(path.join(appDir, 'brv.js'));
