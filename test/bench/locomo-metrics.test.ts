import test from 'ava';
import {
  aggregate,
  budgetedRecall,
  countWords,
  evidenceRecallAt,
  firstRelevantRank,
  ndcgAt,
  percentile,
  reciprocalRank,
  scoreQuestion,
  sessionOf,
  sessionFractionAt,
  sessionRecallAt,
  withinBudget,
  type RankedDoc,
  type ScoredQuestion,
} from '../../bench/lib/locomo-metrics.js';

const turn = (id: string, words = 10): RankedDoc => ({ turns: [id], session: sessionOf(id), words });
const session = (n: number, ids: string[], words = 100): RankedDoc => ({ turns: ids, session: n, words });
const foreign: RankedDoc = { turns: [], session: undefined, words: 5 };

test('sessionOf and countWords', (t) => {
  t.is(sessionOf('D12:3'), 12);
  t.throws(() => sessionOf('D'));
  t.is(countWords('# Title\n\n- **Fact** (subject=D1:3):  Caroline: hi  there\n'), 6); // not "#" or "-"
  t.is(countWords('   '), 0);
});

test('evidence recall@k counts evidence turns found in the top k', (t) => {
  const docs = [turn('D1:1'), turn('D1:3'), turn('D2:5'), turn('D1:2')];
  const evidence = ['D1:2', 'D1:3'];
  t.is(evidenceRecallAt(evidence, docs, 1), 0);
  t.is(evidenceRecallAt(evidence, docs, 2), 0.5); // D1:3 at rank 2
  t.is(evidenceRecallAt(evidence, docs, 3), 0.5);
  t.is(evidenceRecallAt(evidence, docs, 4), 1);
  t.is(evidenceRecallAt(evidence, docs, 50), 1);
  t.is(evidenceRecallAt(['D9:9'], docs, 50), 0);
  // A session topic holds many turns: one doc can find several evidence ids.
  t.is(evidenceRecallAt(['D1:1', 'D1:2', 'D2:1'], [session(1, ['D1:1', 'D1:2', 'D1:3'])], 1), 2 / 3);
});

test('session recall_any and recall_all', (t) => {
  const docs = [session(3, ['D3:1']), session(1, ['D1:1']), session(2, ['D2:1'])];
  const evidence = ['D1:4', 'D2:7', 'D2:8']; // sessions 1 and 2
  t.is(sessionRecallAt(evidence, docs, 1, 'any'), 0);
  t.is(sessionRecallAt(evidence, docs, 2, 'any'), 1);
  t.is(sessionRecallAt(evidence, docs, 2, 'all'), 0);
  t.is(sessionRecallAt(evidence, docs, 3, 'all'), 1);
  // Turn topics: their sessions count too.
  t.is(sessionRecallAt(['D2:1'], [turn('D1:1'), turn('D2:9')], 2, 'any'), 1);
  t.is(sessionRecallAt(['D2:1'], [foreign], 5, 'any'), 0);
});

test('session recall (srec): the fraction of evidence sessions found', (t) => {
  const docs = [session(3, ['D3:1']), session(1, ['D1:1']), session(2, ['D2:1'])];
  const evidence = ['D1:4', 'D2:7', 'D2:8', 'D4:1']; // sessions 1, 2 and 4: each counts once
  t.is(sessionFractionAt(evidence, docs, 1), 0);
  t.is(sessionFractionAt(evidence, docs, 2), 1 / 3);
  t.is(sessionFractionAt(evidence, docs, 10), 2 / 3);
});

test('MRR: 1 / rank of the first document holding any evidence', (t) => {
  const docs = [turn('D1:1'), foreign, turn('D1:7'), turn('D1:3')];
  t.is(firstRelevantRank(['D1:3', 'D1:7'], docs), 3);
  t.is(reciprocalRank(['D1:3', 'D1:7'], docs), 1 / 3);
  t.is(reciprocalRank(['D1:1'], docs), 1);
  t.is(reciprocalRank(['D5:5'], docs), 0);
  t.is(reciprocalRank(['D1:1'], []), 0);
});

test('NDCG@10 with binary relevance and the corpus ideal', (t) => {
  const docs = [turn('D1:1'), turn('D1:2'), turn('D1:3')];
  // One relevant doc at rank 2: DCG = 1/log2(3); IDCG (1 relevant in the corpus) = 1.
  t.is(ndcgAt(['D1:2'], docs, 10, 1), 1 / Math.log2(3));
  // Two evidence turns at ranks 1 and 3: DCG = 1 + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3).
  t.is(ndcgAt(['D1:1', 'D1:3'], docs, 10, 2), 1.5 / (1 + 1 / Math.log2(3)));
  // A relevant doc beyond k does not count.
  t.is(ndcgAt(['D1:3'], docs, 2, 1), 0);
  // Perfect ranking.
  t.is(ndcgAt(['D1:1', 'D1:2'], docs, 10, 2), 1);
  // Nothing relevant in the corpus: 0, not NaN.
  t.is(ndcgAt(['D1:1'], docs, 10, 0), 0);
});

test('budget: documents in rank order while the words stay within B', (t) => {
  const docs = [turn('D1:1', 300), turn('D1:2', 200), turn('D1:3', 1), turn('D1:4', 10)];
  // 300 + 200 = 500 fits exactly; the next (1 word) would exceed 500.
  t.deepEqual(
    withinBudget(docs, 500).map((d) => d.turns[0]),
    ['D1:1', 'D1:2'],
  );
  t.is(budgetedRecall(['D1:2', 'D1:3'], docs, 500), 0.5);
  t.is(budgetedRecall(['D1:2', 'D1:3'], docs, 501), 1);
  // Stop at the first document that does not fit, even if a later one would.
  t.deepEqual(withinBudget([turn('D1:1', 600), turn('D1:2', 10)], 500), []);
  t.is(budgetedRecall(['D1:2'], [turn('D1:1', 600), turn('D1:2', 10)], 500), 0);
});

test('scoreQuestion puts every metric together', (t) => {
  const docs = [session(2, ['D2:1', 'D2:2'], 400), session(1, ['D1:1', 'D1:2'], 700), session(3, ['D3:1'], 50)];
  const metrics = scoreQuestion(['D1:2', 'D3:1'], docs, 2);
  t.is(metrics['recall@5'], 1);
  t.is(metrics['any@1'], 0);
  t.is(metrics['any@2'], 1);
  t.is(metrics['all@2'], 0);
  t.is(metrics['all@3'], 1);
  t.is(metrics['srec@1'], 0);
  t.is(metrics['srec@2'], 0.5);
  t.is(metrics['srec@3'], 1);
  t.is(metrics.mrr, 1 / 2);
  t.is(metrics['ndcg@10'], (1 / Math.log2(3) + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3)));
  t.is(metrics['budget@500'], 0); // only the 400-word session 2 fits
  t.is(metrics['budget@1000'], 0); // 400 + 700 > 1000
  t.is(metrics['budget@2000'], 1);
});

test('percentile is nearest-rank', (t) => {
  const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
  t.is(percentile(values, 50), 5);
  t.is(percentile(values, 95), 10);
  t.is(percentile([42], 95), 42);
  t.true(Number.isNaN(percentile([], 50)));
});

test('aggregate averages per category group', (t) => {
  const base = scoreQuestion(['D1:1'], [turn('D1:1')], 1);
  const miss = scoreQuestion(['D1:1'], [], 1);
  const questions: ScoredQuestion[] = [
    { category: 1, metrics: base, latencyMs: 10 },
    { category: 4, metrics: miss, latencyMs: 20 },
    { category: 4, metrics: base, latencyMs: 30 },
    { category: 5, metrics: miss, latencyMs: 40 },
  ];
  const groups = Object.fromEntries(aggregate(questions).map((g) => [g.key, g]));
  t.is(groups['1']!.n, 1);
  t.is(groups['1']!.means.mrr, 1);
  t.is(groups['4']!.means['recall@5'], 0.5);
  t.is(groups['1-4']!.n, 3);
  t.is(groups['1-4']!.means['recall@5'], 2 / 3);
  t.is(groups['1-4']!.latencyMs.p50, 20);
  t.is(groups['5']!.means['recall@5'], 0);
  t.is(groups['1-5']!.n, 4);
  t.is(groups['1-5']!.means['recall@10'], 0.5);
  t.is(groups['1-5']!.latencyMs.p95, 40);
  t.is(groups['3']!.n, 0);
  t.true(Number.isNaN(groups['3']!.means.mrr));
});
