// The dashboard's session secret, kept per repository so that a restarted `brv webui` still accepts the tabs it
// served: their cookie holds the secret, and a new one on every start left each open tab "reconnecting" forever.
import { constants } from 'node:fs';
import { mkdir, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { newSecret } from './security.js';

/** `newSecret()`'s shape: 32 bytes, base64url. Anything else in the file is not ours and is replaced. */
const SECRET_TEXT = /^[A-Za-z0-9_-]{43}$/;

/** Where the secret lives: the repository's local state (shared by its worktrees), never committed. */
function secretFile(commonDir: string): string {
  return path.join(commonDir, 'brv', 'webui-secret');
}

/**
 * The secret in `file` when it is one brv wrote for this user alone: a regular file (a symbolic link is not
 * followed), owned by this user, readable by nobody else (0600), holding one secret. Undefined otherwise.
 */
async function readOwnSecret(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > 256) return undefined;
    if (process.platform !== 'win32' && ((info.mode & 0o077) !== 0 || info.uid !== process.getuid?.())) return undefined;
    const text = (await handle.readFile('utf8')).trim();
    return SECRET_TEXT.test(text) ? text : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * The repository's dashboard secret: the one kept in `<common dir>/brv/webui-secret`, or a new one written there
 * (mode 0600, created exclusively: never through a planted file or link) when there is none, when it is not this
 * user's alone, or when `renew` asks for a new one (`brv webui --new-token`: every browser must log in again).
 * What it protects is unchanged: other local users cannot read it, loopback, Host and Origin are checked as before,
 * and the token still only ever travels in the URL printed on the terminal.
 */
export async function repositorySecret(commonDir: string, options: { renew?: boolean } = {}): Promise<string> {
  const file = secretFile(commonDir);
  for (let attempt = 0; ; attempt++) {
    if (!options.renew || attempt > 0) {
      const kept = await readOwnSecret(file);
      if (kept !== undefined) return kept;
    }
    // What stands there is not ours (or is being renewed). Else a server starting at the same moment may have
    // just written it: creating exclusively finds it (EEXIST), and the next turn reads it.
    if (options.renew || attempt > 0) await unlink(file).catch(() => {});
    await mkdir(path.dirname(file), { recursive: true });
    const secret = newSecret();
    try {
      const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        await handle.writeFile(`${secret}\n`);
      } finally {
        await handle.close();
      }
      return secret;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw error;
    }
  }
}
