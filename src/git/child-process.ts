import type * as ChildProcessModule from 'node:child_process';

let loaded: typeof ChildProcessModule | undefined;

/**
 * `node:child_process`, loaded on first use: a static import loads it (with `dgram`, and `net` when
 * stdout is not a pipe) on every command, though a warm query starts no process. Small — 1–3 ms on
 * a slow machine (docs/archive/bench-notebook-2026.md, "Warm path, round 2") — but a command that runs no process
 * should not pay for one.
 */
export function childProcess(): typeof ChildProcessModule {
  return (loaded ??= process.getBuiltinModule('node:child_process'));
}
