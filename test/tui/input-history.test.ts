import test from 'ava';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFile, InputHistory, loadHistory, MAX_HISTORY, saveHistoryLine } from '../../src/tui/input-history.js';
import { cleanup, tempDir } from '../helpers/repo.js';

test('↑ and ↓ walk the history and come back to the line being typed', (t) => {
  const history = new InputHistory(['first', 'second']);
  t.is(history.older('draft'), 'second');
  t.is(history.older('ignored'), 'first');
  t.is(history.older('ignored'), undefined, 'nothing older');
  t.is(history.newer(), 'second');
  t.is(history.newer(), 'draft', 'the typed line is back');
  t.is(history.newer(), undefined);
});

test('entries: blank lines and repeats of the last are not kept; the oldest go past the limit', (t) => {
  const history = new InputHistory();
  t.true(history.add(' deploy '));
  t.false(history.add('deploy'));
  t.false(history.add('   '));
  t.true(history.add('auth'));
  t.deepEqual(history.entries, ['deploy', 'auth']);
  const full = new InputHistory(Array.from({ length: MAX_HISTORY }, (_, i) => `q${i}`));
  full.add('newest');
  t.is(full.entries.length, MAX_HISTORY);
  t.is(full.entries[0], 'q1');
});

test('Ctrl-R finds the newest line containing the words, then older ones', (t) => {
  const history = new InputHistory(['deploy rules', '/read ops/deploy', 'auth', 'Deploy again']);
  const first = history.search('deploy');
  t.deepEqual(first, { index: 3, line: 'Deploy again' });
  const second = history.search('deploy', first!.index);
  t.deepEqual(second, { index: 1, line: '/read ops/deploy' });
  t.deepEqual(history.search('deploy', second!.index), { index: 0, line: 'deploy rules' });
  t.is(history.search('deploy', 0), undefined);
  t.is(history.search('nothing'), undefined);
});

test('the file under the git directory: appended, read back clean, trimmed when it grows; an absurd file is ignored', async (t) => {
  const dir = await tempDir('brv-tui-history-');
  t.teardown(() => cleanup(dir));
  const file = historyFile(dir);
  t.is(file, path.join(dir, 'brv', 'tui-history'));
  t.deepEqual(await loadHistory(file), [], 'none yet');
  const history = new InputHistory();
  for (const line of ['one', 'two\u001b[31m']) {
    history.add(line);
    await saveHistoryLine(file, line, history);
  }
  t.deepEqual(await loadHistory(file), ['one', 'two[31m']);
  t.is((await stat(file)).mode & 0o777, 0o600, 'only its owner reads what was asked');
  // Grown to more than twice the limit: rewritten to the entries kept.
  await writeFile(file, `${Array.from({ length: 2 * MAX_HISTORY + 5 }, (_, i) => `line ${i} ${'x'.repeat(60)}`).join('\n')}\n`);
  const big = new InputHistory(await loadHistory(file));
  big.add('latest');
  await saveHistoryLine(file, 'latest', big);
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  t.is(lines.length, MAX_HISTORY);
  t.is(lines.at(-1), 'latest');
  await writeFile(file, 'x'.repeat(5 * 1024 * 1024));
  t.deepEqual(await loadHistory(file), []);
});
