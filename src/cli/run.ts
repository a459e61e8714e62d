import { fastParse } from './fast-args.js';
import { isBrvError } from '../base/errors.js';
import { withCliRun, type CliIo } from './io.js';
import { EXIT_FAILURE, commandWord, printError, printInternalError, requestedFormat } from './output.js';
import { mark } from '../base/trace.js';

/**
 * One `brv` command line, run against `io`: resolves to its exit code. The real process
 * (src/cli/main.ts) passes its own stdout, env, cwd…; tests run hundreds of these in one process.
 * A command's failure that escapes it is reported here as main.ts reports an uncaught one.
 */
export async function runCli(args: string[], io: CliIo, scriptName = 'brv'): Promise<number> {
  const run = await withCliRun(io, args, async () => {
    try {
      await dispatch(args, io, scriptName);
    } catch (error) {
      reportFailure(args, error);
    }
  });
  // A run in a longer-lived process (tests) ends like a process does: no git child of it outlives it.
  if (!io.process) run.service?.terminateGitProcesses();
  return run.exitCode ?? 0;
}

async function dispatch(args: string[], io: CliIo, scriptName: string): Promise<void> {
  // `brv` alone: the terminal REPL for a person at a terminal, the help for anything else (exit 0).
  if (args.length === 0) {
    if (io.stdin.isTTY && io.stdout.isTTY) {
      const { startTui } = await import('./commands/tui.js');
      return startTui({ format: 'text' });
    }
    const { runParser } = await import('./parser.js');
    return runParser(['--help'], scriptName);
  }
  // Shell completion (`brv completion`'s scripts call it on every Tab): no yargs, no service.
  if (args[0] === '__complete') {
    const { complete } = await import('./complete.js');
    for (const candidate of await complete(args.slice(1), io.cwd, io.env)) io.stdout.write(`${candidate}\n`);
    return;
  }
  // The commands agents run in a loop skip yargs when their command line is plain (fast-args.ts).
  const fast = fastParse(args, scriptName);
  if (fast) return fast.handler(fast.argv);
  const { runParser } = await import('./parser.js');
  mark('cli: parser loaded');
  return runParser(args, scriptName);
}

/**
 * Whatever escapes a command (a bug, an unhandled rejection) is reported as one line,
 * `internal-error` (or a BrvError's own kind) in the JSON envelope under --format json, exit code 1;
 * the stack only with BRV_DEBUG or BRV_TRACE. `brv mcp` speaks JSON-RPC on stdout, so its failures go to stderr.
 */
export function reportFailure(args: string[], error: unknown): void {
  const command = commandWord(args);
  const format = command === 'mcp' ? 'text' : requestedFormat(args);
  // A typed failure a command did not report itself keeps its kind.
  if (isBrvError(error)) printError(command, format, error.kind, error.message, EXIT_FAILURE);
  else printInternalError(command, format, error);
}
