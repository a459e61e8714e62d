import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileStamp, lstatOrUndefined, readRefFile, readRegularFile } from './ref-files.js';
import type { RepositoryLocation } from './location.js';

/**
 * What `git rev-parse` answered for a repository, remembered in it (`<git-dir>/brv/discovery.json`),
 * so that a command run again there starts no git process to find its repository and the brv tip:
 * that process was the only one of a warm `brv query` (~4 ms of spawning on a fast machine, 13–21 on
 * a slow one: docs/archive/bench-notebook-2026.md, "Warm path").
 *
 * Only the plain case is served from it: a non-bare repository whose `.git` is a directory in the
 * work tree's top (not a linked worktree, not a submodule), owned by this user, found from the
 * working directory by the rule git follows (the nearest `.git` upward, never across a filesystem,
 * never from inside a git directory), with no environment variable that changes discovery, and the
 * repository's config unchanged (same inode, size and time) since git answered. The revisions are
 * served only when the first is a ref whose value, read from its loose file or packed-refs, is the
 * commit git resolved then: the others (`<ref>^{tree}`, `<ref>:<path>`) name parts of that commit,
 * which never change (unless `git replace` says otherwise: a repository with replace refs asks
 * git). Anything else (and any doubt: an unreadable or malformed file, a symbolic ref, reftable)
 * asks git, which writes the file again.
 */

const FILE = 'discovery.json';
const VERSION = 1;
const MAX_BYTES = 64 * 1024;
/** Variables git reads to discover a repository or its configuration (the ones that lead elsewhere are removed from git's environment: env.ts). */
const DISCOVERY_VARIABLES = [
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG',
];

interface Remembered {
  readonly version: number;
  readonly workTree: string;
  readonly objectFormat: 'sha1' | 'sha256';
  /** `<inode>:<size>:<mtime ms>` of `<git-dir>/config` when git answered. */
  readonly config: string;
  /** The revisions asked for and what git resolved them to, in order; the first is a ref. */
  readonly revisions: ReadonlyArray<readonly [string, string]>;
}

/** Whether this process and environment may use the remembered answer at all. */
function eligible(env: Readonly<Record<string, string>>): boolean {
  return process.platform !== 'win32' && typeof process.geteuid === 'function' && !DISCOVERY_VARIABLES.some((name) => name in env);
}

/**
 * The top of the work tree whose `.git` directory git would find from `cwd`, or undefined when git's
 * answer could be anything else (a `.git` file, a directory that is itself a git directory, a
 * filesystem boundary on the way).
 */
function plainWorkTree(cwd: string): string | undefined {
  let dir = realpathSync(cwd);
  const device = statSync(dir).dev;
  for (;;) {
    const dotGit = lstatOrUndefined(path.join(dir, '.git'));
    if (dotGit) return dotGit.isDirectory() ? dir : undefined;
    // Inside a git directory (or a bare repository) git answers differently: ask it.
    if (lstatOrUndefined(path.join(dir, 'HEAD')) && lstatOrUndefined(path.join(dir, 'objects'))) return undefined;
    const parent = path.dirname(dir);
    if (parent === dir || statSync(parent).dev !== device) return undefined;
    dir = parent;
  }
}

function configStamp(gitDir: string): string | undefined {
  return fileStamp(path.join(gitDir, 'config'));
}

/** A ref's object id as git stores it, loose file first, then packed-refs; undefined for anything else. */
function readRef(gitDir: string, ref: string, objectFormat: 'sha1' | 'sha256'): string | undefined {
  return readRefFile(gitDir, ref, objectFormat) ?? undefined;
}

function parseRemembered(text: string): Remembered | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = value as Partial<Remembered> | null;
  if (typeof r !== 'object' || r === null || r.version !== VERSION) return undefined;
  if (typeof r.workTree !== 'string' || typeof r.config !== 'string') return undefined;
  if (r.objectFormat !== 'sha1' && r.objectFormat !== 'sha256') return undefined;
  const oid = r.objectFormat === 'sha256' ? /^[0-9a-f]{64}$/ : /^[0-9a-f]{40}$/;
  if (!Array.isArray(r.revisions) || r.revisions.length === 0) return undefined;
  for (const pair of r.revisions as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string' || !oid.test(pair[1]))
      return undefined;
  }
  return r as Remembered;
}

/**
 * The location git would report from `cwd`, with `revisions` resolved, when the remembered answer
 * still holds (see above); undefined means: ask git.
 */
export function rememberedLocation(
  cwd: string,
  env: Readonly<Record<string, string>>,
  revisions: readonly string[],
): RepositoryLocation | undefined {
  try {
    if (!eligible(env) || revisions.length === 0) return undefined;
    const workTree = plainWorkTree(cwd);
    if (workTree === undefined) return undefined;
    const gitDir = path.join(workTree, '.git');
    const uid = process.geteuid!();
    if (statSync(gitDir).uid !== uid || statSync(workTree).uid !== uid) return undefined;
    // A linked worktree's git directory names its common one; replace refs change what a commit's tree is.
    if (lstatOrUndefined(path.join(gitDir, 'commondir')) || lstatOrUndefined(path.join(gitDir, 'refs', 'replace'))) return undefined;
    const text = readRegularFile(path.join(gitDir, 'brv', FILE), MAX_BYTES);
    const remembered = text === undefined ? undefined : parseRemembered(text);
    if (!remembered || remembered.workTree !== workTree || remembered.config !== configStamp(gitDir)) return undefined;
    if (remembered.revisions.length !== revisions.length || remembered.revisions.some(([rev], i) => rev !== revisions[i])) return undefined;
    const [ref, commit] = remembered.revisions[0]!;
    if (readRef(gitDir, ref, remembered.objectFormat) !== commit) return undefined;
    return {
      gitDir,
      commonDir: gitDir,
      bare: false,
      workTree,
      objectFormat: remembered.objectFormat,
      revisions: new Map(remembered.revisions),
    };
  } catch {
    return undefined;
  }
}

/**
 * Remembers what git answered from `cwd`, when it is the plain case `rememberedLocation` can check
 * next time and every revision resolved. Never fails: without it the next command asks git again.
 */
export function rememberLocation(
  cwd: string,
  env: Readonly<Record<string, string>>,
  revisions: readonly string[],
  location: RepositoryLocation,
): void {
  try {
    if (!eligible(env) || revisions.length === 0 || location.bare || location.workTree === undefined) return;
    if (plainWorkTree(cwd) !== location.workTree) return;
    const gitDir = path.join(location.workTree, '.git');
    if (location.gitDir !== gitDir || location.commonDir !== gitDir) return;
    const resolved = revisions.map((rev) => [rev, location.revisions.get(rev)] as const);
    if (resolved.some(([, oid]) => oid === undefined)) return;
    // Only what the next command can check the same way: the ref read from its files is git's answer.
    if (readRef(gitDir, revisions[0]!, location.objectFormat) !== resolved[0]![1]) return;
    const config = configStamp(gitDir);
    if (config === undefined) return;
    writeRemembered(gitDir, {
      version: VERSION,
      workTree: location.workTree,
      objectFormat: location.objectFormat,
      config,
      revisions: resolved as Array<readonly [string, string]>,
    });
  } catch {
    // an optimisation: the next command asks git
  }
}

/**
 * After brv itself moved `ref` from `from` to `to.commit`, whose tree `to.tree` is `from`'s tree
 * edited at `changed` paths only: remembers what git would now answer, so that the command after a
 * write starts no git process either. Only an answer remembered for `from` is advanced, and only
 * when every revision can be told without git: the ref, `<ref>^{tree}`, and `<ref>:<path>` where no
 * changed path is, holds or lies inside `<path>` (its object is `from`'s). Otherwise the file is left
 * as it is and the next command asks git. Everything else is checked by the next command as before
 * (the ref's value against its file, the config, the layout). Never fails.
 */
export function advanceRememberedTip(
  gitDir: string,
  ref: string,
  from: string,
  to: { commit: string; tree: string },
  changed: readonly string[],
): void {
  try {
    const text = readRegularFile(path.join(gitDir, 'brv', FILE), MAX_BYTES);
    const remembered = text === undefined ? undefined : parseRemembered(text);
    if (!remembered || path.join(remembered.workTree, '.git') !== gitDir) return;
    const [first, firstOid] = remembered.revisions[0]!;
    if (first !== ref || firstOid !== from) return;
    const oid = remembered.objectFormat === 'sha256' ? /^[0-9a-f]{64}$/ : /^[0-9a-f]{40}$/;
    if (!oid.test(to.commit) || !oid.test(to.tree)) return;
    const touches = (inside: string) => changed.some((c) => c === inside || c.startsWith(`${inside}/`) || inside.startsWith(`${c}/`));
    const revisions: Array<readonly [string, string]> = [];
    for (const [rev, value] of remembered.revisions) {
      if (rev === ref) revisions.push([rev, to.commit]);
      else if (rev === `${ref}^{tree}`) revisions.push([rev, to.tree]);
      else if (rev.startsWith(`${ref}:`) && rev.length > ref.length + 1 && !touches(rev.slice(ref.length + 1)))
        revisions.push([rev, value]);
      else return;
    }
    // The ref must hold the new commit now (nobody moved it since): what the next command checks too.
    if (readRef(gitDir, ref, remembered.objectFormat) !== to.commit) return;
    writeRemembered(gitDir, { ...remembered, revisions });
  } catch {
    // an optimisation: the next command asks git
  }
}

/** Writes the remembered answer whole (a temporary file renamed over the old one), or not at all. */
function writeRemembered(gitDir: string, remembered: Remembered): void {
  const dir = path.join(gitDir, 'brv');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, FILE);
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(remembered)}\n`, { flag: 'wx' });
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}
