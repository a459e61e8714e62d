import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import type { ContextStore, Snapshot } from '../store/context-store.js';
import { caseFoldKey, topicBlobPath, topicPathFromBlobPath } from '../topic/path.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';

/**
 * `brv export <dir>`: the topics of a brv tree written as files in ByteRover's layout,
 * `<dir>/.brv/context-tree/<topic path>.html` (spec §1.2), so ByteRover (or `brv import`) reads them.
 * The tree is written into a temporary folder next to the target and renamed into place: a reader
 * sees the old tree or the new one, and a failure leaves the target as it was.
 */

export interface ExportFile {
  /** Blob path in the brv tree, e.g. `security/auth.html`. */
  path: string;
  content: Uint8Array | string;
}

export interface ExportOptions {
  /** Replace a non-empty target tree (its hidden entries, such as ByteRover's `.git/`, are kept). */
  force?: boolean;
  /** Called as topics are written: `done` of `total` (a front end shows progress for large trees). */
  onProgress?: (done: number, total: number) => void;
}

export interface ExportResult {
  /** The context-tree folder written. */
  directory: string;
  /** Topic paths written, sorted. */
  topics: string[];
  /** True when an existing non-empty tree was replaced (`force`). */
  replaced: boolean;
  /** Hidden entries of the replaced tree carried over, e.g. `.git`. */
  kept: string[];
  /**
   * Topics not exported because their path differs only by letter case from one that was (both can be
   * in a tree a plain git push or a merge made): on macOS and Windows they would be one file, and
   * writing both would silently keep only one. The first in code-unit order is exported.
   */
  caseCollisions: CaseCollision[];
}

export interface CaseCollision {
  /** The topic path not exported. */
  path: string;
  kind: 'path-case-collision';
  /** The topic path exported in its place. */
  exported: string;
  message: string;
}

/**
 * The files to write and the case collisions left out. A renamed copy (`auth~2.html`) was not chosen:
 * ByteRover or `brv import` would read it as a topic nobody wrote, so knowledge would fork on the way back.
 */
function withoutCaseCollisions(files: readonly ExportFile[]): { files: ExportFile[]; caseCollisions: CaseCollision[] } {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const taken = new Map<string, string>();
  const kept: ExportFile[] = [];
  const caseCollisions: CaseCollision[] = [];
  for (const file of sorted) {
    const key = caseFoldKey(file.path);
    const first = taken.get(key);
    if (first === undefined || first === file.path) {
      taken.set(key, file.path);
      kept.push(file);
      continue;
    }
    const [path, exported] = [file.path.replace(/\.html$/, ''), first.replace(/\.html$/, '')];
    caseCollisions.push({
      path,
      kind: 'path-case-collision',
      exported,
      message: `${path} was not exported: it differs only by letter case from ${exported}, which was, and on macOS and Windows the two are one file. Give one of them another path (brv read ${path}, curate it under a new path, brv rm ${path}), then export again.`,
    });
  }
  // The order given is kept for what is written.
  const keep = new Set(kept);
  return { files: files.filter((f) => keep.has(f)), caseCollisions };
}

function ioMessage(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

async function lstatOrUndefined(file: string) {
  try {
    return await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new BrvError('export-write-error', `Cannot read ${file}: ${ioMessage(error)}.`);
  }
}

/** Every file's place under `base`, checked: a topic blob path, and inside `base` once resolved. */
function placements(files: readonly ExportFile[], base: string): Array<{ relative: string; content: Uint8Array | string }> {
  const seen = new Set<string>();
  return files.map((file) => {
    const topicPath = topicPathFromBlobPath(file.path);
    if (topicPath === undefined || topicBlobPath(topicPath) !== file.path) {
      throw new BrvError('unsafe-path', `Refusing to export ${JSON.stringify(file.path)}: it is not a topic path (domain/topic.html).`);
    }
    const target = path.resolve(base, ...file.path.split('/'));
    const relative = path.relative(base, target);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new BrvError('unsafe-path', `Refusing to export ${JSON.stringify(file.path)}: it resolves outside the export folder.`);
    }
    if (seen.has(file.path)) throw new BrvError('duplicate-path', `${file.path} is listed twice; each topic is exported once.`);
    seen.add(file.path);
    return { relative, content: file.content };
  });
}

/** A folder `outDir` owns (not a symlink, not a file), created when missing. */
async function ownedFolder(folder: string, what: string): Promise<void> {
  const info = await lstatOrUndefined(folder);
  if (info === undefined) {
    try {
      await mkdir(folder);
    } catch (error) {
      throw new BrvError('export-write-error', `Cannot create ${folder}: ${ioMessage(error)}.`);
    }
  } else if (!info.isDirectory()) {
    const kind = info.isSymbolicLink() ? 'a symbolic link' : 'not a folder';
    throw new BrvError(
      'export-target-invalid',
      `${folder} (${what}) is ${kind}; export writes only into real folders. Remove it or pick another folder.`,
    );
  }
}

/** Writes `files` as `<outDir>/.brv/context-tree/<path>`; all or nothing. */
export async function exportTree(files: readonly ExportFile[], outDir: string, options: ExportOptions = {}): Promise<ExportResult> {
  const out = path.resolve(outDir);
  const brvDir = path.join(out, '.brv');
  const target = path.join(brvDir, 'context-tree');
  const { files: exported, caseCollisions } = withoutCaseCollisions(files);
  // Checked before anything is created: a bad path means nothing is written at all.
  const planned = placements(exported, target);

  try {
    await mkdir(out, { recursive: true });
  } catch (error) {
    throw new BrvError('export-write-error', `Cannot create ${out}: ${ioMessage(error)}.`);
  }
  await ownedFolder(brvDir, 'the ByteRover project folder');

  const existing = await lstatOrUndefined(target);
  let hidden: string[] = [];
  let occupied = false;
  if (existing) {
    if (!existing.isDirectory()) {
      const kind = existing.isSymbolicLink() ? 'a symbolic link' : 'not a folder';
      throw new BrvError('export-target-invalid', `${target} is ${kind}; remove it or export to another folder.`);
    }
    let names: string[];
    try {
      names = await readdir(target);
    } catch (error) {
      throw new BrvError('export-write-error', `Cannot read ${target}: ${ioMessage(error)}.`);
    }
    occupied = names.length > 0;
    if (occupied && !options.force) {
      throw new BrvError(
        'export-target-exists',
        `${target} already holds ${names.length} entries; pass --force to replace it, or export to an empty folder.`,
      );
    }
    hidden = names.filter((name) => name.startsWith('.')).sort();
  }

  // mkdir (not mkdtemp, whose folder is private) so the tree gets the usual permissions; the random
  // name makes it exclusive.
  const stage = path.join(brvDir, `.context-tree.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(stage);
  } catch (error) {
    throw new BrvError('export-write-error', `Cannot create a temporary folder in ${brvDir}: ${ioMessage(error)}.`);
  }
  const moved: string[] = [];
  let old: string | undefined;
  try {
    for (const [i, { relative, content }] of planned.entries()) {
      const file = path.join(stage, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, { flag: 'wx' });
      options.onProgress?.(i + 1, planned.length);
    }
    if (occupied) {
      // Hidden entries (ByteRover's .git/, .gitignore) are not topics; the new tree keeps them.
      for (const name of hidden) {
        await rename(path.join(target, name), path.join(stage, name));
        moved.push(name);
      }
      old = path.join(brvDir, `.context-tree.old-${randomBytes(6).toString('hex')}`);
      await rename(target, old);
    } else if (existing) {
      await rmdir(target);
    }
    await rename(stage, target);
  } catch (error) {
    // Undo in reverse: the old tree back in place, its hidden entries back in it, the stage gone.
    const gone = (await lstatOrUndefined(target).catch(() => undefined)) === undefined;
    if (gone && old !== undefined) await rename(old, target).catch(() => {});
    else if (gone && existing) await mkdir(target).catch(() => {});
    for (const name of moved) await rename(path.join(stage, name), path.join(target, name)).catch(() => {});
    await rm(stage, { recursive: true, force: true }).catch(() => {});
    if (error instanceof BrvError) throw error;
    throw new BrvError('export-write-error', `Could not write the export to ${target}: ${ioMessage(error)}. Nothing was changed.`);
  }
  if (old !== undefined) await rm(old, { recursive: true, force: true }).catch(() => {});
  return {
    directory: target,
    topics: exported.map((f) => f.path.replace(/\.html$/, '')).sort(),
    replaced: occupied,
    kept: hidden.filter((name) => moved.includes(name)),
    caseCollisions,
  };
}

/** The topic blobs of a snapshot (not `.brv/format` or other non-topic blobs), read from git. */
export async function readTopicBlobs(store: ContextStore, snapshot: Snapshot): Promise<ExportFile[]> {
  const blobs = (await store.listBlobs(snapshot)).filter((blob) => topicPathFromBlobPath(blob.path) !== undefined);
  // Refs can be moved by plain git: a huge blob is refused from its size, never loaded.
  const huge = blobs.find((blob) => blob.size > MAX_STORED_TOPIC_BYTES);
  if (huge)
    throw new BrvError(
      'too-large',
      `${huge.path} is ${huge.size} bytes; topics are at most ${MAX_STORED_TOPIC_BYTES} bytes, so brv does not export it. It was not written by brv: remove it with brv rm, then export again.`,
    );
  const contents = await Promise.all(blobs.map((blob) => store.repo.readBlob(blob.oid, { maxBytes: MAX_STORED_TOPIC_BYTES })));
  return blobs.map((blob, i) => {
    const content = contents[i];
    if (content === undefined) throw new BrvError('corrupt-repository', `Blob ${blob.oid} (${blob.path}) is missing from the repository.`);
    return { path: blob.path, content };
  });
}
