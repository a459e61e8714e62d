import test from 'ava';
import { execa } from 'execa';

// bench/ranking.ts runs every retrieval bench (a minute and more, writing bench/results): here only
// that it refuses what it cannot run, before running anything.

test('bench/ranking refuses an unknown split and missing LoCoMo data, before running any bench', async (t) => {
  const split = await execa('node', ['--import', 'tsx', 'bench/ranking.ts', '--splits', 'tune,nope'], { reject: false });
  t.is(split.exitCode, 2);
  t.regex(split.stderr, /Unknown split "nope"/);
  const data = await execa('node', ['--import', 'tsx', 'bench/ranking.ts', '--locomo', '/nonexistent/locomo10.json'], { reject: false });
  t.is(data.exitCode, 2);
  t.regex(data.stderr, /No LoCoMo data at \/nonexistent\/locomo10\.json/);
  t.notRegex(data.stderr, /LoCoMo turns/);
});
