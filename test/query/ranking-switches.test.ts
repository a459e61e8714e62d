import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  OPTIONAL_RANKING_FEATURES,
  RANKING_FEATURES,
  type OptionalRankingFeature,
  type RankingFeature,
} from '../../src/search/query-topics.js';
import type { Brv } from '../../src/service/brv.js';
import { openBrv } from '../helpers/service.js';
import { cleanup, makeRepo, tempDir } from '../helpers/repo.js';

/**
 * Each ranking feature beyond plain BM25F (`QueryOptions.ranking`, for bench/locomo.ts --ablate)
 * changes the answer when switched off (an optional one, left off by default: when switched on), on a
 * tiny tree where it matters; unset, the ranking is the default.
 */

const topic = (p: string, title: string, facts: string[], date?: string) =>
  `<bv-topic path="${p}" title="${title}">\n${date ? `  <bv-timestamp>${date}</bv-timestamp>\n` : ''}${facts.map((f) => `  <bv-fact>${f}</bv-fact>`).join('\n')}\n</bv-topic>\n`;

const TOPICS: Array<[string, string, string[], string?]> = [
  // feedback: the one hit for "dog walk" brings in the topics that share its rarer words.
  ['pets/dog', 'Dog walking', ['We walk the dog at dawn with the red leash and harness.']],
  ['pets/gear', 'Gear', ['The red leash and harness hang by the door.']],
  ['pets/shop', 'Shop', ['Bought a new harness and leash.']],
  // questionFrames: "kind" frames "what kind of"; kept, it matches this topic.
  ['misc/words', 'Kind words', ['Kind words cost nothing.']],
  ['art/caroline', 'Caroline paints', ['Caroline makes abstract art in oil.']],
  // prefix: "observab" matches only as a prefix.
  ['ops/observability', 'Observability', ['Traces and metrics for every service.']],
  // passages and fieldWeights: the same words, together in one line or spread, in the title or the body.
  ['keys/together', 'Notes', ['Rotate the signing keys monthly.', 'Other things entirely here.']],
  ['keys/spread', 'Rotate', ['Signing is done by the team.', 'Keys are kept in the vault.', 'Monthly review of it all.']],
  // timeWords: both say when Melanie painted a sunrise; only one places it in time.
  ['art/sunrise-dated', 'Melanie', ['Melanie painted a sunrise last year at the lake.']],
  ['art/sunrise-undated', 'Melanie', ['Melanie painted a sunrise at the lake.']],
  // questionDates: the same class, on the day the question names and weeks later.
  ['diary/class-1', 'Diary', ['Went to the pottery class with Anna.'], '2023-05-03'],
  ['diary/class-2', 'Diary', ['Went to the pottery class.'], '2023-06-20'],
  // neighbours: the question says "couch", one topic "sofa" (GloVe's neighbours: couch → sofa, sit, bed).
  ['home/whiskers', 'Whiskers', ['Our cat sleeps on the sofa all afternoon.']],
  ['furniture/couch', 'Couch', ['The couch came from the market in March.']],
  // 52 fillers, so that feedback applies (it needs 50 topics) and document frequencies are low.
  ...Array.from({ length: 52 }, (_, i): [string, string, string[]] => [
    `filler/f${i}`,
    `Filler ${i}`,
    [`Cooking pasta recipe number ${i} with tomato sauce.`],
  ]),
];

let dir: string;
let brv: Brv;

test.before(async () => {
  dir = await makeRepo();
  const folder = await tempDir('brv-ranking-');
  for (const [p, title, facts, date] of TOPICS) {
    const file = path.join(folder, `${p}.html`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, topic(p, title, facts, date));
  }
  brv = await openBrv(dir);
  const imported = await brv.knowledge.importTree({ directory: folder }, {});
  if (!imported.ok) throw new Error(JSON.stringify(imported.problems));
  await cleanup(folder);
});

test.after.always(async () => {
  brv?.close();
  await cleanup(dir);
});

async function answer(question: string, off: RankingFeature | RankingFeature[] = [], on: OptionalRankingFeature[] = []) {
  const ranking = Object.fromEntries([...[off].flat().map((feature) => [feature, false]), ...on.map((feature) => [feature, true])]);
  const result = await brv.retrieval.query({ question, limit: 50, ranking });
  return result.matchedDocs.map((d) => `${d.topicPath} ${d.score}`);
}

const QUESTIONS: Record<RankingFeature, string> = {
  feedback: 'dog walk',
  passages: 'rotate signing keys monthly',
  questionFrames: 'What kind of art does Caroline make?',
  coordination: 'rotate keys pasta',
  prefix: 'observab',
  fieldWeights: 'rotate signing keys monthly',
  questionDates: 'Which pottery class with Anna did I go to on June 18th, 2023?',
  pathMatch: 'dog leash',
  timeWords: 'When did Melanie paint a sunrise at the lake?',
};

for (const feature of RANKING_FEATURES) {
  test(`ranking: ${feature} off changes the answer`, async (t) => {
    const on = await answer(QUESTIONS[feature]);
    t.true(on.length > 0);
    t.notDeepEqual(await answer(QUESTIONS[feature], feature), on);
  });
}

const OPTIONAL_QUESTIONS: Record<OptionalRankingFeature, string> = {
  neighbours: 'Where does the cat sleep, on the couch?',
};

for (const feature of OPTIONAL_RANKING_FEATURES) {
  test(`ranking: ${feature} (off by default) on changes the answer`, async (t) => {
    const off = await answer(OPTIONAL_QUESTIONS[feature]);
    t.true(off.length > 0);
    t.notDeepEqual(await answer(OPTIONAL_QUESTIONS[feature], [], [feature]), off);
  });
}

test('ranking: every feature named true is the default ranking', async (t) => {
  const all = Object.fromEntries(RANKING_FEATURES.map((f) => [f, true]));
  for (const question of Object.values(QUESTIONS)) {
    const result = await brv.retrieval.query({ question, limit: 50, ranking: all });
    t.deepEqual(
      result.matchedDocs.map((d) => `${d.topicPath} ${d.score}`),
      await answer(question),
    );
  }
});

test('ranking: feedback brings in topics without the query words; questionFrames and prefix decide what matches', async (t) => {
  const paths = async (q: string, off?: RankingFeature) => (await answer(q, off)).map((line) => line.split(' ')[0]);
  // (Without neighbours, the default: "dog" has "pet" for a neighbour, in the path of pets/gear.)
  t.true((await answer('dog walk')).some((line) => line.startsWith('pets/gear ')));
  t.false((await answer('dog walk', 'feedback')).some((line) => line.startsWith('pets/gear ')));
  t.false((await paths('What kind of art does Caroline make?')).includes('misc/words'));
  t.true((await paths('What kind of art does Caroline make?', 'questionFrames')).includes('misc/words'));
  t.deepEqual(await paths('observab'), ['ops/observability']);
  t.deepEqual(await paths('observab', 'prefix'), []);
});

test('ranking: neighbours bring in a topic that says "sofa" for a question about a couch, after the topic that says "couch"', async (t) => {
  const paths = async (q: string, on: OptionalRankingFeature[] = []) => (await answer(q, [], on)).map((line) => line.split(' ')[0]);
  t.deepEqual(await paths('couch', ['neighbours']), ['furniture/couch', 'home/whiskers']);
  t.deepEqual(await paths('couch'), ['furniture/couch']);
  t.deepEqual((await paths('Where does the cat sleep, on the couch?', ['neighbours'])).slice(0, 2), ['home/whiskers', 'furniture/couch']);
});

test('ranking: timeWords ranks the passage that says when first, for a question that asks when', async (t) => {
  const paths = async (question: string, off?: RankingFeature) => (await answer(question, off)).map((line) => line.split(' ')[0]);
  const when = 'When did Melanie paint a sunrise at the lake?';
  // Without it the shorter topic wins (BM25 length normalisation); with it the dated one.
  t.deepEqual((await paths(when)).slice(0, 2), ['art/sunrise-dated', 'art/sunrise-undated']);
  t.deepEqual((await paths(when, 'timeWords')).slice(0, 2), ['art/sunrise-undated', 'art/sunrise-dated']);
  // A question that does not ask when is not changed.
  const what = 'What did Melanie paint at the lake?';
  t.deepEqual(await answer(what, 'timeWords'), await answer(what));
});

test('ranking: questionDates raises the topic dated near the day a question names', async (t) => {
  const paths = async (question: string, off?: RankingFeature) => (await answer(question, off)).map((line) => line.split(' ')[0]);
  const question = 'Which pottery class with Anna did I go to on June 18th, 2023?';
  // Without it the topic with more of the question's words (Anna) wins;
  // with it the one dated two days from June 18th.
  t.deepEqual((await paths(question, 'questionDates')).slice(0, 2), ['diary/class-1', 'diary/class-2']);
  t.deepEqual((await paths(question)).slice(0, 2), ['diary/class-2', 'diary/class-1']);
});
