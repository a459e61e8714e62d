import test from 'ava';
import type { SegmentInput } from '../../src/index/document.js';
import { questionWords } from '../../src/search/question.js';
import { search } from '../../src/search/search.js';
import { buildSegment, Segment } from '../../src/index/segment.js';

const terms = (question: string) => questionWords(question).map((w) => w.term);

test('the word an interrogative phrase needs is not a query term', (t) => {
  t.deepEqual(terms('What kind of art does Caroline make?'), ['art', 'carolin', 'make']);
  t.deepEqual(terms('Which types of pottery has she made?'), ['potteri', 'made']);
  t.deepEqual(terms('what sort of music'), ['music']);
  t.deepEqual(terms('How long has Nate had turtles?'), ['nate', 'turtl']);
  t.deepEqual(terms('How many times has Melanie gone to the beach?'), ['melani', 'gone', 'beach']);
  t.deepEqual(terms('How often does John run, and how far?'), ['john', 'run']);
  t.deepEqual(terms('How much time did the migration take?'), ['migrat', 'take']);
});

test('the same words elsewhere in a question stay query terms', (t) => {
  t.deepEqual(terms('Is Caroline kind to animals?'), ['carolin', 'kind', 'anim']);
  t.deepEqual(terms('What did she say about a long trip?'), ['long', 'trip']);
  t.deepEqual(terms('Which type annotations fail?'), ['type', 'annot', 'fail']);
  t.deepEqual(terms('How many retries before the job times out?'), ['retri', 'befor', 'job', 'time', 'out']);
  t.deepEqual(terms('kind of blue'), ['kind', 'blue']);
  // the originals are the words as typed
  t.deepEqual(
    questionWords('What kind of Art?').map((w) => w.original),
    ['Art'],
  );
});

test('search: "what kind of" does not rank text about kind words first', (t) => {
  let n = 0;
  const doc = (path: string, body: string): SegmentInput => ({
    path,
    title: path,
    blob: (++n).toString(16).padStart(40, '0'),
    fields: { title: path, path: path.replace('/', ' '), meta: '', key: '', body },
    dates: [],
    kinds: [],
  });
  const stack = {
    segments: [
      Segment.open(
        buildSegment([
          doc('a/thanks', 'Thanks for your kind words about the art show, so kind'),
          doc('b/paint', 'Caroline paints abstract art on canvas'),
          doc('c/x', 'other'),
        ]),
      ),
    ],
    deleted: new Set<string>(),
  };
  const hits = search(stack, 'What kind of art does Caroline make?').hits;
  t.is(hits[0]!.path, 'b/paint');
  t.deepEqual(hits[1]!.matched.terms, ['art']);
  t.deepEqual(search(stack, 'What kind of art does Caroline make?', { question: false }).hits[0]!.path, 'a/thanks');
});
