// `brv tui` (and `brv` alone on a terminal): opens the repository, then renders the REPL with ink on
// the terminal's alternate screen until /exit, Ctrl-D or Ctrl-C twice. This module and what it imports
// (ink, React) are loaded by this command only.
import { render } from 'ink';
import { createElement } from 'react';
import * as yoga from 'yoga-layout';
import { BrvError, isBrvError } from '../base/errors.js';
import type { Actor } from '../service/host.js';
import type { Subscription } from '../service/repository-pool.js';
import type { BrvService } from '../service/service.js';
import { App, type RefChange } from './app.js';
import { CrashBoundary } from './boundary.js';
import { historyFile, InputHistory, loadHistory, saveHistoryLine } from './input-history.js';
import { mark } from '../base/trace.js';

export interface TuiOptions {
  service: BrvService;
  /** The directory started in: its repository is the one shown. */
  cwd: string;
  actor: Actor;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** NO_COLOR: layout and emphasis only, no colours. */
  noColor: boolean;
  /** The editor `/edit` runs ($VISUAL, $EDITOR, vi: the front end's choice). */
  editor: string;
  /** An absolute folder for the files being edited. */
  tempRoot: string;
}

const ALTERNATE_SCREEN = '\x1b[?1049h';
const MAIN_SCREEN = '\x1b[?1049l';
const SHOW_CURSOR = '\x1b[?25h';
const CLEAR_SCREEN = '\x1b[2J\x1b[H';

export async function runTui(options: TuiOptions): Promise<void> {
  // The build's yoga-layout loads its WebAssembly without a top-level await: wait for it (scripts/shims).
  await (yoga as { ready?: Promise<unknown> }).ready;
  const pool = options.service.pool(options.cwd, { serverName: 'brv tui' });
  const brv = () => pool.resolve(undefined);
  let subscription: Subscription | undefined;
  try {
    const opened = await brv().catch((error: unknown) => {
      if (isBrvError(error) && error.kind === 'cwd-required') {
        throw new BrvError(
          'not-a-git-repository',
          `${options.cwd} is not inside a git repository: brv's terminal opens the repository it is started in (cd into one; brv --help lists the commands).`,
        );
      }
      throw error;
    });
    const file = historyFile(opened.repository.commonDir);
    const history = new InputHistory(await loadHistory(file));
    const listeners = new Set<(change: RefChange) => void>();
    const subscribe = (listener: (change: RefChange) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    };
    options.stdout.write(ALTERNATE_SCREEN);
    let painted = false;
    try {
      let crash: { error: unknown } | undefined;
      const app = render(
        createElement(
          CrashBoundary,
          {
            onCrash: (error: unknown) => {
              crash = { error };
              setImmediate(() => app.unmount());
            },
          },
          createElement(App, {
            context: { service: options.service, brv, actor: options.actor, cwd: options.cwd },
            history,
            saveHistory: (line: string) => void saveHistoryLine(file, line, history).catch(() => {}),
            subscribe,
            noColor: options.noColor,
            editTopic: async (path: string) => {
              // The editor gets the terminal as the shell had it; the REPL's screen comes back after. ink has
              // let go of raw mode and its listener; stdin is paused too, so that no key is read here meanwhile.
              options.stdin.pause();
              options.stdout.write(`${MAIN_SCREEN}${SHOW_CURSOR}`);
              try {
                return await (
                  await brv()
                ).knowledge.editInEditor({ path, editor: options.editor, tempRoot: options.tempRoot }, options.actor);
              } finally {
                options.stdout.write(`${ALTERNATE_SCREEN}${CLEAR_SCREEN}`);
                app.clear();
              }
            },
          }),
        ),
        {
          stdin: options.stdin,
          stdout: options.stdout,
          exitOnCtrlC: false,
          patchConsole: false,
          onRender: () => {
            if (!painted) mark('tui: first paint');
            painted = true;
          },
        },
      );
      // Watching starts after the first paint: it must not hold the prompt back.
      setImmediate(() => {
        pool
          .watch((move) => {
            for (const listener of listeners) listener(move);
          })
          .then((s) => (subscription = s))
          .catch(() => {});
      });
      await app.waitUntilExit();
      if (crash) throw crash.error;
    } finally {
      options.stdout.write(`${MAIN_SCREEN}${SHOW_CURSOR}`);
    }
  } finally {
    subscription?.unsubscribe();
    await pool.close();
  }
}
