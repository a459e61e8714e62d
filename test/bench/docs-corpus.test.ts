import test from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadCodingCorpus, missingJudgments, splitQuestions } from '../../bench/lib/coding-data.js';
import { pairedInterval } from '../../bench/lib/paired.js';
import { validateTopicHtml } from '../../src/topic/index.js';

// fixtures/docs-corpus/README.md: long documents and personal notes, questions frozen before any ranking ran.
const corpus = await loadCodingCorpus(path.resolve('fixtures/docs-corpus'));
const [project] = corpus.projects;

test('the docs corpus names itself and loads: one repository, 40–80 documents, notes, 100–200 questions', (t) => {
  t.is(corpus.name, 'docs');
  t.deepEqual(corpus.categories, ['passage', 'advice']);
  t.is(corpus.projects.length, 1);
  const documents = project!.topics.filter((p) => !p.startsWith('notes/'));
  t.true(documents.length >= 40 && documents.length <= 80, `${documents.length} documents`);
  t.true(project!.topics.length - documents.length >= 8, 'personal notes');
  t.true(corpus.questions.length >= 100 && corpus.questions.length <= 200);
  t.deepEqual(missingJudgments(corpus), []);
});

test('passage questions judge one document and cover them all; advice questions are answered by notes', (t) => {
  const documents = new Set<string>();
  for (const q of corpus.questions) {
    const answering = Object.entries(q.relevant)
      .filter(([, grade]) => grade === 2)
      .map(([p]) => p);
    if (q.category === 'passage') {
      t.is(answering.length, 1, q.id);
      t.false(answering[0]!.startsWith('notes/'), q.id);
      documents.add(answering[0]!);
    } else {
      t.true(answering.length > 0 && answering.every((p) => p.startsWith('notes/')), q.id);
    }
  }
  t.is(documents.size, project!.topics.filter((p) => !p.startsWith('notes/')).length);
});

test('the halves split every category about evenly and together are the whole', (t) => {
  const [tune, validate] = [splitQuestions(corpus.questions, 'tune'), splitQuestions(corpus.questions, 'validate')];
  t.is(tune.length + validate.length, corpus.questions.length);
  for (const category of corpus.categories) {
    const [a, b] = [tune, validate].map((half) => half.filter((q) => q.category === category).length);
    t.true(Math.abs(a! - b!) <= 1, category);
  }
});

test('every topic validates and its path attribute is its file path', async (t) => {
  for (const topicPath of project!.topics) {
    const html = await readFile(path.join(project!.directory, `${topicPath}.html`), 'utf8');
    t.true(validateTopicHtml(html).ok, topicPath);
    t.regex(html, new RegExp(`<bv-topic\\s+path="${topicPath}"`), topicPath);
  }
});

test('pairedInterval: the t interval of paired differences', (t) => {
  const ids = ['a', 'b', 'c', 'd'];
  const tied = pairedInterval(ids, new Map(ids.map((id) => [id, 1])), new Map(ids.map((id) => [id, 1])));
  t.deepEqual(tied, { n: 4, mean: 0, low: 0, high: 0 });
  // differences 1, 0, 0, 1: mean 0.5, sd 0.577, t(3) 3.182 → ± 0.919
  const a = new Map([
    ['a', 1],
    ['b', 1],
    ['c', 0],
    ['d', 1],
  ]);
  const b = new Map([
    ['a', 0],
    ['b', 1],
    ['c', 0],
    ['d', 0],
    ['e', 1],
  ]);
  const interval = pairedInterval([...ids, 'e'], a, b);
  t.is(interval.n, 4);
  t.is(interval.mean, 0.5);
  t.true(Math.abs(interval.high - 1.419) < 0.001 && Math.abs(interval.low + 0.419) < 0.001, JSON.stringify(interval));
});
