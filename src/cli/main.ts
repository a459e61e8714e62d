#!/usr/bin/env node
import { fastParse } from './fast-args.js';
import { isBrvError } from '../errors.js';
import { EXIT_FAILURE, commandWord, printError, printInternalError, requestedFormat } from './output.js';
import { mark, startTracing } from '../trace.js';

// BRV_TRACE=1 prints where a command spent its time (marks set across the library, src/trace.ts).
if (process.env.BRV_TRACE) {
  startTracing();
  process.on('exit', () => {
    for (const entry of performance.getEntriesByType('mark'))
      process.stderr.write(`${entry.startTime.toFixed(1).padStart(8)} ms  ${entry.name}\n`);
  });
}
mark('cli: modules loaded');

// When a command is done (nothing left in the event loop: output written, children reaped), exit
// at once: left to end by itself, Node frees every page of the heap first, 30–40 ms of the first
// query of a fetched tree (docs/archive/bench-notebook-2026.md, "Cold path, round 4"). The 'exit' handlers still run.
process.once('beforeExit', () => process.exit());

const args = process.argv.slice(2);
// Invoked as `git brv …`, git puts us on PATH as git-brv; the program is the same.
const scriptName = process.argv[1]?.endsWith('git-brv') ? 'git brv' : 'brv';

async function main(): Promise<void> {
  // `brv` alone: the terminal REPL for a person at a terminal, the help for anything else (exit 0).
  if (args.length === 0) {
    if (process.stdin.isTTY && process.stdout.isTTY) {
      const { startTui } = await import('./commands/tui.js');
      return startTui({ format: 'text' });
    }
    const { runParser } = await import('./parser.js');
    return runParser(['--help'], scriptName);
  }
  // Shell completion (`brv completion`'s scripts call it on every Tab): no yargs, no service.
  if (args[0] === '__complete') {
    const { complete } = await import('./complete.js');
    for (const candidate of await complete(args.slice(1), process.cwd(), process.env)) process.stdout.write(`${candidate}\n`);
    return;
  }
  // The commands agents run in a loop skip yargs when their command line is plain (fast-args.ts).
  const fast = fastParse(args, scriptName);
  if (fast) return fast.handler(fast.argv);
  const { runParser } = await import('./parser.js');
  mark('cli: parser loaded');
  return runParser(args, scriptName);
}

// A reader that went away (`brv ls | head -1`) is not an error: stop writing, keep the exit code.
// (The MCP server handles its stdout itself: a client going away ends its session cleanly.)
if (commandWord(args) !== 'mcp')
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? (process.exitCode ?? 0) : EXIT_FAILURE);
  });

/**
 * Whatever escapes a command (a bug, an event emitter's error, an unhandled rejection) is reported as
 * one line, `internal-error` (or a BrvError's own kind) in the JSON envelope under --format json,
 * exit code 1; the stack only with BRV_DEBUG or BRV_TRACE. `brv mcp` speaks JSON-RPC on stdout, so its failures go to stderr.
 */
let crashed = false;
function reportUncaught(error: unknown): void {
  if (crashed) return;
  crashed = true;
  const command = commandWord(args);
  const format = command === 'mcp' ? 'text' : requestedFormat(args);
  // A typed failure a command did not report itself keeps its kind.
  if (isBrvError(error)) printError(command, format, error.kind, error.message, EXIT_FAILURE);
  else printInternalError(command, format, error);
  process.exit(EXIT_FAILURE);
}
process.on('uncaughtException', reportUncaught);

// No top-level await: the build emits a script (see scripts/build.mjs).
main().catch(reportUncaught);
