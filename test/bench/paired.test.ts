import test from 'ava';
import { execa } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { comparePaired, inGroup, signTestP } from '../../bench/lib/paired.js';

test('signTestP is the exact two-sided binomial sign test', (t) => {
  t.is(signTestP(0, 0), 1);
  t.is(signTestP(1, 1), 1);
  t.is(signTestP(5, 0), 0.0625); // 2 × (1/2)^5
  t.is(signTestP(0, 10), 2 / 1024);
  // 8 of 10 one way: 2 × (1 + 10 + 45) / 1024
  t.true(Math.abs(signTestP(2, 8) - (2 * 56) / 1024) < 1e-12);
  t.is(signTestP(3, 2), signTestP(2, 3));
  // Large counts stay finite (0.5^1500 underflows a double): 750 each way is no evidence at all.
  t.is(signTestP(750, 750), 1);
  t.true(signTestP(600, 900) < 1e-10);
});

test('comparePaired counts questions each ranking is better on, ties apart, over the ids given', (t) => {
  const a = new Map([
    ['q1', 1],
    ['q2', 0.5],
    ['q3', 0],
    ['q4', 1],
  ]);
  const b = new Map([
    ['q1', 0],
    ['q2', 0.5],
    ['q3', 1],
    ['q5', 1],
  ]);
  t.deepEqual(comparePaired(['q1', 'q2', 'q3', 'q4', 'q5'], a, b), { better: 1, worse: 1, tied: 1, p: 1 });
  t.deepEqual(comparePaired(['q1'], a, b), { better: 1, worse: 0, tied: 0, p: 1 });
});

test('inGroup maps report rows to categories: one category, a LoCoMo range, or overall', (t) => {
  t.true(inGroup('3', 3));
  t.false(inGroup('3', 4));
  t.true(inGroup('1-4', 2));
  t.false(inGroup('1-4', 5));
  t.true(inGroup('1-5', 5));
  t.true(inGroup('recommend', 'recommend'));
  t.false(inGroup('recommend', 'debug'));
  t.true(inGroup('overall', 'debug'));
});

test('bench/against-bm25 says, for a figure below, on how many questions brv is better and worse, and the p', async (t) => {
  const folder = await mkdtemp(path.join(tmpdir(), 'brv-against-'));
  t.teardown(() => rm(folder, { recursive: true, force: true }));
  // Ten questions of one category: brv finds 2 the stand-in misses and misses 4 it finds.
  const questions = (hits: number[]) =>
    Array.from({ length: 10 }, (_, i) => ({
      id: `q${i}`,
      category: 'debug',
      metrics: { 'recall@1': hits[i]!, 'recall@5': 1, 'recall_all@5': 1, mrr: 1 },
    }));
  const brvHits = [1, 1, 0, 0, 0, 0, 1, 1, 1, 1];
  const standInHits = [0, 0, 1, 1, 1, 1, 1, 1, 1, 1];
  const mean = (hits: number[]) => hits.reduce((s, h) => s + h, 0) / hits.length;
  const results = (hits: number[]) => ({
    units: { recall: 'fraction' },
    groups: ['debug', 'overall'].map((key) => ({
      key,
      n: 10,
      metrics: { 'recall@1': mean(hits), 'recall@5': 1, 'recall_all@5': 1, mrr: 1 },
    })),
    questions: questions(hits),
  });
  await writeFile(path.join(folder, 'coding-validate.json'), JSON.stringify(results(brvHits)));
  await writeFile(path.join(folder, 'coding-validate-stand-in.json'), JSON.stringify(results(standInHits)));
  const run = await execa('node', [
    '--import',
    'tsx',
    'bench/against-bm25.ts',
    '--results',
    folder,
    '--splits',
    'validate',
    '--corpora',
    'coding',
  ]);
  // 2 better, 4 worse: 2 × (1 + 6 + 15) / 64 = 0.6875.
  t.regex(run.stdout, /\| debug \| 10 \| 60\.0 \/ 80\.0 ▼ 2\.0q \(↑2 ↓4, p \.69\) \|/);
  t.regex(run.stdout, /2 of 8 figures below the stand-in/);
  t.regex(run.stdout, /Paired sign test .*: 0 of those below and 0 of those above the stand-in differ with p < 0\.05\./);
});
