import type { Brv } from '../service/brv.js';
import { EXIT_FAILURE, printError, printInternalError, type OutputFormat } from './output.js';

export interface GlobalOptions {
  format: OutputFormat;
  C?: string;
}

/** Who is acting in this CLI process: the agent that runs brv names itself in BRV_AGENT (Brv-Agent trailer). */
export function cliActor(): { agent: string | undefined } {
  return { agent: process.env.BRV_AGENT };
}

/**
 * Opens the repository the user is in, runs one command against it and always closes it.
 * Typed library errors become the JSON error envelope (or a one-line message) and exit code 1.
 * `preload` imports code the command will need; it starts once git discovery is running, so that
 * loading overlaps the git process instead of delaying its start.
 */
export async function withBrv(
  command: string,
  argv: GlobalOptions,
  run: (brv: Brv) => Promise<void>,
  preload?: () => Promise<unknown>,
  open: { repairHead?: boolean } = {},
): Promise<void> {
  const [{ Brv }, { cliGitProcesses }] = await Promise.all([import('../service/brv.js'), import('./stop-git-with-brv.js')]);
  let brv: Brv | undefined;
  try {
    await reportingErrors(command, argv, async () => {
      const opening = Brv.open(argv.C ?? process.cwd(), { ...open, processes: cliGitProcesses() });
      preload?.().catch(() => {});
      brv = await opening;
      await run(brv);
    });
  } finally {
    brv?.close();
  }
}

/** Runs a command; typed library errors become the JSON error envelope (or one line) and exit code 1, anything else `internal-error`. */
export async function reportingErrors(command: string, argv: GlobalOptions, run: () => Promise<void>): Promise<void> {
  const { isBrvError } = await import('../errors.js');
  try {
    await run();
  } catch (error) {
    if (isBrvError(error)) printError(command, argv.format, error.kind, error.message, EXIT_FAILURE);
    else printInternalError(command, argv.format, error);
  }
}
