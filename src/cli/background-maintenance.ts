import path from 'node:path';
import type { Brv } from '../service/brv.js';
import type { IndexCompaction } from '../service/retrieval.js';
import { mark } from '../base/trace.js';
import { cliIo } from './io.js';

/**
 * After a query or search has printed its answer: when it left the search index due for compaction,
 * start `brv maintenance` in the background (detached, as `git gc --auto` does), so no query pays
 * for a compaction. BRV_NO_AUTO_MAINTENANCE=1 turns it off (tests, CI, benchmarks of one process);
 * a query then compacts inline only once the index is far past due. Never fails the command.
 */
export async function maintainInBackground(brv: Brv, compaction: IndexCompaction, cwd: string | undefined): Promise<void> {
  if (compaction !== 'due' || !backgroundMaintenance()) return;
  const io = cliIo();
  const script = io.process?.script;
  if (!io.process || !script) return;
  try {
    const started = await brv.retrieval.startIndexMaintenance({
      command: io.process.execPath,
      args: [script],
      cwd: path.resolve(io.cwd, cwd ?? '.'),
    });
    // BRV_TRACE=1 shows it (and tests count it).
    mark(`cli: background maintenance ${started.status}${started.pid === undefined ? '' : ` (pid ${started.pid})`}`);
  } catch {
    // maintenance is an optimisation: the next query starts it again
  }
}

/**
 * Whether this command starts `brv maintenance` after answering when the index is due: then the
 * first query of a tree with no index answers from a scan and leaves the index to it (retrieval's
 * `scan`). Off with BRV_NO_AUTO_MAINTENANCE, and in an in-process run (tests), which starts nothing.
 */
export function backgroundMaintenance(): boolean {
  const io = cliIo();
  const off = io.env.BRV_NO_AUTO_MAINTENANCE;
  if (off !== undefined && off !== '' && off !== '0') return false;
  // Only a real process starts itself again (node + its script).
  return Boolean(io.process?.script);
}
