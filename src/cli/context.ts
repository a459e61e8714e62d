import { homedir } from 'node:os';
import type { Brv } from '../service/brv.js';
import type { Actor } from '../service/host.js';
import type { BrvService } from '../service/service.js';
import { EXIT_FAILURE, note, printError, printInternalError, setEnvelopeMeta, type OutputFormat } from './output.js';

export interface GlobalOptions {
  format: OutputFormat;
  C?: string;
}

/** Who is acting in this CLI process: the agent that runs brv names itself in BRV_AGENT (Brv-Agent trailer). */
export function cliActor(): Actor {
  return { agent: process.env.BRV_AGENT };
}

let service: BrvService | undefined;

/** This process's service (one per CLI process: it owns every git process brv starts). */
export async function cliService(): Promise<BrvService> {
  if (service) return service;
  const { BrvService } = await import('../service/service.js');
  service ??= new BrvService({ env: process.env, home: homedir(), platform: process.platform });
  return service;
}

/** The service if a command created one (for signal and exit handlers, which must be synchronous). */
export function existingCliService(): BrvService | undefined {
  return service;
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
  const brvService = await cliService();
  let brv: Brv | undefined;
  try {
    await reportingErrors(command, argv, async () => {
      const opening = brvService.open(argv.C ?? process.cwd(), open);
      preload?.().catch(() => {});
      brv = await opening;
      const opened = brv;
      // A read that could not bring fetched knowledge in says so once: in the JSON envelope's meta,
      // or one line on stderr after the answer.
      setEnvelopeMeta(() => {
        const notice = opened.knowledgeNotice();
        return notice ? { knowledge: notice } : undefined;
      });
      await run(brv);
      const notice = brv.knowledgeNotice();
      if (notice && argv.format !== 'json') {
        const { knowledgeNoticeText } = await import('../views/arrival.js');
        note(knowledgeNoticeText(notice));
      }
    });
  } finally {
    setEnvelopeMeta(undefined);
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
