import test from 'ava';
import '../helpers/repo.js'; // pinned git environment for the in-process library calls
import { normaliseConversation } from '../../bench/lib/locomo-data.js';
import { brvRetriever, standInRetriever, type QueryResult, type Retriever } from '../../bench/lib/locomo-query.js';
import { preferBrv, rankedDocs, relevantCount, runConversation } from '../../bench/lib/locomo-run.js';
import { generateTopics } from '../../bench/lib/locomo-topics.js';
import type { Brv } from '../../src/service/brv.js';
import { tinySample } from './locomo-fixture.js';

const conversation = normaliseConversation(tinySample());

function result(paths: string[]): QueryResult {
  return {
    status: paths.length > 0 ? 'ok' : 'no-matches',
    matchedDocs: paths.map((p, i) => ({
      path: `${p}.html`,
      topicPath: p,
      title: p,
      score: 1 / (i + 1),
      format: 'html',
      rendered_md: `# ${p}\n\nfive words of text here`,
    })),
    metadata: { durationMs: 0, totalFound: paths.length, topScore: paths.length > 0 ? 1 : 0 },
  };
}

/** A tiny fake with brv.query's shape: always the same ranking. */
const fixed = (paths: string[]): Retriever => ({ name: 'fake', query: async () => result(paths) });

test('returned docs map to turns and sessions; duplicates once, foreign docs hold nothing', (t) => {
  const topics = generateTopics(conversation.dialogue, 'turn');
  const byPath = new Map(topics.map((x) => [x.path, x]));
  const noTopicPath: QueryResult = {
    ...result([]),
    matchedDocs: [{ path: 'locomo/conv-t1/d2_1.html', title: '', score: 1, format: 'html', rendered_md: 'a b' }],
  };
  t.deepEqual(rankedDocs(noTopicPath, byPath), [{ turns: ['D2:1'], session: 2, words: 2 }]);
  const docs = rankedDocs(result(['locomo/conv-t1/d1_1', 'notes/other', 'locomo/conv-t1/d1_1', 'locomo/conv-t1/d10_1']), byPath);
  t.deepEqual(docs, [
    { turns: ['D1:1'], session: 1, words: 6 },
    { turns: [], session: undefined, words: 6 },
    { turns: ['D10:1'], session: 10, words: 6 },
  ]);
  const byTurn = new Map(topics.map((x) => [x.turns[0]!, [x.path]]));
  t.is(relevantCount(['D1:1', 'D10:1'], byTurn), 2);
  const sessions = generateTopics(conversation.dialogue, 'session');
  const sessionsByTurn = new Map(sessions.flatMap((s) => s.turns.map((id) => [id, [s.path]] as const)));
  t.is(relevantCount(['D1:1', 'D1:3'], sessionsByTurn), 1);
});

test('a conversation runs end to end: fresh repository, importFolder, every question scored', async (t) => {
  const run = await runConversation(conversation, {
    variant: 'turn',
    retriever: async () => fixed(['locomo/conv-t1/d2_1', 'locomo/conv-t1/d1_1']),
  });
  t.is(run.topics, 6);
  t.is(run.retriever, 'fake');
  t.true(run.importMs > 0 && run.gitBytes > 0 && run.topicBytes > 0);
  t.deepEqual(
    run.questions.map((q) => q.id),
    ['conv-T1#0', 'conv-T1#1', 'conv-T1#2', 'conv-T1#4'],
  );
  const [puppy, age, pottery, adversarial] = run.questions;
  t.deepEqual(puppy!.evidenceRanks, [2]);
  t.is(puppy!.metrics.mrr, 0.5);
  t.deepEqual(age!.evidenceRanks, [2, null]); // D1:1 found, D10:1 not
  t.is(age!.metrics['recall@5'], 0.5);
  t.is(pottery!.metrics['recall@5'], 1);
  t.is(pottery!.metrics.mrr, 1);
  t.is(adversarial!.category, 5);
});

test('the stand-in reads the imported topics back from the brv branch and ranks them', async (t) => {
  const run = await runConversation(conversation, { variant: 'session', retriever: standInRetriever });
  t.regex(run.retriever, /stand-in/);
  t.is(run.topics, 3);
  const pottery = run.questions.find((q) => q.id === 'conv-T1#2')!;
  t.is(pottery.metrics['any@1'], 1); // "What did Bo start?" → session 2 ("I started pottery classes")
  t.true(run.questions.every((q) => q.returned > 0));
});

test('auto prefers brv.query, falls back only when it is missing', async (t) => {
  const typed = { retrieval: { query: async (request: { question: string }) => result([request.question]) } } as unknown as Brv;
  t.is(brvRetriever(typed)?.name, 'brv.retrieval.query');
  t.deepEqual((await brvRetriever(typed)!.query('x', { limit: 5 })).matchedDocs.length, 1, 'the question reaches the typed request');
  const withQuery = { query: async () => result(['x']) } as unknown as Brv;
  t.is(brvRetriever(withQuery)?.name, 'brv.query');
  t.is((await preferBrv(async () => fixed([]))(withQuery)).name, 'brv.query');
  const without = {} as unknown as Brv;
  t.is(brvRetriever(without), undefined);
  t.is((await preferBrv(async () => fixed([]))(without)).name, 'fake');
  await t.throwsAsync(preferBrv()(without), { message: /Brv\.query does not exist/ });
});

test("this checkout's query answers in the shape the bench scores (npm run bench:locomo uses it)", async (t) => {
  const run = await runConversation(conversation, {
    variant: 'turn',
    retriever: async (brv) => brvRetriever(brv) ?? fixed([]),
  });
  t.is(run.retriever, 'brv.retrieval.query', 'the bench finds the service query, not a stand-in');
  t.true(run.questions.some((q) => q.returned > 0));
  t.true(run.questions.every((q) => q.returned <= 50));
});
