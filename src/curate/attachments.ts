import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ErrorKind } from '../base/error-kinds.js';
import type { PromptAttachment } from './prompts.js';
import { readInputFile } from './response-file.js';

/** As ByteRover's legacy curate: at most five files, 40,000 characters each. */
const MAX_ATTACHED_FILES = 5;
const MAX_ATTACHED_CHARS = 40_000;

/** An `@path` mention that was not attached, and why (the front end tells the person). */
export interface SkippedMention {
  mention: string;
  reason: string;
}

export interface AttachmentRequest {
  /** Files the person named (`-f`): absolute, their choice, still capped in size and refused when binary. */
  files: readonly string[];
  /** The intent, whose `@path` mentions of existing files inside the work tree are attached. */
  intent: string;
  /** The top of the work tree (undefined in a bare repository: mentions attach nothing). */
  workTree: string | undefined;
  /** git's directories: never attached, even when inside the work tree. */
  gitDirs: readonly string[];
}

export type Attachments =
  { ok: true; attachments: PromptAttachment[]; skipped: SkippedMention[] } | { ok: false; kind: ErrorKind; message: string };

/**
 * `@path` words of a text: `@` at the start or after a space or an opening bracket or quote (so an
 * e-mail address is not one), up to the next space; trailing punctuation is not part of the path.
 */
export function mentionsOf(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|[\s([{"'`])@([^\s"'`<>()[\]{}]+)/g)) {
    const mention = match[1]!.replace(/[.,;:!?]+$/, '');
    if (mention.length > 0 && !found.includes(mention)) found.push(mention);
  }
  return found;
}

const SECRET_NAMES = [
  /^\.env(\..*)?$/i,
  /^\.envrc$/i,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|gpg|asc|kdbx)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)/i,
  /credential/i,
  /secret/i,
  /^\.(netrc|npmrc|pypirc|pgpass|htpasswd|git-credentials|dockercfg)$/i,
];
const SECRET_FOLDERS = /^\.(ssh|gnupg|aws|docker|kube|azure|gcloud)$/i;

/** A path whose name or folders look like they hold a secret (keys, .env files, credentials). */
export function looksSecret(file: string): boolean {
  const parts = file.split(/[\\/]+/).filter(Boolean);
  const name = parts.at(-1) ?? '';
  return SECRET_NAMES.some((re) => re.test(name)) || parts.slice(0, -1).some((p) => SECRET_FOLDERS.test(p));
}

/**
 * The files to put in a self-driven curate's prompt. `@` mentions come from text an agent may have
 * been injected with, so they are resolved only inside the work tree (no `..`, no absolute or `~`
 * path, no symbolic link out of it, never git's directories) and never attach a file that looks
 * like a secret; what is not attached is listed in `skipped` (a word naming no file is not).
 */
export async function collectAttachments(request: AttachmentRequest): Promise<Attachments> {
  const chosen: Array<{ real: string; shown: string }> = [];
  const skipped: SkippedMention[] = [];
  const root = request.workTree ? await realpath(request.workTree).catch(() => undefined) : undefined;
  const gitDirs = await Promise.all(request.gitDirs.map((d) => realpath(d).catch(() => path.resolve(d))));
  const shownPath = (real: string) => {
    const relative = root ? path.relative(root, real) : '';
    return root && relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : real;
  };

  for (const file of request.files) {
    let real: string;
    try {
      real = await realpath(file);
    } catch (error) {
      return {
        ok: false,
        kind: 'attached-file-read-error',
        message: `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}. Check the path given to -f.`,
      };
    }
    if (!chosen.some((c) => c.real === real)) chosen.push({ real, shown: shownPath(real) });
  }

  for (const mention of mentionsOf(request.intent)) {
    const skip = (reason: string) => skipped.push({ mention, reason });
    if (!root) {
      skip('there is no work tree to attach files from');
      continue;
    }
    if (mention.startsWith('~') || path.isAbsolute(mention) || /^[a-z]:/i.test(mention) || mention.split(/[\\/]+/).includes('..')) {
      skip('only files inside the work tree are attached');
      continue;
    }
    if (looksSecret(mention)) {
      skip('it looks like a secret (keys, .env files, credentials are never sent to a model)');
      continue;
    }
    const candidate = path.resolve(root, mention);
    try {
      await lstat(candidate);
    } catch {
      continue; // not a file: an ordinary @word
    }
    let real: string;
    try {
      real = await realpath(candidate);
    } catch {
      skip('it cannot be resolved');
      continue;
    }
    const relative = path.relative(root, real);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      skip('it leads outside the work tree');
      continue;
    }
    const insideGit =
      relative.split(path.sep).includes('.git') ||
      gitDirs.some((dir) => {
        const r = path.relative(dir, real);
        return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
      });
    if (insideGit) {
      skip("git's own files are never attached");
      continue;
    }
    if (looksSecret(relative)) {
      skip('it looks like a secret (keys, .env files, credentials are never sent to a model)');
      continue;
    }
    if (!(await stat(real).catch(() => undefined))?.isFile()) {
      skip('it is not a regular file');
      continue;
    }
    if (!chosen.some((c) => c.real === real)) chosen.push({ real, shown: relative.split(path.sep).join('/') });
  }

  if (chosen.length > MAX_ATTACHED_FILES) {
    return {
      ok: false,
      kind: 'too-many-files',
      message: `${chosen.length} files are attached; a curate takes at most ${MAX_ATTACHED_FILES}. Attach the most relevant ones, or curate in several steps.`,
    };
  }
  const attachments: PromptAttachment[] = [];
  for (const { real, shown } of chosen) {
    // UTF-8 takes at most 4 bytes a character: anything larger is over the cap whatever it holds.
    const read = await readInputFile(real, MAX_ATTACHED_CHARS * 4, 'attached-file');
    if (!read.ok) {
      const message =
        read.kind === 'too-large'
          ? `${shown} is larger than ${MAX_ATTACHED_CHARS.toLocaleString('en-US')} characters, the limit for an attached file. Attach an excerpt.`
          : read.kind === 'invalid-encoding'
            ? `${shown} is not UTF-8 text (a binary file?); only text files can be attached.`
            : read.message;
      return { ok: false, kind: read.kind, message };
    }
    if (read.text.includes('\u0000')) {
      return {
        ok: false,
        kind: 'invalid-encoding',
        message: `${shown} holds NUL bytes (a binary file?); only text files can be attached.`,
      };
    }
    if ([...read.text].length > MAX_ATTACHED_CHARS) {
      return {
        ok: false,
        kind: 'too-large',
        message: `${shown} is larger than ${MAX_ATTACHED_CHARS.toLocaleString('en-US')} characters, the limit for an attached file. Attach an excerpt.`,
      };
    }
    attachments.push({ path: shown, text: read.text });
  }
  return { ok: true, attachments, skipped };
}
