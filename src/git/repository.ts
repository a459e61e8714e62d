import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { BlobWriter } from './blob-writer.js';
import { discoverRepository, type RepositoryLocation } from './discover.js';
import { advanceRememberedTip } from './discovery-cache.js';
import { ObjectReader, type BatchAnswer, type GitObject, type ObjectType } from './object-reader.js';
import type { GitProcesses } from './processes.js';
import { parseConfigList } from './config-list.js';
import { GitCommandError, runGit, runGitBuffer, type GitRunOptions } from './run.js';
import { parseTree, type TreeEntry } from './tree.js';
import { TreeWriter } from './tree-writer.js';
import { checkGitVersion } from './version.js';

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
}

export interface TreeBlob {
  path: string;
  oid: string;
  /** Bytes, from the object header. */
  size: number;
}

export interface TreeChange {
  status: 'A' | 'M' | 'D';
  path: string;
  oldOid: string;
  newOid: string;
}

export interface RefUpdate {
  ref: string;
  /** undefined deletes the ref. */
  newOid: string | undefined;
  /** The value the ref must still have; undefined means "must not exist yet". */
  oldOid: string | undefined;
}

/** A ref did not have the value we read: someone else wrote first. Callers re-read and retry. */
export class RefMovedError extends BrvError {
  constructor(detail: string) {
    super('ref-moved', `A brv ref changed while this command was writing (${detail}).`);
  }
}

/**
 * A blob over the limit its reader gave (GitRepository.readBlob's `maxBytes`), refused unread. Callers
 * that read many blobs catch it to report that one and carry on; the message is generic (the caller
 * knows which topic it is and says so).
 */
export class BlobTooLargeError extends BrvError {
  constructor(
    readonly oid: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super('too-large', `Blob ${oid} is ${size} bytes, over the ${limit}-byte limit, so brv does not read it.`, { size, limit });
  }
}

/**
 * The only door to one git repository. Everything here runs the real git binary: one long-lived
 * reader and tree writer, and short plumbing commands that always name this repository's git dir.
 */
export class GitRepository {
  readonly location: RepositoryLocation;
  readonly zeroOid: string;
  private readonly oidBytes: number;
  private reader: ObjectReader | undefined;
  private treeWriter: TreeWriter | undefined;
  private closed = false;
  private versionCheck: Promise<string> | undefined;
  private emptyTreeOid: Promise<string> | undefined;
  private signing: Promise<boolean> | undefined;

  private constructor(
    location: RepositoryLocation,
    /** Runs and tracks every git process of this repository; reuse it for repositories opened from here (clones, worktrees, sources). */
    readonly processes: GitProcesses,
  ) {
    this.location = location;
    this.oidBytes = location.objectFormat === 'sha256' ? 32 : 20;
    this.zeroOid = '0'.repeat(this.oidBytes * 2);
  }

  static async open(cwd: string, processes: GitProcesses, prefetch: readonly string[] = []): Promise<GitRepository> {
    return new GitRepository(await discoverRepository(cwd, processes, prefetch), processes);
  }

  /** A revision resolved at discovery, handed out once (later reads must see later writes). */
  takePrefetched(revision: string): string | undefined {
    const oid = this.location.revisions.get(revision);
    this.location.revisions.delete(revision);
    return oid;
  }

  git(args: readonly string[], options: GitRunOptions = {}) {
    return runGit(this.processes, [`--git-dir=${this.location.gitDir}`, ...args], options);
  }

  gitBuffer(args: readonly string[], options: GitRunOptions = {}) {
    return runGitBuffer(this.processes, [`--git-dir=${this.location.gitDir}`, ...args], options);
  }

  readObject(name: string): Promise<GitObject | undefined> {
    return this.batchReader().read(name);
  }

  /**
   * Reads an object unless its header says it is over `maxBytes`; then its data is dropped as it
   * streams by, never held (an OversizedObject: oid, type and size only).
   */
  readObjectWithin(name: string, maxBytes: number): Promise<BatchAnswer> {
    return this.batchReader().readWithin(name, maxBytes);
  }

  /**
   * The long-lived `cat-file --batch` reader, started on first use. Never after `close`: a process
   * started then would outlive everything that could close it (and keep the program from exiting).
   */
  private batchReader(): ObjectReader {
    this.refuseIfClosed();
    this.reader ??= new ObjectReader(this.processes, this.location.gitDir);
    return this.reader;
  }

  private batchTreeWriter(): TreeWriter {
    this.refuseIfClosed();
    this.treeWriter ??= new TreeWriter(this.processes, this.location.gitDir);
    return this.treeWriter;
  }

  private refuseIfClosed(): void {
    if (this.closed) {
      throw new BrvError(
        'repository-closed',
        'This repository was closed (its command or server has ended) before this read or write: run it again.',
      );
    }
  }

  /**
   * Type and size of many objects in one `git cat-file --batch-check` (no contents read), in the
   * order asked; undefined for a name that resolves to nothing.
   */
  async objectInfo(names: readonly string[]): Promise<Array<{ oid: string; type: ObjectType; size: number } | undefined>> {
    if (names.length === 0) return [];
    if (names.some((n) => /[\n\r]/.test(n))) throw new BrvError('invalid-object-name', 'Object names cannot contain newlines.');
    const { stdout } = await this.git(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
      input: names.map((n) => `${n}\n`).join(''),
    });
    const lines = stdout.split('\n');
    return names.map((_, i) => {
      const match = /^([0-9a-f]+) (blob|tree|commit|tag) (\d+)$/.exec(lines[i] ?? '');
      return match ? { oid: match[1]!, type: match[2] as ObjectType, size: Number(match[3]) } : undefined;
    });
  }

  /**
   * A blob's content; undefined when the name resolves to nothing or to another type. With
   * `maxBytes`, a larger blob is refused from its object header (BlobTooLargeError, kind `too-large`)
   * and its content is never held: refs can be moved by plain git, so a blob may be any size.
   */
  async readBlob(name: string, options: { maxBytes?: number } = {}): Promise<Buffer | undefined> {
    if (options.maxBytes === undefined) {
      const object = await this.readObject(name);
      return object?.type === 'blob' ? object.data : undefined;
    }
    const object = await this.readObjectWithin(name, options.maxBytes);
    if (object?.type !== 'blob') return undefined;
    if ('oversized' in object) throw new BlobTooLargeError(object.oid, object.size, options.maxBytes);
    return object.data;
  }

  async readTree(oid: string): Promise<TreeEntry[]> {
    const object = await this.readObject(oid);
    if (!object || object.type !== 'tree') throw new BrvError('corrupt-repository', `Tree ${oid} is missing from the repository.`);
    return parseTree(object.data, this.oidBytes);
  }

  /** The commit a ref points at, or undefined if the ref does not exist. */
  async readRefCommit(ref: string): Promise<CommitInfo | undefined> {
    const object = await this.readObject(ref);
    if (!object) return undefined;
    if (object.type !== 'commit') throw new BrvError('corrupt-repository', `${ref} does not point at a commit.`);
    return parseCommit(object.oid, object.data);
  }

  async readCommit(name: string): Promise<CommitInfo | undefined> {
    const object = await this.readObject(`${name}^{commit}`);
    return object ? parseCommit(object.oid, object.data) : undefined;
  }

  async writeBlob(data: string | Uint8Array): Promise<string> {
    const { stdout } = await this.git(['hash-object', '-w', '--stdin', '--no-filters'], { input: data });
    return stdout.trim();
  }

  /**
   * Writes many blobs through one `git fast-import` (a pack), for imports of whole trees; the oids,
   * in order. See `blobWriter` to stream them.
   */
  async writeBlobs(contents: readonly (string | Uint8Array)[]): Promise<string[]> {
    if (contents.length === 0) return [];
    const writer = this.blobWriter();
    const oids: string[] = [];
    for (const content of contents) oids.push(await writer.write(content));
    await writer.close();
    return oids;
  }

  /** A writer that streams blobs into one `git fast-import` (one pack), holding none of them. */
  blobWriter(): BlobWriter {
    return new BlobWriter(this.processes, this.location.gitDir, this.location.objectFormat);
  }

  /** Starts the long-lived reader ahead of use, so its process start overlaps other work. */
  prepareObjectReader(): void {
    this.batchReader();
  }

  /** Starts the long-lived reader and tree writer ahead of use, so their process starts overlap other work. */
  prepareBatchProcesses(): void {
    this.batchReader();
    this.batchTreeWriter();
  }

  /** brv's newer plumbing (merge-tree --write-tree, ls-tree --format) needs git 2.38. */
  requireModernGit(): Promise<string> {
    this.versionCheck ??= checkGitVersion(this.processes);
    return this.versionCheck;
  }

  /** The empty tree (the "before" of a root commit), written once per repository. */
  emptyTree(): Promise<string> {
    this.emptyTreeOid ??= this.writeTree([]);
    return this.emptyTreeOid;
  }

  writeTree(entries: readonly TreeEntry[]): Promise<string> {
    return this.batchTreeWriter().write(entries);
  }

  /**
   * Writes a commit. It is signed (`-S`, with the user's gpg.format and user.signingKey) when git
   * config asks for signed commits (`commit.gpgSign`), as `git commit` would: `git commit-tree`
   * itself ignores that setting. `sign: false` for throwaway commits nobody keeps (or that must be
   * reproducible); `env` fixes identity and dates (GIT_AUTHOR_* and GIT_COMMITTER_*).
   */
  async commitTree(
    tree: string,
    parents: readonly string[],
    message: string,
    options: { sign?: boolean; env?: Record<string, string> } = {},
  ): Promise<string> {
    const sign = options.sign !== false && (await this.signsCommits());
    const args = ['commit-tree', ...(sign ? ['-S'] : []), tree, ...parents.flatMap((p) => ['-p', p]), '-F', '-'];
    try {
      return (await this.git(args, { input: message, ...(options.env ? { env: options.env } : {}) })).stdout.trim();
    } catch (error) {
      // No user.name/user.email configured: knowledge must still be recordable, so sign as brv.
      if (error instanceof GitCommandError && /Please tell me who you are|empty ident|unable to auto-detect email/i.test(error.stderr)) {
        const identity = {
          GIT_AUTHOR_NAME: 'brv',
          GIT_AUTHOR_EMAIL: 'brv@localhost',
          GIT_COMMITTER_NAME: 'brv',
          GIT_COMMITTER_EMAIL: 'brv@localhost',
        };
        try {
          return (await this.git(args, { input: message, env: identity })).stdout.trim();
        } catch (retried) {
          throw sign && retried instanceof GitCommandError ? signingFailed(retried) : retried;
        }
      }
      throw sign && error instanceof GitCommandError ? signingFailed(error) : error;
    }
  }

  /** Whether git config asks for signed commits (`commit.gpgSign`), read once per repository opened. */
  signsCommits(): Promise<boolean> {
    this.signing ??= this.git(['config', '--type=bool', '--get', 'commit.gpgsign'], { okExitCodes: [1, 128] }).then(
      ({ stdout, exitCode }) => exitCode === 0 && stdout.trim() === 'true',
    );
    return this.signing;
  }

  /**
   * Tells the repository's remembered discovery (discovery-cache.ts) that this process moved `ref`
   * from `from` to `to`, a commit of `from`'s tree edited at `changed` paths: the next command then
   * finds the new tip without starting git. Only for the plain layout, the only one remembered.
   */
  rememberTipMoved(ref: string, from: string, to: { commit: string; tree: string }, changed: readonly string[]): void {
    const { gitDir, commonDir, workTree, bare } = this.location;
    if (bare || workTree === undefined || gitDir !== commonDir) return;
    advanceRememberedTip(gitDir, ref, from, to, changed);
  }

  /** Applies every update or none, each one only if its ref still has the expected old value. */
  async updateRefs(updates: readonly RefUpdate[], reflogMessage: string): Promise<void> {
    let input = '';
    for (const update of updates) {
      const old = update.oldOid ?? this.zeroOid;
      input += update.newOid === undefined ? `delete ${update.ref}\0${old}\0` : `update ${update.ref}\0${update.newOid}\0${old}\0`;
    }
    try {
      await this.git(['update-ref', '--create-reflog', '-m', reflogMessage.replace(/\n/g, ' '), '--stdin', '-z'], { input });
    } catch (error) {
      if (
        error instanceof GitCommandError &&
        /but expected|already exists|cannot lock ref|unable to resolve reference|reference is missing/i.test(error.stderr)
      ) {
        throw new RefMovedError(error.stderr.trim().split('\n')[0] ?? 'lock failed');
      }
      throw error;
    }
  }

  /** All refs under a prefix with the objects they point at. */
  async listRefs(prefix: string): Promise<Array<{ ref: string; oid: string }>> {
    const { stdout } = await this.git(['for-each-ref', '--format=%(objectname) %(refname)', prefix]);
    return stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const space = line.indexOf(' ');
        return { oid: line.slice(0, space), ref: line.slice(space + 1) };
      });
  }

  /** Every blob path in a tree (recursive), in git's order. */
  async listTreePaths(tree: string): Promise<string[]> {
    const { stdout } = await this.gitBuffer(['ls-tree', '-r', '-z', '--name-only', tree]);
    return stdout.length === 0 ? [] : stdout.toString('utf8').split('\0').filter(Boolean);
  }

  /**
   * Every blob in a tree (recursive) with its oid and size in bytes, in git's order. Sizes come from
   * the object headers (`%(objectsize)`): a caller can refuse a huge blob without ever reading it.
   * Gitlinks (submodule commits) are not blobs and are left out. A tree written with plumbing may
   * name a path twice: both entries are listed, as git stores them.
   */
  async listTreeBlobs(tree: string): Promise<TreeBlob[]> {
    let stdout: Buffer;
    try {
      ({ stdout } = await this.gitBuffer(['ls-tree', '-r', '-z', '--format=%(objecttype) %(objectname) %(objectsize) %(path)', tree]));
    } catch (error) {
      // `ls-tree --format` needs git 2.36: only when the listing fails is the version asked, so that
      // the first query of a fetched tree starts one process fewer; an old git gets git-too-old.
      if (error instanceof GitCommandError && /unknown option|usage:/i.test(error.stderr)) await this.requireModernGit();
      throw error;
    }
    if (stdout.length === 0) return [];
    const blobs: TreeBlob[] = [];
    for (const line of stdout.toString('utf8').split('\0')) {
      if (!line.startsWith('blob ')) continue;
      const oidEnd = line.indexOf(' ', 5);
      const sizeEnd = line.indexOf(' ', oidEnd + 1);
      if (oidEnd < 0 || sizeEnd < 0) continue;
      blobs.push({ oid: line.slice(5, oidEnd), size: Number(line.slice(oidEnd + 1, sizeEnd)), path: line.slice(sizeEnd + 1) });
    }
    return blobs;
  }

  /**
   * The size in bytes of each blob named (oids or `<tree>:<path>` names), read from the object headers
   * through one `git cat-file --batch-check`: the blobs themselves are never loaded. Names that are
   * missing or not blobs are absent from the result.
   */
  async blobSizes(names: readonly string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    const wanted = [...new Set(names)];
    if (wanted.length === 0) return sizes;
    if (wanted.some((name) => /[\n\r]/.test(name))) throw new BrvError('invalid-object-name', 'Object names cannot contain newlines.');
    const { stdout } = await this.git(['cat-file', '--batch-check=%(objecttype) %(objectsize)'], { input: `${wanted.join('\n')}\n` });
    stdout.split('\n').forEach((line, i) => {
      const match = /^blob (\d+)$/.exec(line);
      if (match && i < wanted.length) sizes.set(wanted[i]!, Number(match[1]));
    });
    return sizes;
  }

  /** Blob-level differences between two trees (recursive, no rename detection). */
  async diffTrees(from: string, to: string): Promise<TreeChange[]> {
    const { stdout } = await this.gitBuffer(['diff-tree', '-r', '-z', '--no-renames', '--raw', '--no-commit-id', from, to]);
    const fields = stdout.toString('utf8').split('\0');
    const changes: TreeChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      // ":100644 100644 <old> <new> M" then the path
      const meta = fields[i]!.split(' ');
      const status = meta[4]?.charAt(0);
      const path = fields[i + 1]!;
      if (status === 'A' || status === 'M' || status === 'D' || status === 'T') {
        changes.push({ status: status === 'T' ? 'M' : status, path, oldOid: meta[2]!, newOid: meta[3]! });
      }
    }
    return changes;
  }

  /**
   * Whether any ref under `prefix` may exist, answered from the ref files alone (no process): a
   * loose ref directory, or a mention in packed-refs. False means there are certainly none.
   */
  async refsMayExist(prefix: string): Promise<boolean> {
    const { commonDir } = this.location;
    if (existsSync(path.join(commonDir, 'reftable'))) return true; // refs not in files: ask git
    if (existsSync(path.join(commonDir, ...prefix.split('/').filter(Boolean)))) return true;
    try {
      return (await readFile(path.join(commonDir, 'packed-refs'), 'utf8')).includes(` ${prefix}`);
    } catch {
      return false;
    }
  }

  /** Whether `ancestor` is reachable from `descendant` (equal counts as reachable). */
  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const { exitCode } = await this.git(['merge-base', '--is-ancestor', ancestor, descendant], { okExitCodes: [1] });
    return exitCode === 0;
  }

  /** Commits only in `left` and only in `right`. */
  async aheadBehind(left: string, right: string): Promise<{ ahead: number; behind: number }> {
    const { stdout } = await this.git(['rev-list', '--left-right', '--count', `${left}...${right}`, '--']);
    const [ahead, behind] = stdout.trim().split(/\s+/).map(Number);
    return { ahead: ahead ?? 0, behind: behind ?? 0 };
  }

  /** How many commits `revision` reaches. */
  async countCommits(revision: string): Promise<number> {
    const { stdout } = await this.git(['rev-list', '--count', revision, '--']);
    return Number(stdout.trim()) || 0;
  }

  /** Resolves a revision to an object id, or undefined when it names nothing. */
  async resolve(revision: string): Promise<string | undefined> {
    // Through the long-lived reader: sync and review resolve many refs, a process each would add up.
    // Only the header is wanted: the data is dropped as it streams by (a ref a plain `git fetch`
    // moved may name a huge blob).
    return (await this.readObjectWithin(revision, 0))?.oid;
  }

  /** Every value of a multi-valued key (e.g. remote.origin.fetch). */
  async configGetAll(key: string): Promise<string[]> {
    const { stdout, exitCode } = await this.git(['config', '--get-all', '--', configKey(key)], { okExitCodes: [1] });
    return exitCode === 0 ? stdout.split('\n').filter(Boolean) : [];
  }

  async configSet(key: string, value: string, options: { global?: boolean; add?: boolean } = {}): Promise<void> {
    await this.git(['config', ...(options.global ? ['--global'] : []), ...(options.add ? ['--add'] : []), '--', configKey(key), value]);
  }

  async configUnset(key: string, options: { global?: boolean; valuePattern?: string } = {}): Promise<void> {
    const args = [
      'config',
      ...(options.global ? ['--global'] : []),
      options.valuePattern ? '--unset-all' : '--unset',
      '--',
      configKey(key),
    ];
    if (options.valuePattern) args.push(options.valuePattern);
    await this.git(args, { okExitCodes: [5] });
  }

  /** Every `brv.*` (or other prefix) setting visible here, lower-cased keys as git reports them. */
  async configList(pattern: string, options: { global?: boolean } = {}): Promise<Array<{ key: string; value: string }>> {
    const { stdout } = await this.git(['config', ...(options.global ? ['--global'] : []), '-z', '--get-regexp', '--', pattern], {
      okExitCodes: [1],
    });
    return parseConfigList(stdout);
  }

  async configGet(key: string): Promise<string | undefined> {
    const { stdout, exitCode } = await this.git(['config', '--get', '--', configKey(key)], { okExitCodes: [1] });
    return exitCode === 0 ? stdout.trim() : undefined;
  }

  close(): void {
    this.closed = true;
    this.reader?.close();
    this.treeWriter?.close();
    this.reader = undefined;
    this.treeWriter = undefined;
  }
}

/** A commit git could not sign: typed, with git's words and what to check; no ref moved. */
function signingFailed(error: GitCommandError): BrvError {
  const words = error.stderr.trim().split('\n').slice(-3).join(' ');
  return new BrvError(
    'signing-failed',
    `git could not sign the commit (commit.gpgSign is true): ${words} ` +
      'Check user.signingKey and gpg.format (for ssh: the key file exists and is readable, or is loaded in ssh-agent), ' +
      'or turn signing off for this repository with git config commit.gpgSign false. Nothing was written.',
  );
}

/** A config key as `section.name` (or `section.sub.name`): never something git could read as an option. */
function configKey(key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*\.[^\0\n]+$/.test(key) || key.length > 1024) {
    throw new BrvError('invalid-config-key', `"${key}" is not a git config key (section.name).`);
  }
  return key;
}

function parseCommit(oid: string, data: Buffer): CommitInfo {
  const text = data.toString('utf8');
  const headerEnd = text.indexOf('\n\n');
  const header = headerEnd < 0 ? text : text.slice(0, headerEnd);
  let tree = '';
  const parents: string[] = [];
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) tree = line.slice(5);
    else if (line.startsWith('parent ')) parents.push(line.slice(7));
  }
  return { oid, tree, parents, message: headerEnd < 0 ? '' : text.slice(headerEnd + 2) };
}
