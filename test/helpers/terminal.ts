import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { CLI, ENV } from './repo.js';

/**
 * Whether the pseudo-terminal tests run here: always in CI (a missing tmux is a failure there, not a
 * skip; `.ci/run` installs the Debian package), elsewhere when tmux is installed.
 */
export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI) throw new Error('CI must have tmux for the terminal tests: .ci/run installs the Debian package "tmux".');
    return false;
  }
}

export interface Terminal {
  /** Keys as tmux names them (`Enter`, `Escape`, `Down`, `C-c`) or literal text (`literal: true`). */
  send(keys: string[], options?: { literal?: boolean }): Promise<void>;
  /** The screen as text (with `escapes`: with its colour codes). */
  screen(options?: { escapes?: boolean }): Promise<string>;
  /** Waits until the screen shows `pattern`; fails with the screen. */
  see(pattern: RegExp, timeout?: number): Promise<string>;
  /**
   * Waits until the screen no longer shows `pattern`. Wait for this after Escape before sending more
   * keys: an ESC that reaches the program in one read with the next key is that key with Alt held.
   */
  gone(pattern: RegExp, timeout?: number): Promise<string>;
  resize(columns: number, rows: number): Promise<void>;
  /** Whether the program in it has ended. */
  ended(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * `brv` (with `args`) in a real pseudo-terminal: a tmux session of its own (its own socket in a temp
 * folder, so nothing is left in TMPDIR), `columns` × `rows`, in `cwd`, with the tests' environment.
 */
export async function openTerminal(
  cwd: string,
  options: { args?: string[]; env?: Record<string, string>; columns?: number; rows?: number } = {},
): Promise<Terminal> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'brv-tmux-'));
  const socket = path.join(dir, 'socket');
  const tmux = (...args: string[]) => execa('tmux', ['-S', socket, ...args], { env: { ...ENV, TMUX_TMPDIR: dir }, extendEnv: false });
  const env = { ...ENV, TERM: 'xterm-256color', ...options.env };
  const command = ['node', CLI, ...(options.args ?? [])].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
  await tmux(
    'new-session',
    '-d',
    '-s',
    'brv',
    '-x',
    String(options.columns ?? 100),
    '-y',
    String(options.rows ?? 30),
    '-c',
    cwd,
    ...Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
    // Kept open once brv ends, so that its last screen (and its exit) can be read.
    `${command}; echo "[exit $?]"; sleep 600`,
  );
  await tmux('set-option', '-t', 'brv', 'remain-on-exit', 'on');
  const screen = async (o: { escapes?: boolean } = {}) =>
    (await tmux('capture-pane', '-p', ...(o.escapes ? ['-e'] : []), '-t', 'brv')).stdout;
  return {
    async send(keys, o = {}) {
      await tmux('send-keys', '-t', 'brv', ...(o.literal ? ['-l'] : []), ...keys);
      await new Promise((resolve) => setTimeout(resolve, 60));
    },
    screen,
    see: (pattern, timeout) => waitFor(screen, (shown) => pattern.test(shown), `never saw ${pattern}`, timeout),
    gone: (pattern, timeout) => waitFor(screen, (shown) => !pattern.test(shown), `${pattern} stayed`, timeout),
    async resize(columns, rows) {
      await tmux('resize-window', '-t', 'brv', '-x', String(columns), '-y', String(rows));
    },
    async ended() {
      return /\[exit \d+\]/.test(await screen());
    },
    async close() {
      await tmux('kill-server').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitFor(
  screen: () => Promise<string>,
  done: (shown: string) => boolean,
  failure: string,
  timeout = 20_000,
): Promise<string> {
  const start = Date.now();
  for (;;) {
    const shown = await screen();
    if (done(shown)) return shown;
    if (Date.now() - start > timeout) throw new Error(`${failure}; the screen:\n${shown}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
