/**
 * bench/attack/kill9: issue 9's kill -9 campaign at full size. brv is killed with SIGKILL at seeded
 * random points of curate, import, merge, push, sync, review reject and the first index build; after
 * each kill: git fsck, stale locks, old-or-new state, every reported curate present, the command run
 * again works (see test/attack/lib/kill9.ts). Usage:
 *   npm run bench:attack -- kill9 [--runs 350] [--seed 1]     or     node --import tsx bench/attack/kill9.ts …
 * Writes bench/results/attack-kill9.json; exits 1 when anything was found.
 */
import { killCampaign } from '../../test/attack/lib/kill9.js';
import { argValue, writeReport } from '../lib/report.js';

const runs = Number(argValue('runs', '350'));
const seed = Number(argValue('seed', '1'));
const verbose = process.argv.includes('--verbose');

const report = await killCampaign({
  runs,
  seed,
  log: (line) => {
    if (verbose || !line.endsWith(': ok')) console.error(line);
  },
});
const summary = {
  runs: report.runs,
  seed,
  killedWhileRunning: report.killed,
  finishedBeforeTheKill: report.runs - report.killed,
  byOperation: report.byOperation,
  problems: report.problems.length,
  seconds: report.seconds,
  findings: report.problems,
};
console.log(JSON.stringify(summary, null, 2));
await writeReport('attack-kill9', summary);
if (report.problems.length > 0) process.exitCode = 1;
