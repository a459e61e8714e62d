import type { ErrorKind } from '../base/error-kinds.js';
import { CONTROL } from '../topic/inline.js';
import { errorText } from '../views/errors.js';
import { cliIo, cliRun, setExitCode } from './io.js';

/**
 * The only place brv writes to stdout/stderr for the CLI: one JSON line, or text for people.
 *
 * Nothing written carries a raw control character (C0 but tab and newline, DEL, C1): whatever a
 * stored topic, a pulled commit, a remote or the command line holds, it cannot move the cursor,
 * retitle the window, write the clipboard (OSC 52) or plant a link (OSC 8). Text gets each one
 * replaced with U+FFFD, as every rendered view already does; JSON keeps the exact value, escaped
 * (`\u001b`), so a script still reads the data unchanged. Error messages are prose: replaced in both.
 */
export type OutputFormat = 'text' | 'json';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Text for a terminal: every control character but tab and newline replaced with U+FFFD. */
export function terminalText(text: string): string {
  return text.replace(CONTROL, '\uFFFD');
}

/** JSON.stringify escapes C0 but writes DEL and C1 (U+0080–U+009F: 0x9B is a CSI) as they are: escape them too, losslessly. */
// eslint-disable-next-line no-control-regex
const JSON_RAW_CONTROL = /[\u007f-\u009f]/g;

/** One JSON line with no raw control character in it; it parses to exactly `value`. */
function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * What the JSON envelope carries beside `data` while a command runs (`meta`: e.g. `meta.knowledge`,
 * the read's notice about fetched knowledge it could not bring in); undefined clears it.
 */
export function setEnvelopeMeta(meta: (() => Record<string, unknown> | undefined) | undefined): void {
  cliRun().envelopeMeta = meta;
}

export function printJson(command: string, success: boolean, data: unknown): void {
  const meta = cliRun().envelopeMeta?.();
  cliIo().stdout.write(`${jsonLine({ command, success, data, ...(meta ? { meta } : {}), timestamp: new Date().toISOString() })}\n`);
}

export function printText(text: string): void {
  const safe = terminalText(text);
  cliIo().stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
}

export function printError(command: string, format: OutputFormat, kind: ErrorKind, message: string, exitCode = EXIT_FAILURE): void {
  // A message may quote what was typed or stored (a path, a revision, an unknown option).
  const safe = terminalText(message);
  if (format === 'json') printJson(command, false, { error: { kind, message: safe } });
  else cliIo().stderr.write(`${errorText(kind, safe)}\n`);
  setExitCode(exitCode);
}

/**
 * The output format a raw command line asks for, read before (or without) yargs: json when it says
 * `--format json` or `--format=json` before any `--` (anywhere: a line that asks for both is a usage
 * error, reported to the script that asked for JSON in JSON).
 */
export function requestedFormat(args: readonly string[]): OutputFormat {
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  for (const [i, arg] of options.entries()) if (arg === '--format=json' || (arg === '--format' && options[i + 1] === 'json')) return 'json';
  return 'text';
}

/** The command a raw command line names, for an error's envelope: its first word that is not an option or a global option's value. */
export function commandWord(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg === '--format' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return /^[a-z][a-z-]{0,40}$/.test(arg) ? arg : 'brv';
  }
  return 'brv';
}

/**
 * A failure nobody expected (a bug): one line, `internal-error`, exit 1. The stack goes to stderr
 * only when BRV_DEBUG or BRV_TRACE is set; a minified bundle's stack helps nobody else.
 */
export function printInternalError(command: string, format: OutputFormat, error: unknown): void {
  const raw = error instanceof Error ? error.message : String(error);
  const line = raw.split('\n', 1)[0]!.trim().slice(0, 500) || (error instanceof Error ? error.name : 'unknown error');
  const debug = Boolean(cliIo().env.BRV_DEBUG || cliIo().env.BRV_TRACE);
  const hint = format === 'text' && !debug ? ' (BRV_DEBUG=1 shows where)' : '';
  printError(command, format, 'internal-error', `Unexpected failure: ${line}${hint}`, EXIT_FAILURE);
  if (debug && error instanceof Error && error.stack) cliIo().stderr.write(`${terminalText(error.stack)}\n`);
}

/** Progress and notes for people go to stderr, so JSON on stdout stays one clean line. */
export function note(message: string): void {
  cliIo().stderr.write(`${terminalText(message)}\n`);
}
