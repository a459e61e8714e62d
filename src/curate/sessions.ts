import { randomUUID } from 'node:crypto';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { readLocalFile, writeLocalFile } from '../store/local-file.js';
import type { PromptAttachment } from './prompts.js';

export type SessionStep = 'awaiting-generate' | 'awaiting-correct';

/** One curate conversation with an agent: kickoff, then up to four responses. */
export interface CurateSession {
  id: string;
  attempts: number;
  createdAt: number;
  step: SessionStep;
  userIntent: string;
  lastResponse: string;
  /** Files attached to a self-driven curate: quoted again in its correction prompts. */
  attachments?: PromptAttachment[];
}

export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** A session holds the intent and the last response (each bounded well below this). */
const MAX_SESSION_BYTES = 16 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isSessionId(id: string): boolean {
  return UUID.test(id);
}

function isSession(value: unknown): value is CurateSession {
  const s = value as CurateSession;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.id === 'string' &&
    isSessionId(s.id) &&
    Number.isInteger(s.attempts) &&
    s.attempts >= 0 &&
    typeof s.createdAt === 'number' &&
    (s.step === 'awaiting-generate' || s.step === 'awaiting-correct') &&
    typeof s.userIntent === 'string' &&
    typeof s.lastResponse === 'string' &&
    (s.attachments === undefined ||
      (Array.isArray(s.attachments) && s.attachments.every((a) => typeof a?.path === 'string' && typeof a.text === 'string')))
  );
}

/**
 * Sessions are small JSON files under `<git-common-dir>/brv/sessions/`, so any process (and any
 * worktree) can continue a session another one started. Writes are atomic (temp file + rename).
 */
export class SessionStore {
  constructor(
    private readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {}

  async create(userIntent: string, attachments?: PromptAttachment[]): Promise<CurateSession> {
    const session: CurateSession = {
      id: randomUUID(),
      attempts: 0,
      createdAt: this.now(),
      step: 'awaiting-generate',
      userIntent,
      lastResponse: '',
      ...(attachments && attachments.length > 0 ? { attachments } : {}),
    };
    await this.save(session);
    return session;
  }

  /**
   * The session, or undefined when the id is malformed, unknown, expired or damaged (not a regular
   * file, truncated, not a session: removed, the conversation cannot go on, a new `brv curate` starts afresh).
   */
  async load(id: string): Promise<CurateSession | undefined> {
    if (!isSessionId(id)) return undefined;
    const file = this.file(id);
    let parsed: unknown;
    try {
      const bytes = await readLocalFile(file, MAX_SESSION_BYTES);
      if (bytes === undefined) return undefined;
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      await this.discard(file);
      return undefined;
    }
    if (!isSession(parsed) || parsed.id.toLowerCase() !== id.toLowerCase()) {
      await this.discard(file);
      return undefined;
    }
    if (this.now() - parsed.createdAt > SESSION_TTL_MS) {
      await this.remove(id);
      return undefined;
    }
    return parsed;
  }

  async save(session: CurateSession): Promise<void> {
    // Whatever damaged thing is in the way (a file for the sessions folder) held no live session.
    await writeLocalFile(this.file(session.id), JSON.stringify(session), { mode: 0o600, repair: path.dirname(this.dir) });
  }

  async remove(id: string): Promise<void> {
    if (isSessionId(id)) await this.discard(this.file(id));
  }

  /** Removes a session file, or whatever damaged thing stands in its place; never fails. */
  private async discard(file: string): Promise<void> {
    await rm(file, { force: true, recursive: true }).catch(() => {});
  }

  /** Deletes expired sessions and stray temp files; returns how many live sessions remain. */
  async prune(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    let live = 0;
    const cutoff = this.now() - SESSION_TTL_MS;
    for (const name of names) {
      const file = path.join(this.dir, name);
      const info = await lstat(file).catch(() => undefined);
      if (!info) continue;
      if (info.mtimeMs < cutoff) await this.discard(file);
      else if (name.endsWith('.json') && info.isFile()) live++;
    }
    return live;
  }

  private file(id: string): string {
    return path.join(this.dir, `${id.toLowerCase()}.json`);
  }
}
