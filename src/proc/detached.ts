import { childProcess } from '../git/child-process.js';
import type { GitProcesses } from '../git/processes.js';

/**
 * Starts `command args` in the background, detached from this process (its own session and process
 * group, no stdio, not waited for and not stopped by `GitProcesses.terminate`), in `cwd`, with the
 * front end's cleaned environment (`GitProcesses.environment`) plus `extra`. It outlives this process, as
 * `git gc --auto` does. Returns its pid, or undefined when it could not be started.
 */
export function startDetached(
  processes: GitProcesses,
  command: string,
  args: readonly string[],
  cwd: string,
  extra?: Record<string, string>,
): number | undefined {
  let child;
  try {
    child = childProcess().spawn(command, [...args], { cwd, detached: true, stdio: 'ignore', env: processes.environment(extra) });
  } catch {
    return undefined;
  }
  child.on('error', () => {}); // a program that cannot be started reports it here too: nothing to do
  child.unref();
  return child.pid;
}
