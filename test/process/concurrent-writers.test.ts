import test from 'ava';
import { concurrencyRound } from '../attack/lib/concurrency.js';

// Issue 9, campaign 4 (32 writers and more rounds: bench/attack/concurrency.ts). test/process/concurrency.test.ts
// covers eight plain writers; this races sessions, one-shot writes, overwrites, a merge and a reject.

test('16 curate processes, a merge and a review reject at once: every reported success is in the history, fsck clean', async (t) => {
  const report = await concurrencyRound({ curates: 16, merges: 1, rejects: 1 });
  t.deepEqual(report.problems, []);
  t.is(report.succeeded + report.pathExists, 16);
  t.is(report.pathExists, 3, 'four writers raced for one new path: one added it');
});
