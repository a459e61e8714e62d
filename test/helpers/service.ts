import { homedir } from 'node:os';
import type { Brv, OpenOptions } from '../../src/service/brv.js';
import { CONTEXT, type RepositoryContext } from '../../src/service/context.js';
import { BrvService } from '../../src/service/service.js';

/** One service for a test process, over this process's environment (as the CLI makes it). */
export const testService = new BrvService({ env: process.env, home: homedir(), platform: process.platform });

/** Opens the repository containing `cwd` through the test service. */
export function openBrv(cwd: string, options?: OpenOptions): Promise<Brv> {
  return testService.open(cwd, options);
}

/** What an opened repository shares (its GitRepository, store, sessions): for tests that plant or inspect state below the service. */
export function internals(brv: Brv): RepositoryContext {
  return brv[CONTEXT]();
}
