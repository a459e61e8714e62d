import { constants } from 'node:fs';
import { lstat, open, unlink } from 'node:fs/promises';
import type { ErrorKind } from '../base/error-kinds.js';
import { MAX_RESPONSE_BYTES } from './envelope.js';

export type FileRead = { ok: true; text: string } | { ok: false; kind: ErrorKind; message: string };

/** Which file is read: names the `<prefix>-read-error` and `<prefix>-not-regular` kinds of its failures. */
export type InputFileKind = 'response-file' | 'html-file' | 'topic-file' | 'attached-file';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a response or HTML file the way an agent's tool call should be read: a regular file only
 * (never a symlink, directory or device), bounded in size, valid UTF-8.
 */
export async function readInputFile(
  file: string,
  maxBytes = MAX_RESPONSE_BYTES,
  kindPrefix: InputFileKind = 'response-file',
): Promise<FileRead> {
  let info;
  try {
    info = await lstat(file);
  } catch (error) {
    return {
      ok: false,
      kind: `${kindPrefix}-read-error`,
      message: `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
    };
  }
  if (!info.isFile()) {
    const what = info.isSymbolicLink() ? 'a symbolic link' : info.isDirectory() ? 'a directory' : 'not a regular file';
    return { ok: false, kind: `${kindPrefix}-not-regular`, message: `${file} is ${what}; pass a regular file.` };
  }
  if (info.size > maxBytes) {
    return {
      ok: false,
      kind: 'too-large',
      message: `${file} is ${info.size} bytes; the limit is ${maxBytes} bytes. Split the knowledge into several topics.`,
    };
  }
  let bytes: Buffer;
  try {
    // Swapped after the lstat? A link is not followed and a FIFO never blocks; then re-check that we read what we stat'ed.
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const opened = await handle.stat();
      if (!opened.isFile() || opened.ino !== info.ino)
        return { ok: false, kind: `${kindPrefix}-not-regular`, message: `${file} changed while it was being read.` };
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    return {
      ok: false,
      kind: `${kindPrefix}-read-error`,
      message: `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
    };
  }
  return decodeInput(bytes, file, maxBytes);
}

/** Input already read (a file's bytes, or standard input): bounded in size, valid UTF-8. */
export function decodeInput(bytes: Uint8Array, name: string, maxBytes = MAX_RESPONSE_BYTES): FileRead {
  if (bytes.length > maxBytes) return { ok: false, kind: 'too-large', message: `${name} is larger than ${maxBytes} bytes.` };
  try {
    return { ok: true, text: utf8.decode(bytes) };
  } catch {
    return { ok: false, kind: 'invalid-encoding', message: `${name} is not valid UTF-8. Save it as UTF-8 and try again.` };
  }
}

export async function deleteFile(file: string): Promise<string | undefined> {
  try {
    await unlink(file);
    return undefined;
  } catch (error) {
    return `Could not delete ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`;
  }
}
