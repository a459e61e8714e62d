import type * as ChildProcessModule from 'node:child_process';

let loaded: typeof ChildProcessModule | undefined;

/**
 * `node:child_process`, loaded on first use. A static import loads it (and `net`, `dgram`, streams)
 * on every command, ~5 ms of a warm query on a slow machine, though a warm query starts no process
 * (bench/README.md, "Warm path, round 2").
 */
export function childProcess(): typeof ChildProcessModule {
  return (loaded ??= process.getBuiltinModule('node:child_process'));
}
