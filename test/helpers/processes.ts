import { GitProcesses } from '../../src/git/processes.js';

/** Git processes over this test process's environment, as a front end would create them (a new set each call). */
export function testProcesses(): GitProcesses {
  return new GitProcesses(process.env);
}
