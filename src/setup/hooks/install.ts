import { constants } from 'node:fs';
import { access, chmod, lstat, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { HookName } from './scripts.js';

// Install, uninstall and status over one hooks directory: plain file work, no git. Hook files are
// read and written as latin1 (one char per byte), so whatever bytes a user's hook holds are kept.

export const BLOCK_START = '# >>> brv hooks >>>';
export const BLOCK_END = '# <<< brv hooks <<<';
const NEW_HOOK_HEADER = '#!/bin/sh\n';
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'posh']);

export type HookState = 'installed' | 'not-installed' | 'outdated' | 'foreign';

export interface HookFileStatus {
  name: HookName;
  path: string;
  state: HookState;
  exists: boolean;
  /** git runs only executable hooks. */
  executable: boolean;
  /** The hook's interpreter as its shebang names it (`sh` when it has none); undefined when absent. */
  interpreter: string | undefined;
  symlink: boolean;
}

export type InstallAction = 'created' | 'added' | 'updated' | 'unchanged' | 'skipped';

export interface InstallChange {
  name: HookName;
  path: string;
  action: InstallAction;
  /** Why the hook was skipped. */
  reason?: string;
  /** For a hook brv does not edit: the command to call from it to chain brv. */
  chain?: string;
  /** Something the user should know about an installed hook (not executable, exits early…). */
  note?: string;
}

export type UninstallAction = 'removed' | 'deleted' | 'not-installed' | 'skipped';

export interface UninstallChange {
  name: HookName;
  path: string;
  action: UninstallAction;
  reason?: string;
}

/** The command a hook brv does not edit (python, node, a binary…) can run to chain brv's work. */
function chainCommand(name: HookName): string {
  return name === 'post-checkout' ? 'brv hooks run post-checkout <the three hook arguments>' : `brv hooks run ${name}`;
}

/** brv's marked block around a shipped body. */
export function renderBlock(body: string): string {
  return `${BLOCK_START}\n${body.endsWith('\n') ? body : `${body}\n`}${BLOCK_END}`;
}

interface BlockSpan {
  /** Offset of the start marker line. */
  start: number;
  /** Offset just after the end marker (before its newline); -1 when the block is not closed. */
  end: number;
  /** The text between the marker lines, newlines included. */
  body: string;
}

const START_LINE = /^# >>> brv hooks >>>[ \t\r]*$/m;
const END_LINE = /^# <<< brv hooks <<<[ \t\r]*$/gm;

export function findBlock(content: string): BlockSpan | undefined {
  const start = START_LINE.exec(content);
  if (!start) return undefined;
  const bodyStart = Math.min(content.length, start.index + start[0].length + 1);
  END_LINE.lastIndex = bodyStart;
  const end = END_LINE.exec(content);
  if (!end) return { start: start.index, end: -1, body: content.slice(bodyStart) };
  return { start: start.index, end: end.index + end[0].length, body: content.slice(bodyStart, end.index) };
}

/**
 * Puts `block` into a shell hook: in place of an existing brv block, else at the end, where a final
 * `exit 0` would skip it, just before that line. The block is always followed by a newline, except
 * when appended to content that had no final newline: then a newline goes before it instead, so
 * `removeBlock` gives back exactly the original bytes.
 */
export function insertBlock(content: string, block: string): string {
  if (content === '') return `${NEW_HOOK_HEADER}${block}\n`;
  const existing = findBlock(content);
  if (existing && existing.end >= 0) return content.slice(0, existing.start) + block + content.slice(existing.end);
  const lastLineStart = content.lastIndexOf('\n', content.endsWith('\n') ? content.length - 2 : content.length - 1) + 1;
  const lastLine = content.slice(lastLineStart);
  if (/^exit[ \t]+0[ \t\r]*\n?$/.test(lastLine)) return `${content.slice(0, lastLineStart)}${block}\n${lastLine}`;
  return content.endsWith('\n') ? `${content}${block}\n` : `${content}\n${block}`;
}

/** Removes every closed brv block (the inverse of `insertBlock`). */
export function removeBlock(content: string): string {
  let result = content;
  for (let span = findBlock(result); span && span.end >= 0; span = findBlock(result)) {
    const before = result.slice(0, span.start);
    const after = result.slice(span.end);
    if (after.startsWith('\n')) result = before + after.slice(1);
    else if (after === '') result = before.endsWith('\n') ? before.slice(0, -1) : before;
    else result = before + after;
  }
  return result;
}

/** The interpreter a hook runs with: the shebang's program (through `env`), `sh` without one. */
export function hookInterpreter(content: string): string {
  if (content.slice(0, 8192).includes('\0')) return 'binary';
  if (!content.startsWith('#!')) return 'sh'; // git runs a hook without a shebang with /bin/sh
  const newline = content.indexOf('\n');
  const words = content
    .slice(2, newline < 0 ? undefined : newline)
    .trim()
    .split(/[ \t]+/);
  let program = path.posix.basename(words[0] ?? '');
  if (program === 'env') program = path.posix.basename(words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) ?? '');
  return program.replace(/\r$/, '') || 'unknown';
}

function isShellInterpreter(interpreter: string): boolean {
  return SHELLS.has(interpreter);
}

interface HookFile {
  file: string;
  exists: boolean;
  symlink: boolean;
  regular: boolean;
  executable: boolean;
  content: string;
}

async function readHookFile(dir: string, name: HookName): Promise<HookFile> {
  const file = path.join(dir, name);
  let stats;
  try {
    stats = await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { file, exists: false, symlink: false, regular: false, executable: false, content: '' };
    throw error;
  }
  const symlink = stats.isSymbolicLink();
  let content = '';
  let regular = stats.isFile();
  try {
    if (symlink) regular = (await stat(file)).isFile();
    if (regular) content = await readFile(file, 'latin1');
  } catch {
    regular = false; // a dangling link or an unreadable file: never edited
  }
  const executable = await access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
  return { file, exists: true, symlink, regular, executable, content };
}

/** Whether a hook calls `brv hooks run <name>` itself (as a shell line or an argument list). */
function chainsBrv(content: string, name: HookName): boolean {
  return new RegExp(`\\bbrv\\W{1,6}hooks\\W{1,6}run\\W{1,6}${name}\\b`).test(content);
}

export async function hookStatus(dir: string, name: HookName, body: string): Promise<HookFileStatus> {
  const hook = await readHookFile(dir, name);
  const base = { name, path: hook.file, exists: hook.exists, executable: hook.executable, symlink: hook.symlink };
  if (!hook.exists) return { ...base, state: 'not-installed', interpreter: undefined };
  const interpreter = hook.regular ? hookInterpreter(hook.content) : 'unknown';
  if (!isShellInterpreter(interpreter)) return { ...base, interpreter, state: chainsBrv(hook.content, name) ? 'installed' : 'foreign' };
  const span = findBlock(hook.content);
  if (!span) return { ...base, interpreter, state: 'not-installed' };
  return { ...base, interpreter, state: span.end >= 0 && span.body === withNewline(body) ? 'installed' : 'outdated' };
}

export async function installHook(dir: string, name: HookName, body: string): Promise<InstallChange> {
  const hook = await readHookFile(dir, name);
  const block = renderBlock(body);
  const skipped = (reason: string): InstallChange => ({ name, path: hook.file, action: 'skipped', reason, chain: chainCommand(name) });
  if (!hook.exists) {
    await mkdir(dir, { recursive: true });
    await writeFile(hook.file, `${NEW_HOOK_HEADER}${block}\n`, 'latin1');
    await chmod(hook.file, 0o755);
    return { name, path: hook.file, action: 'created' };
  }
  if (hook.symlink) return skipped('it is a symbolic link; brv does not edit the file it points to');
  if (!hook.regular) return skipped('it is not a regular file');
  const interpreter = hookInterpreter(hook.content);
  if (!isShellInterpreter(interpreter)) {
    if (chainsBrv(hook.content, name)) return { name, path: hook.file, action: 'unchanged', note: 'it already runs brv hooks run' };
    return skipped(`it is not a shell script (${interpreter}); brv does not edit it`);
  }
  const span = findBlock(hook.content);
  if (span && span.end < 0) return skipped(`its brv block has no "${BLOCK_END}" line; fix or remove the block by hand`);
  const unchanged = span !== undefined && span.body === withNewline(body);
  const updated = unchanged ? hook.content : insertBlock(hook.content, block);
  if (!unchanged) await writeFile(hook.file, updated, 'latin1'); // in place: the file keeps its mode and owner
  const note = hook.executable ? earlyExitNote(updated) : `it is not executable, so git ignores it; run chmod +x ${hook.file}`;
  return { name, path: hook.file, action: unchanged ? 'unchanged' : span ? 'updated' : 'added', ...(note ? { note } : {}) };
}

export async function uninstallHook(dir: string, name: HookName): Promise<UninstallChange> {
  const hook = await readHookFile(dir, name);
  const result = (action: UninstallAction, reason?: string): UninstallChange => ({
    name,
    path: hook.file,
    action,
    ...(reason ? { reason } : {}),
  });
  if (!hook.exists || !hook.regular) return result('not-installed');
  const interpreter = hookInterpreter(hook.content);
  if (!isShellInterpreter(interpreter)) {
    return chainsBrv(hook.content, name)
      ? result('skipped', `it is not a shell script (${interpreter}); remove its "brv hooks run ${name}" call by hand`)
      : result('not-installed');
  }
  const span = findBlock(hook.content);
  if (!span) return result('not-installed');
  if (hook.symlink) return result('skipped', 'it is a symbolic link; brv does not edit the file it points to');
  if (span.end < 0) return result('skipped', `its brv block has no "${BLOCK_END}" line; remove the block by hand`);
  const remaining = removeBlock(hook.content);
  if (/^(#![^\n]*)?\s*$/.test(remaining)) {
    await rm(hook.file, { force: true });
    return result('deleted');
  }
  await writeFile(hook.file, remaining, 'latin1');
  return result('removed');
}

/** A top-level `exit` before brv's block (other than the final `exit 0` it goes before) would skip it. */
function earlyExitNote(content: string): string | undefined {
  const before = content.slice(0, findBlock(content)?.start ?? content.length);
  return /^exit\b/m.test(before) ? 'it has a top-level "exit" before brv\'s block, which may stop the block from running' : undefined;
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Whether `program` is an executable file in one of PATH's directories (what `command -v` checks). */
export async function onPath(program: string, pathVariable: string | undefined): Promise<boolean> {
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const ok = await access(path.join(dir, program), constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return true;
  }
  return false;
}
