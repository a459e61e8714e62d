import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { blobObjectId } from '../git/blob-writer.js';
import type { GitRepository, TreeBlob } from '../git/repository.js';
import { BLOB_MODE, TREE_MODE, type TreeEntry } from '../git/tree.js';
import { listWorktrees } from '../git/worktree.js';
import { localStateDir } from '../store/layout.js';
import { readLocalFile, writeLocalFile } from '../store/local-file.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import { topicPathFromBlobPath } from '../topic/path.js';
import { foldersOf, indexPages, pageFile, readPublishedTopic, resolveRelated, topicPage, type PublishedTopic } from '../topic/publish.js';

/**
 * `brv publish`: the knowledge as plain Markdown pages (src/topic/publish.ts) written to a folder or to
 * an ordinary git branch, so people without brv read it on the hosting site. A branch gets a commit
 * built with plumbing only (hash-object through fast-import, mktree, commit-tree, a compare-and-swap
 * update-ref): the work tree, the index and HEAD are never touched. The same knowledge tree gives the
 * same files and, on the same parent, the same commit (dates and identity fixed from the knowledge
 * commit); unchanged topics keep their pages (a record of what was published: the folder's marker file,
 * or for a branch a local file trusted only while the branch tip is the commit it describes).
 */

/** The folder marker: what publish wrote there, so a later publish knows the folder is its own and what it may remove. */
const MARKER_FILE = '.brv-publish.json';
/** The commit trailer that says a branch tip was written by publish. */
const TRAILER = 'Brv-Published-From';
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const IDENTITY = { name: 'brv publish', email: 'publish@brv.invalid' };

interface TopicRecord {
  /** The topic blob the page was rendered from. */
  source: string;
  title: string;
  related: PublishedTopic['related'];
  /** Where the related refs led (JSON), which the page's bytes depend on. */
  links: string;
  /** The page's blob id. */
  oid: string;
}

/** What one publish wrote: every file's blob id, and each topic's record (for reuse). */
interface PublishRecord {
  version: 1;
  /** The publish commit this record describes (branches only). */
  commit?: string;
  files: Record<string, string>;
  topics: Record<string, TopicRecord>;
}

export interface PublishTarget {
  to: 'dir' | 'branch';
  /** The folder (absolute) or the branch name. */
  name: string;
}

export interface PublishOutcome {
  target: PublishTarget;
  /** The publish commit now at the branch tip (branches only). */
  commit?: string;
  /** false when nothing had to be written: the target already showed this knowledge. */
  changed: boolean;
  topics: number;
  /** Topic pages rendered this time; the rest kept their bytes. */
  rendered: number;
  reused: number;
  /** Files added or changed, sorted. */
  written: string[];
  /** Files removed (topics gone), sorted. */
  removed: string[];
}

export interface PublishInput {
  repo: GitRepository;
  /** The knowledge commit published (its dates make the publish commit). */
  from: string;
  /** Its blobs (topics are picked out here; others are ignored). */
  blobs: readonly TreeBlob[];
  force: boolean;
}

interface BuiltFile {
  oid: string;
  content?: Buffer;
}

/** Every published file (topic pages and indexes), reusing the previous record's pages where nothing they depend on changed. */
async function buildFiles(
  input: PublishInput,
  previous: PublishRecord | undefined,
  usable: (file: string) => boolean,
): Promise<{ files: Map<string, BuiltFile>; record: PublishRecord; rendered: number }> {
  const { repo } = input;
  const format = repo.location.objectFormat;
  const topics = new Map<string, TreeBlob>();
  for (const blob of input.blobs) {
    const topicPath = topicPathFromBlobPath(blob.path);
    if (topicPath !== undefined) topics.set(topicPath, blob);
  }
  const read = new Map<string, PublishedTopic>();
  const readTopic = async (topicPath: string, blob: TreeBlob): Promise<PublishedTopic> => {
    let topic = read.get(topicPath);
    if (topic) return topic;
    // Refs can be moved by plain git: a blob too large to be a topic becomes a notice, never read.
    const html =
      blob.size > MAX_STORED_TOPIC_BYTES
        ? undefined
        : await repo.readBlob(blob.oid, { maxBytes: MAX_STORED_TOPIC_BYTES }).catch(() => undefined);
    topic = readPublishedTopic(topicPath, html === undefined ? '' : html.toString('utf8'));
    read.set(topicPath, topic);
    return topic;
  };
  const known = (topicPath: string, blob: TreeBlob) => {
    const before = previous?.topics[topicPath];
    return before && before.source === blob.oid ? before : undefined;
  };
  const fresh = [...topics].filter(([topicPath, blob]) => !known(topicPath, blob));
  await Promise.all(fresh.map(([topicPath, blob]) => readTopic(topicPath, blob)));

  const topicSet = new Set(topics.keys());
  const folders = foldersOf(topicSet);
  const files = new Map<string, BuiltFile>();
  const record: PublishRecord = { version: 1, files: {}, topics: {} };
  const titles = new Map<string, string>();
  let rendered = 0;
  for (const [topicPath, blob] of [...topics].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const before = known(topicPath, blob);
    const { title, related } = before ?? read.get(topicPath)!;
    const links = resolveRelated(related, topicSet, folders);
    const linksKey = JSON.stringify(links.map((link) => link.file));
    const file = pageFile(topicPath);
    let built: BuiltFile;
    if (before && before.links === linksKey && previous?.files[file] === before.oid && usable(file)) {
      built = { oid: before.oid };
    } else {
      const content = Buffer.from(topicPage(topicPath, (await readTopic(topicPath, blob)).render(), links));
      built = { oid: blobObjectId(format, content), content };
      rendered++;
    }
    files.set(file, built);
    titles.set(topicPath, title);
    record.topics[topicPath] = { source: blob.oid, title, related, links: linksKey, oid: built.oid };
  }
  for (const [file, page] of indexPages(titles)) {
    const content = Buffer.from(page);
    files.set(file, { oid: blobObjectId(format, content), content });
  }
  for (const [file, built] of files) record.files[file] = built.oid;
  return { files, record, rendered };
}

function changes(files: ReadonlyMap<string, BuiltFile>, previous: PublishRecord | undefined) {
  const before = previous?.files ?? {};
  const written = [...files].filter(([file, built]) => before[file] !== built.oid).map(([file]) => file);
  const removed = Object.keys(before).filter((file) => !files.has(file));
  return { written: written.sort(), removed: removed.sort() };
}

/** A record read from disk or local state: anything malformed is no record (nothing is reused from it). */
function parseRecord(bytes: Buffer | undefined): PublishRecord | undefined {
  if (bytes === undefined) return undefined;
  try {
    const value = JSON.parse(bytes.toString('utf8')) as PublishRecord;
    if (value?.version !== 1 || typeof value.files !== 'object' || typeof value.topics !== 'object') return undefined;
    const files: Record<string, string> = {};
    for (const [file, oid] of Object.entries(value.files ?? {})) if (safeFile(file) && typeof oid === 'string') files[file] = oid;
    const topics: Record<string, TopicRecord> = {};
    for (const [topicPath, topic] of Object.entries(value.topics ?? {})) {
      if (
        topic &&
        typeof topic.source === 'string' &&
        typeof topic.oid === 'string' &&
        typeof topic.links === 'string' &&
        Array.isArray(topic.related)
      )
        topics[topicPath] = {
          source: topic.source,
          title: String(topic.title ?? '').replace(CONTROLS, '\uFFFD'),
          related: topic.related,
          links: topic.links,
          oid: topic.oid,
        };
    }
    return { version: 1, ...(typeof value.commit === 'string' ? { commit: value.commit } : {}), files, topics };
  } catch {
    return undefined;
  }
}

/** A file name publish can have written: relative, `/`-separated, no `.`/`..` or hidden segment, ending in `.md`. */
function safeFile(file: string): boolean {
  if (!file.endsWith('.md') || file.length > 1000 || file.includes('\\') || file.includes('\0')) return false;
  return file.split('/').every((segment) => segment !== '' && !segment.startsWith('.'));
}

function serialize(record: PublishRecord): string {
  const sorted = (value: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${JSON.stringify({ ...record, files: sorted(record.files), topics: sorted(record.topics) })}\n`;
}

// ---- a folder ----

function ioMessage(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

async function lstatOrUndefined(file: string) {
  try {
    return await lstat(file);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw new BrvError('publish-write-error', `Cannot read ${file}: ${ioMessage(error)}.`);
  }
}

/** The absolute place of `file` inside `base`, refused when it would resolve outside. */
function placed(base: string, file: string): string {
  const target = path.resolve(base, ...file.split('/'));
  const relative = path.relative(base, target);
  if (!safeFile(file) && file !== MARKER_FILE)
    throw new BrvError('unsafe-path', `Refusing to write ${JSON.stringify(file)}: not a published file name.`);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
    throw new BrvError('unsafe-path', `Refusing to write ${JSON.stringify(file)}: it resolves outside ${base}.`);
  return target;
}

/** Creates the folders on the way to `file`, each a real folder (a symbolic link on the way could lead outside). */
async function realFolders(base: string, file: string, checked: Set<string>): Promise<void> {
  const parts = file.split('/').slice(0, -1);
  let folder = base;
  for (const part of parts) {
    folder = path.join(folder, part);
    if (checked.has(folder)) continue;
    const info = await lstatOrUndefined(folder);
    if (info === undefined) {
      try {
        await mkdir(folder);
      } catch (error) {
        throw new BrvError('publish-write-error', `Cannot create ${folder}: ${ioMessage(error)}.`);
      }
    } else if (!info.isDirectory()) {
      throw new BrvError(
        'publish-target-invalid',
        `${folder} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}; publish writes only into real folders. Remove it, or publish to another folder.`,
      );
    }
    checked.add(folder);
  }
}

/** Whether every folder on the way to `file` is a real folder (a symbolic link there could lead outside `base`). */
async function realWay(base: string, file: string, known: Map<string, Promise<boolean>>): Promise<boolean> {
  let folder = base;
  for (const part of file.split('/').slice(0, -1)) {
    folder = path.join(folder, part);
    let real = known.get(folder);
    if (real === undefined)
      known.set(
        folder,
        (real = lstat(folder).then(
          (info) => info.isDirectory(),
          () => false,
        )),
      );
    if (!(await real)) return false;
  }
  return true;
}

/** Publishes into a folder: only changed files are written, files of topics gone are removed, the marker is written last. */
export async function publishToFolder(input: PublishInput, directory: string): Promise<PublishOutcome> {
  const base = path.resolve(directory);
  const target: PublishTarget = { to: 'dir', name: base };
  const info = await lstatOrUndefined(base);
  if (info && !info.isDirectory())
    throw new BrvError(
      'publish-target-invalid',
      `${base} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}; publish to a real folder.`,
    );
  let previous: PublishRecord | undefined;
  if (info) {
    const marker = await lstatOrUndefined(path.join(base, MARKER_FILE));
    if (marker?.isFile() && marker.size <= MAX_RECORD_BYTES)
      previous = parseRecord(await readFile(path.join(base, MARKER_FILE)).catch(() => undefined));
    if (marker === undefined && !input.force) {
      const names = await readdir(base).catch((error) => {
        throw new BrvError('publish-write-error', `Cannot read ${base}: ${ioMessage(error)}.`);
      });
      if (names.length > 0)
        throw new BrvError(
          'publish-target-not-ours',
          `${base} holds ${names.length} entries that brv publish did not write (no ${MARKER_FILE}); publish to an empty or new folder, or pass --force to write into it anyway.`,
        );
    }
  } else {
    try {
      await mkdir(base, { recursive: true });
    } catch (error) {
      throw new BrvError('publish-write-error', `Cannot create ${base}: ${ioMessage(error)}.`);
    }
  }
  // A page reused without reading it must still be on disk as a file.
  const present = new Set<string>();
  const way = new Map<string, Promise<boolean>>();
  if (previous) {
    await Promise.all(
      Object.keys(previous.files).map(async (file) => {
        if (!(await realWay(base, file, way))) return;
        const stat = await lstat(placed(base, file)).catch(() => undefined);
        if (stat?.isFile()) present.add(file);
      }),
    );
  }
  const { files, record, rendered } = await buildFiles(input, previous, (file) => present.has(file));
  const { written, removed } = changes(files, previous);
  const missing = [...files.keys()].filter((file) => !present.has(file) && !written.includes(file));
  const checked = new Set<string>();
  for (const file of [...written, ...missing]) {
    const built = files.get(file)!;
    if (built.content === undefined) continue; // reused and present (usable)
    const place = placed(base, file);
    await realFolders(base, file, checked);
    try {
      // Never through whatever is there: a symbolic link in the file's place is replaced, not followed.
      await unlink(place).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      await writeFile(place, built.content, { flag: 'wx' });
    } catch (error) {
      throw new BrvError('publish-write-error', `Cannot write ${place}: ${ioMessage(error)}.`);
    }
  }
  for (const file of removed) {
    const place = placed(base, file);
    if (!(await realWay(base, file, way))) continue; // never through a symbolic link
    const stat = await lstat(place).catch(() => undefined);
    if (stat?.isFile() || stat?.isSymbolicLink()) await unlink(place).catch(() => {});
    // Folders emptied by the removal go too (a folder still holding anything stays).
    for (let folder = path.dirname(place); folder !== base && folder.startsWith(base); folder = path.dirname(folder)) {
      if (
        !(await rmdir(folder).then(
          () => true,
          () => false,
        ))
      )
        break;
    }
  }
  const markerText = serialize(record);
  const changed = written.length > 0 || removed.length > 0 || missing.length > 0 || previous === undefined;
  if (changed) {
    const marker = placed(base, MARKER_FILE);
    const temporary = `${marker}.tmp-${process.pid}`;
    try {
      await unlink(temporary).catch(() => {});
      await writeFile(temporary, markerText, { flag: 'wx' });
      await rename(temporary, marker);
    } catch (error) {
      throw new BrvError('publish-write-error', `Cannot write ${marker}: ${ioMessage(error)}.`);
    }
  }
  return {
    target,
    changed,
    topics: Object.keys(record.topics).length,
    rendered,
    reused: Object.keys(record.topics).length - rendered,
    written: [...written, ...missing].sort(),
    removed,
  };
}

// ---- a branch ----

/** The seconds and zone of a commit's committer line, the publish commit's dates. */
async function committerDate(repo: GitRepository, commit: string): Promise<string> {
  const object = await repo.readObject(commit);
  const header = object?.data.toString('utf8').split('\n\n', 1)[0] ?? '';
  const line = header.split('\n').find((l) => l.startsWith('committer '));
  const match = line?.match(/> (\d+) ([+-]\d{4})$/);
  return match ? `${match[1]} ${match[2]}` : '0 +0000';
}

async function validBranch(repo: GitRepository, name: string): Promise<string> {
  const ref = `refs/heads/${name}`;
  const { exitCode } = await repo.git(['check-ref-format', ref], { okExitCodes: [1] });
  if (exitCode !== 0 || name.startsWith('-') || name === 'HEAD' || name.startsWith('refs/'))
    throw new BrvError('invalid-publish-branch', `"${name}" is not a valid git branch name; name an ordinary branch, e.g. brv-pages.`);
  return ref;
}

function recordFile(repo: GitRepository, name: string): string {
  return localStateDir(repo.location.commonDir, 'publish', `${createHash('sha1').update(name).digest('hex')}.json`);
}

/** Writes the nested trees of `files` (path → blob id) bottom-up; the root tree's id. */
async function writeTrees(repo: GitRepository, files: ReadonlyMap<string, string>): Promise<string> {
  interface Folder {
    blobs: Map<string, string>;
    folders: Map<string, Folder>;
  }
  const root: Folder = { blobs: new Map(), folders: new Map() };
  for (const [file, oid] of files) {
    const parts = file.split('/');
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) folder.folders.set(part, (next = { blobs: new Map(), folders: new Map() }));
      folder = next;
    }
    folder.blobs.set(parts[parts.length - 1]!, oid);
  }
  const write = async (folder: Folder): Promise<string> => {
    const entries: TreeEntry[] = [];
    for (const [name, sub] of folder.folders) entries.push({ mode: TREE_MODE, type: 'tree', oid: await write(sub), name });
    for (const [name, oid] of folder.blobs) entries.push({ mode: BLOB_MODE, type: 'blob', oid, name });
    return repo.writeTree(entries);
  };
  return write(root);
}

/** Publishes onto an ordinary branch: one new commit on its tip (none when the tree is the same), built with plumbing only. */
export async function publishToBranch(input: PublishInput, name: string): Promise<PublishOutcome> {
  const { repo } = input;
  const ref = await validBranch(repo, name);
  const target: PublishTarget = { to: 'branch', name };
  const checkedOut = (await listWorktrees(repo)).find((worktree) => worktree.gitBranch === name);
  if (checkedOut)
    throw new BrvError(
      'publish-branch-checked-out',
      `The branch ${name} is checked out in ${checkedOut.path}; publish never touches a work tree. Name another branch (e.g. brv-pages).`,
    );
  const tip = await repo.readCommit(ref).catch(() => undefined);
  const ours = tip !== undefined && new RegExp(`^${TRAILER}: `, 'm').test(tip.message);
  if (tip && !ours && !input.force)
    throw new BrvError(
      'publish-target-not-ours',
      `The branch ${name} was not written by brv publish (its tip ${tip.oid.slice(0, 12)} has no ${TRAILER} trailer); name another branch, or pass --force to publish on top of it.`,
    );
  const file = recordFile(repo, name);
  const stored = parseRecord(await readLocalFile(file, MAX_RECORD_BYTES).catch(() => undefined));
  // Only a record of the commit now at the tip is trusted: a branch someone else moved is rebuilt in full.
  const previous = stored && tip && stored.commit === tip.oid ? stored : undefined;
  const { files, record, rendered } = await buildFiles(input, previous, () => true);
  const { written, removed } = changes(files, previous);
  const inTip = new Set(Object.values(previous?.files ?? {}));
  const fresh = [...files.values()].filter((built) => built.content !== undefined && !inTip.has(built.oid));
  if (fresh.length > 0) {
    const writer = repo.blobWriter();
    try {
      const seen = new Set<string>();
      for (const built of fresh) {
        if (seen.has(built.oid)) continue;
        seen.add(built.oid);
        await writer.write(built.content!);
      }
    } finally {
      await writer.close();
    }
  }
  const tree = await writeTrees(repo, new Map([...files].map(([f, built]) => [f, built.oid])));
  const topics = Object.keys(record.topics).length;
  const outcome = (commit: string, changed: boolean, shown: { written: string[]; removed: string[] }): PublishOutcome => ({
    target,
    commit,
    changed,
    topics,
    rendered,
    reused: topics - rendered,
    ...shown,
  });
  if (tip && tip.tree === tree) {
    if (!previous) await writeLocalFile(file, serialize({ ...record, commit: tip.oid }), { repair: path.dirname(file) });
    return outcome(tip.oid, false, { written: [], removed: [] });
  }
  const date = await committerDate(repo, input.from);
  const message = `Publish ${topics} ${topics === 1 ? 'topic' : 'topics'} as Markdown\n\n${TRAILER}: ${input.from}\n`;
  const env = {
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    GIT_COMMITTER_DATE: date,
  };
  const commit = await repo.commitTree(tree, tip ? [tip.oid] : [], message, { sign: false, env });
  await repo.updateRefs([{ ref, newOid: commit, oldOid: tip?.oid }], `brv publish: ${input.from}`);
  await writeLocalFile(file, serialize({ ...record, commit }), { repair: path.dirname(file) });
  // Without a trusted record every file counts as written (the branch was rebuilt in full).
  return outcome(commit, true, previous ? { written, removed } : { written: [...files.keys()].sort(), removed: [] });
}
