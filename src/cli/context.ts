import type { Brv } from '../service/brv.js';
import type { Actor } from '../service/host.js';
import type { BrvService } from '../service/service.js';
import { EXIT_FAILURE, note, printError, printInternalError, setEnvelopeMeta, type OutputFormat } from './output.js';
import { cliIo, cliRun } from './io.js';

export interface GlobalOptions {
  format: OutputFormat;
  C?: string;
}

/** Who is acting in this CLI process: the agent that runs brv names itself in BRV_AGENT (Brv-Agent trailer). */
export function cliActor(): Actor {
  return { agent: cliIo().env.BRV_AGENT };
}

/** This run's service (one per CLI run: it owns every git process brv starts; git sees the run's env). */
export async function cliService(): Promise<BrvService> {
  const run = cliRun();
  if (run.service) return run.service;
  const { BrvService } = await import('../service/service.js');
  const { env, home, platform } = run.io;
  run.service ??= new BrvService({ env, home, platform });
  return run.service;
}

/** The working directory of this run, or -C's folder. */
export function cliCwd(C?: string): string {
  return C ?? cliIo().cwd;
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
      const opening = brvService.open(cliCwd(argv.C), open);
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
  const { isBrvError } = await import('../base/errors.js');
  try {
    await run();
  } catch (error) {
    if (isBrvError(error)) printError(command, argv.format, error.kind, error.message, EXIT_FAILURE);
    else printInternalError(command, argv.format, error);
  }
}
