#!/usr/bin/env node
import { homedir } from 'node:os';
import { processCliRun } from './io.js';
import { EXIT_FAILURE, commandWord } from './output.js';
import { reportFailure, runCli } from './run.js';
import { mark, startTracing } from '../base/trace.js';

// The only module of the CLI that touches the process: it hands runCli the real stdout, env, cwd…
// (src/cli/io.ts), sets the exit code and handles what escapes every command.

// BRV_TRACE=1 prints where a command spent its time (marks set across the library, src/base/trace.ts).
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

// A reader that went away (`brv ls | head -1`) is not an error: stop writing, keep the exit code.
// (The MCP server handles its stdout itself: a client going away ends its session cleanly.)
if (commandWord(args) !== 'mcp')
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? (processCliRun()?.exitCode ?? process.exitCode ?? 0) : EXIT_FAILURE);
  });

/** What escapes a command outside its promise (an event emitter's error) is reported once, exit code 1. */
let crashed = false;
function reportUncaught(error: unknown): void {
  if (crashed) return;
  crashed = true;
  if (processCliRun()) reportFailure(args, error);
  else process.stderr.write(`brv: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(EXIT_FAILURE);
}
process.on('uncaughtException', reportUncaught);

// No top-level await: the build emits a script (see scripts/build.mjs).
runCli(
  args,
  {
    // Getters: a stream is created at its first use (a pipe's is a socket), so only when a command uses it.
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    // Read when a command asks: a folder removed under brv makes that command fail (internal-error).
    get cwd() {
      return process.cwd();
    },
    home: homedir(),
    platform: process.platform,
    process: { execPath: process.execPath, script: process.argv[1] },
  },
  scriptName,
).then((code) => {
  process.exitCode = code;
}, reportUncaught);
