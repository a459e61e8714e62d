import test from 'ava';
import { bestFusedScore, DEFAULT_FUSION, reciprocalRankFusion } from '../../src/search/fusion.js';

const keys = (list: ReturnType<typeof reciprocalRankFusion>) => list.map((f) => f.key);

test('an item high in both lists beats items high in one; scores are Σ weight / (k + rank)', (t) => {
  const fused = reciprocalRankFusion(['a', 'b', 'c'], ['b', 'd', 'a'], { k: 60, denseWeight: 1 });
  t.deepEqual(keys(fused), ['b', 'a', 'd', 'c']);
  t.is(fused[0]!.score, 1 / 62 + 1 / 61);
  t.deepEqual(
    fused.map((f) => [f.key, f.lexicalRank, f.denseRank]),
    [
      ['b', 2, 1],
      ['a', 1, 3],
      ['d', undefined, 2],
      ['c', 3, undefined],
    ],
  );
});

test('the dense weight moves dense-only items past lexical-only ones; a small k favours first places', (t) => {
  t.deepEqual(keys(reciprocalRankFusion(['a', 'b'], ['x', 'y'], { k: 60, denseWeight: 1 })), ['a', 'x', 'b', 'y']);
  t.deepEqual(keys(reciprocalRankFusion(['a', 'b'], ['x', 'y'], { k: 60, denseWeight: 2 })), ['x', 'y', 'a', 'b']);
  t.deepEqual(keys(reciprocalRankFusion(['a', 'b'], ['x', 'y'], { k: 60, denseWeight: 0.5 })), ['a', 'b', 'x', 'y']);
  // k = 1: a and c (first in one list, third in the other) tie at 1/2 + 1/4, above b (second in both:
  // 2/3); a wins the tie by its lexical rank. 1/(k + r) is convex, so at any k the ends beat the middle.
  t.deepEqual(keys(reciprocalRankFusion(['a', 'b', 'c'], ['c', 'b', 'a'], { k: 1, denseWeight: 1 })), ['a', 'c', 'b']);
  t.deepEqual(keys(reciprocalRankFusion(['a', 'b', 'c'], ['c', 'b', 'a'], { k: 60, denseWeight: 1 })), ['a', 'c', 'b']);
});

test('ties go to the better lexical rank, then the better dense rank, then the key', (t) => {
  // Equal fused scores: a (lexical 1), x (dense 1).
  t.deepEqual(keys(reciprocalRankFusion(['a'], ['x'])), ['a', 'x']);
  // Only dense, equal ranks impossible in one list; two items in neither tie-break on key after ranks.
  t.deepEqual(keys(reciprocalRankFusion(['b', 'a'], ['a', 'b'])), ['b', 'a']);
});

test('one list empty: the other list, in its order; both empty: nothing', (t) => {
  t.deepEqual(keys(reciprocalRankFusion(['a', 'b', 'c'], [])), ['a', 'b', 'c']);
  t.deepEqual(keys(reciprocalRankFusion([], ['c', 'a', 'b'])), ['c', 'a', 'b']);
  t.deepEqual(reciprocalRankFusion([], []), []);
});

test('a key repeated in a list counts at its best rank, once', (t) => {
  const fused = reciprocalRankFusion(['a', 'b', 'a'], ['a']);
  t.deepEqual(keys(fused), ['a', 'b']);
  t.is(fused[0]!.lexicalRank, 1);
});

test('deterministic: the same lists in give the same order out, whatever the insertion order of ties', (t) => {
  const lexical = Array.from({ length: 30 }, (_, i) => `t${(i * 7) % 30}`);
  const dense = Array.from({ length: 30 }, (_, i) => `t${(i * 11 + 3) % 30}`);
  const first = keys(reciprocalRankFusion(lexical, dense));
  for (let i = 0; i < 5; i++) t.deepEqual(keys(reciprocalRankFusion([...lexical], [...dense])), first);
  t.is(new Set(first).size, 30);
});

test('fused scores divided by the best possible fall in (0, 1]', (t) => {
  const fused = reciprocalRankFusion(['a', 'b'], ['a', 'c']);
  t.is(fused[0]!.score / bestFusedScore(DEFAULT_FUSION), 1);
  for (const f of fused) t.true(f.score / bestFusedScore() > 0 && f.score / bestFusedScore() <= 1);
});
