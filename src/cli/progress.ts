import { terminalText, type OutputFormat } from './output.js';
import { cliIo, type CliOutput } from './io.js';

/**
 * Progress for people, on stderr: one line rewritten in place ("Exporting topics 120/4000 (3%)"), shown
 * only when stderr is a terminal, never with `--format json`, and only once the work has run for a
 * second (fast commands print nothing). Service requests take the returned `onProgress` as their
 * `onProgress?: (done: number, total?: number) => void` callback; the line is cleared when `done`
 * reaches `total`, and by `finish()`, which a command calls when the work ends (success or failure).
 *
 * `BRV_PROGRESS=always` shows it on a non-terminal stderr too, without the delay (tests, logs);
 * `BRV_PROGRESS=never` hides it.
 */
export interface Progress {
  /** Report `done` of `total` units (total unknown: just a count). Safe to call very often. */
  onProgress: (done: number, total?: number) => void;
  /** Clears the line if one was shown. Idempotent. */
  finish: () => void;
}

export interface ProgressOptions {
  format: OutputFormat;
  /** Defaults to the run's stderr. */
  stream?: CliOutput;
  /** How long work runs before the line appears (default 1000 ms). */
  delayMs?: number;
  /** Defaults to the run's BRV_PROGRESS. */
  mode?: string;
}

/** Whether progress is shown at all: a terminal (or BRV_PROGRESS=always), never JSON, never with BRV_PROGRESS=never. */
function visibility(options: ProgressOptions): { stream: CliOutput; forced: boolean; shown: boolean } | undefined {
  const mode = options.mode ?? cliIo().env.BRV_PROGRESS;
  // Decided before process.stderr is touched: its first use creates the stream (a socket for a pipe).
  if (options.format === 'json' || mode === 'never') return undefined;
  const stream = options.stream ?? cliIo().stderr;
  const forced = mode === 'always';
  return { stream, forced, shown: forced || Boolean(stream.isTTY) };
}

const SILENT: Progress = { onProgress: () => {}, finish: () => {} };

export function startProgress(label: string, options: ProgressOptions): Progress {
  const seen = visibility(options);
  if (!seen?.shown) return SILENT;
  const { stream, forced } = seen;
  const delay = forced ? 0 : (options.delayMs ?? 1000);
  const started = Date.now();
  let lastDraw = 0;
  let shown = false;
  let finished = false;
  let last = '';
  const draw = (done: number, total?: number) => {
    const count = total ? `${done}/${total} (${Math.floor((done / Math.max(total, 1)) * 100)}%)` : `${done}`;
    const line = terminalText(`${label} ${count}`);
    if (line === last) return;
    last = line;
    // A terminal gets the line rewritten in place; anything else (forced) gets one line per update.
    if (stream.isTTY) stream.write(`\r\x1b[2K${line}`);
    else stream.write(`${line}\n`);
    shown = true;
  };
  return {
    onProgress(done, total) {
      if (finished) return;
      const now = Date.now();
      if (now - started < delay) return;
      // At most ~10 redraws a second, but always the last one.
      if (now - lastDraw < 100 && !(total !== undefined && done >= total)) return;
      lastDraw = now;
      draw(done, total);
      // All done: the line goes, so that what the command prints next starts clean.
      if (total !== undefined && done >= total) finish();
    },
    finish,
  };
  function finish() {
    if (finished) return;
    finished = true;
    if (shown && stream.isTTY) stream.write('\r\x1b[2K');
  }
}

/** Steps of longer work as `stepNotes` reports them, with progress inside a step. */
export interface StepProgress<S> {
  onStep: (step: S) => void;
  /** Clears the in-place line if one is shown. Idempotent. */
  finish: () => void;
}

/**
 * Named steps of longer work (a sync's fetch, merge, push), one line each on stderr, under the same
 * rules as `startProgress`: a terminal (or BRV_PROGRESS=always), never with `--format json`. A step
 * that `detail` describes (git's transfer within a step) is progress, not a new step: on a terminal
 * one line rewritten in place (~10 times a second at most); elsewhere the last report of each phase.
 */
export function stepNotes<S>(
  text: (step: S) => string,
  options: ProgressOptions,
  detail?: (step: S) => { phase: string; text: string } | undefined,
): StepProgress<S> {
  const seen = visibility(options);
  if (!seen?.shown) return { onStep: () => {}, finish: () => {} };
  const { stream } = seen;
  let inPlace = false;
  let lastPhase = '';
  let lastDraw = 0;
  /** Not a terminal: a phase's latest report, written once the phase is over. */
  let pending = '';
  const clear = () => {
    if (inPlace) stream.write('\r\x1b[2K');
    if (pending) stream.write(`  ${pending}\n`);
    inPlace = false;
    pending = '';
  };
  return {
    onStep(step) {
      const within = detail?.(step);
      if (!within) {
        clear();
        lastPhase = '';
        stream.write(`${terminalText(text(step))}\n`);
        return;
      }
      const now = Date.now();
      const newPhase = within.phase !== lastPhase;
      lastPhase = within.phase;
      if (stream.isTTY) {
        if (!newPhase && now - lastDraw < 100) return;
        lastDraw = now;
        // git's transfer progress, partly the remote's own words ("remote: …").
        stream.write(`\r\x1b[2K  ${terminalText(within.text)}`);
        inPlace = true;
      } else {
        if (newPhase && pending) stream.write(`  ${pending}\n`);
        pending = terminalText(within.text);
      }
    },
    finish: clear,
  };
}
