import type { ErrorKind } from '../error-kinds.js';
import { errorText } from '../views/errors.js';

/** The only place brv writes to stdout/stderr for the CLI: one JSON line, or text for people. */
export type OutputFormat = 'text' | 'json';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function printJson(command: string, success: boolean, data: unknown): void {
  process.stdout.write(`${JSON.stringify({ command, success, data, timestamp: new Date().toISOString() })}\n`);
}

export function printText(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function printError(command: string, format: OutputFormat, kind: ErrorKind, message: string, exitCode = EXIT_FAILURE): void {
  if (format === 'json') printJson(command, false, { error: { kind, message } });
  else process.stderr.write(`${errorText(kind, message)}\n`);
  process.exitCode = exitCode;
}

/**
 * The output format a raw command line asks for, read before (or without) yargs: json only when it
 * says `--format json` or `--format=json` before any `--`.
 */
export function requestedFormat(args: readonly string[]): OutputFormat {
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  const index = options.findLastIndex((a) => a === '--format' || a.startsWith('--format='));
  if (index < 0) return 'text';
  const value = options[index]!.startsWith('--format=') ? options[index]!.slice('--format='.length) : options[index + 1];
  return value === 'json' ? 'json' : 'text';
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
  const debug = Boolean(process.env.BRV_DEBUG || process.env.BRV_TRACE);
  const hint = format === 'text' && !debug ? ' (BRV_DEBUG=1 shows where)' : '';
  printError(command, format, 'internal-error', `Unexpected failure: ${line}${hint}`, EXIT_FAILURE);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
}

/** Progress and notes for people go to stderr, so JSON on stdout stays one clean line. */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}
