import test from 'ava';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  analyserFingerprint,
  openWordNeighbourTable,
  shippedWordNeighbours,
  TABLE_HEADER,
  type WordNeighbourTable,
} from '../../src/search/word-neighbours.js';
import { brvPackageRoot } from '../../src/base/package-root.js';
import { cleanup, tempDir } from '../helpers/repo.js';

/** Words aaa, aab, … (sorted), each with two made-up neighbours that name it. */
function syntheticWords(count: number): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return Array.from(
    { length: count },
    (_, i) => `w${letters[Math.floor(i / 676) % 26]}${letters[Math.floor(i / 26) % 26]}${letters[i % 26]}`,
  );
}

async function tableFile(lines: string[], header = `${TABLE_HEADER} test`): Promise<{ dir: string; file: string }> {
  const dir = await tempDir('brv-neighbours-');
  const file = path.join(dir, 'table.txt');
  await writeFile(file, `${header}\n${lines.join('\n')}\n`);
  return { dir, file };
}

test('a table of thousands of words: every word found by binary search, with its neighbours best first', async (t) => {
  const words = syntheticWords(6000); // ~150 KB: many probes before the last window
  const { dir, file } = await tableFile(words.map((w) => `${w}\t${w}x:91 ${w}y:60`));
  const table = openWordNeighbourTable(file)!;
  t.truthy(table);
  for (const word of words) {
    t.deepEqual(table.neighbours(word), [
      { term: `${word}x`, cosine: 0.91 },
      { term: `${word}y`, cosine: 0.6 },
    ]);
  }
  // Between, before and after the words; prefixes of a word are other words.
  for (const missing of ['a', 'w', 'waa', 'waaaa', 'wzzz', 'zzz', `${words[100]}a`]) t.deepEqual(table.neighbours(missing), [], missing);
  await cleanup(dir);
});

test('only lowercase letters are looked up; a damaged line is skipped, not thrown', async (t) => {
  const { dir, file } = await tableFile(['apple\tpear:80 :70 plum:x fig:101 kiwi:65', 'zebra\thorse:70']);
  const table = openWordNeighbourTable(file)!;
  t.deepEqual(table.neighbours('apple'), [
    { term: 'pear', cosine: 0.8 },
    { term: 'kiwi', cosine: 0.65 },
  ]);
  for (const word of ['Apple', 'apple2', '', 'app le', 'a'.repeat(41), '../zebra']) t.deepEqual(table.neighbours(word), []);
  t.deepEqual(table.neighbours('zebra'), [{ term: 'horse', cosine: 0.7 }]);
  await cleanup(dir);
});

test('a missing file or one that is not a table opens as none; a table without line ends answers nothing', async (t) => {
  const dir = await tempDir('brv-neighbours-');
  t.is(openWordNeighbourTable(path.join(dir, 'absent.txt')), undefined);
  await writeFile(path.join(dir, 'other.txt'), 'apple\tpear:80\n');
  t.is(openWordNeighbourTable(path.join(dir, 'other.txt')), undefined);
  await writeFile(path.join(dir, 'long.txt'), `${TABLE_HEADER}\n${'a'.repeat(100_000)}`);
  const long = openWordNeighbourTable(path.join(dir, 'long.txt'))!;
  t.deepEqual(long.neighbours('apple'), []);
  await cleanup(dir);
});

function shipped(t: { truthy(value: unknown, message?: string): void }): WordNeighbourTable {
  const table = shippedWordNeighbours();
  t.truthy(table, 'brv ships data/word-neighbours.txt');
  return table!;
}

test('the shipped table knows common words, as stems the index holds', (t) => {
  const table = shipped(t);
  const terms = (word: string) => table.neighbours(word).map((n) => n.term);
  t.true(terms('pets').includes('cat'), terms('pets').join(' '));
  t.true(
    terms('violin').some((term) => ['cello', 'piano', 'viola'].includes(term)),
    terms('violin').join(' '),
  );
  for (const n of table.neighbours('painting')) t.true(n.cosine >= 0.6 && n.cosine <= 1);
  t.deepEqual(table.neighbours('the'), []); // a stop word is never asked for, and not held
});

test('the shipped table was built with the analyser brv has now (rebuild: scripts/build-word-neighbours.ts)', async (t) => {
  const text = await readFile(path.join(brvPackageRoot(), 'data', 'word-neighbours.txt'), 'latin1');
  const [header, ...lines] = text.trimEnd().split('\n');
  t.true(header!.startsWith(TABLE_HEADER));
  const words = lines.map((line) => line.slice(0, line.indexOf('\t')));
  t.deepEqual(
    words,
    [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    'sorted for binary search',
  );
  t.true(words.length > 30_000);
  t.is(header!.match(/analyser ([0-9a-f]{16})$/)?.[1], analyserFingerprint(words));
});
