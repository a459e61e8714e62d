import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable } from 'node:stream';
import type { BrvService } from '../service/service.js';

/** Where a CLI run writes: a stream's `write`, and what a terminal tells about itself. */
export interface CliOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

/**
 * Everything a CLI run takes from the machine. `src/cli/main.ts` passes the real process's; a test
 * passes its own, so that many runs share one process and stay independent.
 */
export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly stdin: Readable & { readonly isTTY?: boolean | undefined };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly home: string;
  readonly platform: NodeJS.Platform;
  /**
   * The real process, when the run is one (main.ts): then brv may install signal handlers, exit,
   * and start itself again in the background (node + this script). Absent in-process.
   */
  readonly process?: { readonly execPath: string; readonly script: string | undefined };
}

/** One run's state: its io, its exit code, its service (which owns every git process it starts). */
export interface CliRun {
  readonly io: CliIo;
  /** The command line (without node and the script). */
  readonly args: readonly string[];
  exitCode: number | undefined;
  service: BrvService | undefined;
  envelopeMeta: (() => Record<string, unknown> | undefined) | undefined;
}

const runs = new AsyncLocalStorage<CliRun>();
/** The run of the real process (main.ts), for signal and exit handlers, which run outside any run's context. */
let processRun: CliRun | undefined;

/** The run this code is part of. */
export function cliRun(): CliRun {
  const run = runs.getStore() ?? processRun;
  if (!run) throw new Error('brv: CLI code called outside runCli');
  return run;
}

/** The run's io, if this code is part of a run (the parser is also built by scripts, for the help pages). */
export function currentCliIo(): CliIo | undefined {
  return (runs.getStore() ?? processRun)?.io;
}

/** The run's io. */
export function cliIo(): CliIo {
  return cliRun().io;
}

/** The run of the real process, if this is one (signal handlers). */
export function processCliRun(): CliRun | undefined {
  return processRun;
}

/** Sets the run's exit code (what `process.exitCode = …` did). */
export function setExitCode(code: number): void {
  cliRun().exitCode = code;
}

/** Runs `body` as one CLI run with `io`; resolves to its state once it is done. */
export async function withCliRun(io: CliIo, args: readonly string[], body: () => Promise<void>): Promise<CliRun> {
  const run: CliRun = { io, args, exitCode: undefined, service: undefined, envelopeMeta: undefined };
  // The real process has one run: no AsyncLocalStorage, whose first `run` on Node 20 turns on
  // promise hooks for every promise the command then makes (~3 % of a query's start-up, measured).
  if (io.process) {
    processRun = run;
    await body();
  } else await runs.run(run, body);
  return run;
}
