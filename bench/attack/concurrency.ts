/**
 * bench/attack/concurrency: issue 9's concurrency campaign at full size: rounds of 32 concurrent curate
 * processes (sessions, one-shot, one raced new path, one overwritten topic) with merges and review
 * rejects racing them, each in a fresh repository (see test/attack/lib/concurrency.ts). Usage:
 *   node --import tsx bench/attack/concurrency.ts [--writers 32] [--rounds 10] [--merges 2] [--rejects 2]
 * Writes bench/results/attack-concurrency.json; exits 1 when anything was lost or broken.
 */
import { concurrencyRound } from '../../test/attack/lib/concurrency.js';
import { argValue, percentiles, writeReport } from '../lib/report.js';

const writers = Number(argValue('writers', '32'));
const rounds = Number(argValue('rounds', '10'));
const merges = Number(argValue('merges', '2'));
const rejects = Number(argValue('rejects', '2'));

const problems: string[] = [];
const wall: number[] = [];
let succeeded = 0;
let pathExists = 0;
for (let round = 0; round < rounds; round++) {
  const report = await concurrencyRound({ curates: writers, merges, rejects, round });
  wall.push(report.wallMs);
  succeeded += report.succeeded;
  pathExists += report.pathExists;
  problems.push(...report.problems.map((p) => `round ${round}: ${p}`));
  console.error(
    `round ${round}: ${report.succeeded} curates recorded, ${report.pathExists} path-exists, ${report.wallMs} ms, ${report.problems.length} problems`,
  );
}
const result = {
  writers,
  rounds,
  mergesPerRound: merges,
  rejectsPerRound: rejects,
  curatesRecorded: succeeded,
  sameTopicRefused: pathExists,
  lostOrBroken: problems.length,
  raceWallMs: percentiles(wall),
  findings: problems,
};
console.log(JSON.stringify(result, null, 2));
await writeReport('attack-concurrency', result);
if (problems.length > 0) process.exitCode = 1;
