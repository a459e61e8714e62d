/**
 * bench/attack/fuzz-topics: issue 9's fuzz campaign at full size. Generated hostile topics go through
 * the real validator; every accepted one must store nothing executable and validate again; a sample
 * is written through the real writer and read back from git. Usage:
 *   node --import tsx bench/attack/fuzz-topics.ts [--runs 100000] [--seed 9] [--store 500]
 * Writes bench/results/attack-fuzz-topics.json; exits 1 when anything unsafe was stored.
 */
import { cleanup, makeRepo } from '../../test/helpers/repo.js';
import { fuzzTopics, storeAndCheck } from '../../test/attack/lib/fuzz-topics.js';
import { argValue, writeReport } from '../lib/report.js';

const runs = Number(argValue('runs', '100000'));
const seed = Number(argValue('seed', '9'));
const storeCount = Number(argValue('store', '500'));

let failure: string | undefined;
let stats;
try {
  stats = fuzzTopics({ numRuns: runs, seed, keepAccepted: storeCount });
} catch (error) {
  failure = (error as Error).message;
}
let storedProblems: string[] = [];
let storeMs = 0;
if (stats) {
  const repo = await makeRepo();
  const start = performance.now();
  storedProblems = await storeAndCheck(repo, stats.samples);
  storeMs = Math.round(performance.now() - start);
  await cleanup(repo);
}
const result = {
  runs,
  seed,
  cases: stats?.cases,
  accepted: stats?.accepted,
  rejected: stats?.rejected,
  unsafeStored: failure ? 'see failure' : stats?.unsafeStored,
  validateMs: stats?.ms,
  storedThroughWriter: stats?.samples.length,
  storedProblems: storedProblems.length,
  storeMs,
  failure,
  firstStoredProblems: storedProblems.slice(0, 5),
};
console.log(JSON.stringify(result, null, 2));
await writeReport('attack-fuzz-topics', result);
if (failure || storedProblems.length > 0) process.exitCode = 1;
