/** The only place brv writes to stdout/stderr for the CLI: one JSON line, or text for people. */
export type OutputFormat = 'text' | 'json';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function printJson(command: string, success: boolean, data: unknown): void {
  process.stdout.write(`${JSON.stringify({ command, success, data, timestamp: new Date().toISOString() })}\n`);
}

export function printText(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function printError(command: string, format: OutputFormat, kind: string, message: string, exitCode = EXIT_FAILURE): void {
  if (format === 'json') printJson(command, false, { error: { kind, message } });
  else process.stderr.write(`error: ${message}${kind && kind !== 'usage' ? ` [${kind}]` : ''}\n`);
  process.exitCode = exitCode;
}

/** Progress and notes for people go to stderr, so JSON on stdout stays one clean line. */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

export function shortOid(oid: string | undefined): string {
  return oid ? oid.slice(0, 10) : '-';
}

/** Results from a knowledge source (`brv source add`) are marked with its alias. */
export function originLabel(item: object): string {
  const source = (item as { source?: string }).source;
  return source ? `[${source}] ` : '';
}
