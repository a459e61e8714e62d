import test from 'ava';
import { killCampaign, KILL_OPERATIONS } from '../attack/lib/kill9.js';

// Issue 9, campaign 1 (hundreds of kills: bench/attack/kill9.ts): SIGKILL at random points of curate,
// import, merge, push, sync, review reject and the first index build loses nothing and breaks nothing.

test('kill -9 during every writing command: nothing lost, fsck clean, no stale lock, old or new state, next command works', async (t) => {
  const runs = 2 * KILL_OPERATIONS.length;
  const lines: string[] = [];
  const report = await killCampaign({ runs, seed: 1, log: (line) => lines.push(line) });
  if (report.problems.length > 0) t.log(lines.join('\n'));
  t.deepEqual(report.problems, []);
  t.is(report.runs, runs);
  for (const name of KILL_OPERATIONS) t.is(report.byOperation[name]?.runs, 2, name);
  // The delays are drawn within each command's own run time, so most runs really are killed.
  t.true(report.killed >= runs / 3, `killed ${report.killed} of ${runs}`);
});
