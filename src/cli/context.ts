import type { Brv } from '../service/brv.js';
import { EXIT_FAILURE, printError, type OutputFormat } from './output.js';

export interface GlobalOptions {
  format: OutputFormat;
  C?: string;
}

/**
 * Opens the repository the user is in, runs one command against it and always closes it.
 * Typed library errors become the JSON error envelope (or a one-line message) and exit code 1.
 */
export async function withBrv(command: string, argv: GlobalOptions, run: (brv: Brv) => Promise<void>): Promise<void> {
  const { Brv } = await import('../service/brv.js');
  const { isBrvError } = await import('../errors.js');
  let brv: Brv | undefined;
  try {
    brv = await Brv.open(argv.C ?? process.cwd());
    await run(brv);
  } catch (error) {
    if (isBrvError(error)) printError(command, argv.format, error.kind, error.message, EXIT_FAILURE);
    else
      printError(command, argv.format, 'internal-error', `Unexpected failure: ${(error as Error)?.stack ?? String(error)}`, EXIT_FAILURE);
  } finally {
    brv?.close();
  }
}
