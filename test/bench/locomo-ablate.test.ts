import test from 'ava';
import '../helpers/repo.js'; // pinned git environment for the in-process library calls
import { ablationConfigurations, formatAblation, splitConversations, tryConfigurations } from '../../bench/lib/locomo-ablate.js';
import { normaliseConversation } from '../../bench/lib/locomo-data.js';
import type { QueryOptions, QueryResult, Retriever } from '../../bench/lib/locomo-query.js';
import { runConversation } from '../../bench/lib/locomo-run.js';
import { OPTIONAL_RANKING_FEATURES, RANKING_FEATURES } from '../../src/search/query-topics.js';
import { tinySample } from './locomo-fixture.js';

const conversation = normaliseConversation(tinySample());

test('split: tune is the even-indexed conversations, validate the odd-indexed, all every one', (t) => {
  const ten = Array.from({ length: 10 }, (_, i) => i);
  t.deepEqual(splitConversations(ten, 'tune'), [0, 2, 4, 6, 8]);
  t.deepEqual(splitConversations(ten, 'validate'), [1, 3, 5, 7, 9]);
  t.deepEqual(splitConversations(ten, 'all'), ten);
});

test('ablation: the default, each ranking feature off alone, each optional one on alone, then all off', (t) => {
  const configurations = ablationConfigurations();
  t.is(configurations[0]!.ranking, undefined);
  t.deepEqual(
    configurations.slice(1, -1).map((c) => c.ranking),
    [...RANKING_FEATURES.map((f) => ({ [f]: false })), ...OPTIONAL_RANKING_FEATURES.map((f) => ({ [f]: true }))],
  );
  t.deepEqual(configurations.at(-1)!.ranking, Object.fromEntries(RANKING_FEATURES.map((f) => [f, false])));
});

test('--try: the default, each listed ranking (+ joins features, - switches one off), then all off', (t) => {
  const fail = (message: string): never => {
    throw new Error(message);
  };
  const configurations = tryConfigurations('timeWords,timeWords+-coordination', fail);
  t.deepEqual(
    configurations.map((c) => c.label),
    ['all on (default)', 'timeWords', 'timeWords+-coordination', 'all off (plain BM25F)'],
  );
  t.deepEqual(configurations[1]!.ranking, { timeWords: true });
  t.deepEqual(configurations[2]!.ranking, { timeWords: true, coordination: false });
  t.throws(() => tryConfigurations('nosuchfeature', fail), { message: /Unknown ranking feature nosuchfeature/ });
});

test('every question is asked once per ranking, over one import, and the table has a row per ranking', async (t) => {
  const asked: Array<QueryOptions['ranking']> = [];
  const retriever: Retriever = {
    name: 'fake',
    query: async (_question, options) => {
      asked.push(options.ranking);
      // The default ranking finds D1:1 first; any switched-off one finds nothing.
      const paths = options.ranking ? [] : ['locomo/conv-t1/d1_1'];
      const answer: QueryResult = {
        status: paths.length > 0 ? 'ok' : 'no-matches',
        matchedDocs: paths.map((p) => ({ path: `${p}.html`, topicPath: p, title: p, score: 1, format: 'html', rendered_md: 'x' })),
        metadata: { durationMs: 0, totalFound: paths.length, topScore: 0 },
      };
      return answer;
    },
  };
  const rankings = [undefined, { feedback: false }];
  const run = await runConversation(conversation, { variant: 'turn', retriever: async () => retriever, rankings });
  t.is(run.questionsByRanking.length, 2);
  t.is(run.questions, run.questionsByRanking[0]!);
  t.deepEqual(asked, [...run.questions.map(() => undefined), ...run.questions.map(() => ({ feedback: false }))]);
  const puppy = (i: number) => run.questionsByRanking[i]!.find((q) => q.id === 'conv-T1#0')!;
  t.is(puppy(0).metrics['recall@10'], 1);
  t.is(puppy(1).metrics['recall@10'], 0);

  const table = formatAblation(
    'turn',
    run.questionsByRanking.map((questions, i) => ({ label: `r${i}`, questions })),
  ).split('\n');
  t.regex(table[0]!, /^\| configuration \| R@5 4 \| R@10 4 \| R@5 1 \| R@10 1 .*\| R@10 1-5 \|$/);
  t.regex(table[2]!, /^\| r0 \|/);
  t.regex(table[3]!, /^\| r1 \| 0\.0 \| 0\.0 \|/);
  t.regex(table[4]!, /^\| BM25 Lunr-like .*\| 64\.7 \|$/, 'the published plain-BM25 row, overall R@10');
});
