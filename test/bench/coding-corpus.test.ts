import test from 'ava';
import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import '../helpers/repo.js'; // pinned git environment for the in-process library calls
import {
  CODING_CATEGORIES,
  loadCodingCorpus,
  type CodingQuestion,
  missingJudgments,
  parseQuestions,
  splitQuestions,
} from '../../bench/lib/coding-data.js';
import { formatGradedAblation, formatGradedTable } from '../../bench/lib/coding-report.js';
import { returnedTopics, runProject } from '../../bench/lib/coding-run.js';
import { aggregateGraded, gradedNdcgAt, scoreGraded, type Judgments } from '../../bench/lib/graded-metrics.js';
import type { QueryResult, Retriever } from '../../bench/lib/locomo-query.js';
import { validateTopicHtml } from '../../src/topic/index.js';
import { openBrv } from '../helpers/service.js';

const corpus = await loadCodingCorpus();

test('the corpus loads: 2–3 projects, 150–250 topics, 200–300 questions in every category', (t) => {
  t.true(corpus.projects.length >= 2 && corpus.projects.length <= 3);
  const topics = corpus.projects.reduce((sum, p) => sum + p.topics.length, 0);
  t.true(topics >= 150 && topics <= 250, `${topics} topics`);
  t.true(corpus.questions.length >= 200 && corpus.questions.length <= 300, `${corpus.questions.length} questions`);
  for (const category of CODING_CATEGORIES)
    t.true(
      corpus.questions.some((q) => q.category === category),
      category,
    );
  for (const q of corpus.questions)
    t.true(
      corpus.projects.some((p) => p.name === q.project),
      q.id,
    );
});

test('every judged path is a topic of its project', (t) => {
  t.deepEqual(missingJudgments(corpus), []);
});

test('every topic passes brv validation and its path attribute is its file path', async (t) => {
  for (const project of corpus.projects) {
    for (const topicPath of project.topics) {
      const html = await readFile(path.join(project.directory, `${topicPath}.html`), 'utf8');
      const validation = validateTopicHtml(html);
      t.true(validation.ok, `${project.name}/${topicPath}`);
      t.regex(html, new RegExp(`<bv-topic\\s+path="${topicPath}"`), `${project.name}/${topicPath}`);
    }
  }
});

test('every project would import cleanly through brv (dry run: no problem, skip or repair)', async (t) => {
  const work = await mkdtemp(path.join(tmpdir(), 'brv-coding-test-'));
  try {
    await execa('git', ['init', '-q', work]);
    const brv = await openBrv(work);
    try {
      for (const project of corpus.projects) {
        const result = await brv.knowledge.importTree({ directory: project.directory, dryRun: true }, {});
        t.true(result.ok, project.name);
        t.deepEqual([result.problems, result.skipped, result.repaired], [[], [], []], project.name);
        t.is(result.added.length, project.topics.length, project.name);
      }
    } finally {
      brv.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

test('the runner imports a project for real and asks each question once per ranking', async (t) => {
  const asked: Array<string | undefined> = [];
  const retriever: Retriever = {
    name: 'fake',
    query: async (question, options) => {
      asked.push(`${question} ${JSON.stringify(options.ranking)}`);
      return { status: 'no-matches', matchedDocs: [], metadata: { durationMs: 0, totalFound: 0, topScore: 0 } };
    },
  };
  const project = [...corpus.projects].sort((a, b) => a.topics.length - b.topics.length)[0]!;
  const questions = corpus.questions.filter((q) => q.project === project.name).slice(0, 2);
  const run = await runProject(project, questions, { retriever: async () => retriever, rankings: [undefined, { feedback: false }] }); // throws on an unclean import
  t.is(run.topics, project.topics.length);
  t.deepEqual(
    run.questionsByRanking.map((r) => r.map((q) => q.id)),
    [questions.map((q) => q.id), questions.map((q) => q.id)],
  );
  t.is(asked.length, 4);
  t.is(run.questionsByRanking[0]![0]!.metrics.mrr, 0);
});

test('the runner refuses a project whose import is not clean', async (t) => {
  const directory = await mkdtemp(path.join(tmpdir(), 'brv-coding-bad-'));
  try {
    await mkdir(path.join(directory, 'auth'));
    await writeFile(path.join(directory, 'auth/ok.html'), '<bv-topic path="auth/ok" title="Ok"><bv-rule>Fine.</bv-rule></bv-topic>');
    await writeFile(path.join(directory, 'auth/bad.html'), '<bv-topic path="auth/bad" title="Bad"><bv-nonsense>x</bv-nonsense></bv-topic>');
    const never: Retriever = { name: 'never', query: async () => t.fail('no question may be asked') as never };
    await t.throwsAsync(runProject({ name: 'bad', directory, topics: ['auth/bad', 'auth/ok'] }, [], { retriever: async () => never }), {
      message: /bad: import not clean/,
    });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('split: even-indexed questions of each (project, category) tune, odd-indexed validate; deterministic, disjoint, covering', (t) => {
  const tune = splitQuestions(corpus.questions, 'tune');
  const validate = splitQuestions(corpus.questions, 'validate');
  t.deepEqual(splitQuestions(corpus.questions, 'tune'), tune);
  const ids = new Set(tune.map((q) => q.id));
  t.false(validate.some((q) => ids.has(q.id)));
  t.is(tune.length + validate.length, corpus.questions.length);
  for (const project of corpus.projects) {
    for (const category of CODING_CATEGORIES) {
      const group = corpus.questions.filter((q) => q.project === project.name && q.category === category);
      t.deepEqual(
        tune.filter((q) => q.project === project.name && q.category === category),
        group.filter((_, i) => i % 2 === 0),
      );
    }
  }
  const q = (id: string, project: string, category: string) =>
    ({ id, project, category, question: '', relevant: { x: 2 } }) as CodingQuestion;
  const tiny = [q('1', 'a', 'why'), q('2', 'a', 'lookup'), q('3', 'a', 'why'), q('4', 'b', 'why'), q('5', 'a', 'lookup')];
  t.deepEqual(
    splitQuestions(tiny, 'tune').map((x) => x.id),
    ['1', '2', '4'],
  );
  t.deepEqual(
    splitQuestions(tiny, 'validate').map((x) => x.id),
    ['3', '5'],
  );
});

test('questions.jsonl is checked: unknown category, duplicate id, no grade-2 topic', (t) => {
  const line = (o: object) => JSON.stringify({ id: 'a', project: 'p', category: 'lookup', question: 'q?', relevant: { x: 2 }, ...o });
  t.is(parseQuestions(line({})).length, 1);
  t.throws(() => parseQuestions(line({ category: 'trivia' })), { message: /unknown category/ });
  t.throws(() => parseQuestions(`${line({})}\n${line({})}`), { message: /duplicate id/ });
  t.throws(() => parseQuestions(line({ relevant: { x: 1 } })), { message: /grade-2/ });
});

test('graded metrics give known figures on a hand-made case', (t) => {
  const judgments: Judgments = { a: 2, b: 2, c: 1 };
  const returned = ['x', 'a', 'c', 'y', 'z', 'b'].map((p) => ({ path: p, words: 100 }));
  const m = scoreGraded(judgments, returned);
  t.is(m['recall@1'], 0);
  t.is(m['recall@3'], 1);
  t.is(m['recall_all@5'], 0); // b is 6th
  t.is(m.mrr, 0.5);
  t.is(m['budget@500'], 1); // x, a fit in 500 words
  t.is(
    scoreGraded(
      judgments,
      returned.map((r) => ({ ...r, words: 400 })),
    )['budget@500'],
    0,
  ); // only x fits
  // DCG = 2/log2(3) + 1/log2(4) + 2/log2(7); IDCG = 2/log2(2) + 2/log2(3) + 1/log2(4)
  const dcg = 2 / Math.log2(3) + 1 / 2 + 2 / Math.log2(7);
  const idcg = 2 + 2 / Math.log2(3) + 1 / 2;
  t.true(Math.abs(m['ndcg@10'] - dcg / idcg) < 1e-12);
  t.is(gradedNdcgAt(judgments, ['a', 'b', 'c'], 10), 1);
  // A grade-1 topic alone is not a hit.
  t.is(scoreGraded({ a: 2, c: 1 }, [{ path: 'c', words: 1 }])['recall@10'], 0);

  const groups = aggregateGraded(
    [
      { category: 'lookup', metrics: m, latencyMs: 1 },
      { category: 'lookup', metrics: scoreGraded(judgments, [{ path: 'a', words: 1 }]), latencyMs: 3 },
      { category: 'why', metrics: scoreGraded(judgments, []), latencyMs: 2 },
    ],
    ['lookup', 'why'],
  );
  t.deepEqual(
    groups.map((g) => [g.key, g.n, g.means['recall@1'], g.means.mrr]),
    [
      ['lookup', 2, 0.5, 0.75],
      ['why', 1, 0, 0],
      ['overall', 3, 1 / 3, 0.5],
    ],
  );
  const table = formatGradedTable(groups).split('\n');
  t.regex(table[0]!, /^\| category \| n \| R@1 \| R@3 \| R@5 \| R@10 \| all@5 \| MRR \| NDCG@10 \|/);
  t.regex(table[2]!, /^\| lookup \| 2 \| 50\.0 \| 100\.0 \|.* 0\.750 \|/);
  const ablation = formatGradedAblation(
    [{ label: 'r0', questions: [{ category: 'why', metrics: m, latencyMs: 0 }] }],
    ['why'],
    [{ metric: 'mrr', label: 'MRR' }],
  );
  t.is(ablation.split('\n')[2], '| r0 | 0.500 | 0.500 |');
});

test('returned topics: topicPath or file path without .html, duplicates once', (t) => {
  const result: QueryResult = {
    status: 'ok',
    matchedDocs: [
      { path: 'auth/tokens.html', topicPath: 'auth/tokens', title: '', score: 2, format: 'html', rendered_md: 'one two three' },
      { path: 'auth/keys.html', title: '', score: 1, format: 'html', rendered_md: '# x' },
      { path: 'auth/tokens.html', topicPath: 'auth/tokens', title: '', score: 1, format: 'html', rendered_md: '' },
    ],
    metadata: { durationMs: 0, totalFound: 3, topScore: 2 },
  };
  t.deepEqual(returnedTopics(result), [
    { path: 'auth/tokens', words: 3 },
    { path: 'auth/keys', words: 1 },
  ]);
});
