import test from 'ava';
import type { SegmentInput } from '../../src/index/document.js';
import { documentTerms } from '../../src/search/feedback.js';
import { search } from '../../src/search/search.js';
import { buildSegment, Segment } from '../../src/index/segment.js';
import type { SegmentStack } from '../../src/index/stack.js';

let counter = 0;
function doc(path: string, body: string, title = path): SegmentInput {
  return {
    path,
    title,
    blob: (++counter).toString(16).padStart(40, '0'),
    fields: { title, path: path.split(/[/_-]+/).join(' '), meta: '', key: '', body },
    dates: [],
    kinds: [],
  };
}

const stackOf = (docs: SegmentInput[]): SegmentStack => ({ segments: [Segment.open(buildSegment(docs))], deleted: new Set() });

// Fillers share only common words with each other and nothing with the pets.
const fillers = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    doc(`notes/n${String(i).padStart(3, '0')}`, `plain notes ${i} about gadgets and widgets in the workshop`, `Note ${i}`),
  );
const pets = [
  doc('pets/oliver', 'Melanie adopted a cat named Oliver from the shelter; Oliver naps in the garden.'),
  doc('pets/luna', 'Luna and Oliver chase each other around the garden every morning.'),
  doc('pets/bowl', 'A new bowl for the cat.'),
];

test('feedback brings in a topic that shares no query word with the question but shares words with its best hits', (t) => {
  const stack = stackOf([...pets, ...fillers(120)]);
  const withFeedback = search(stack, 'Melanie cat', { limit: 10 });
  const paths = withFeedback.hits.map((h) => h.path);
  t.is(paths[0], 'pets/oliver');
  t.true(paths.includes('pets/luna'), paths.join(' '));
  // it follows every topic that matches the question itself, and no query word is reported for it
  t.true(paths.indexOf('pets/luna') > paths.indexOf('pets/bowl'));
  t.deepEqual(withFeedback.hits.find((h) => h.path === 'pets/luna')!.matched, { terms: [], fields: [] });
  t.is(withFeedback.totalFound, 3);

  const without = search(stack, 'Melanie cat', { limit: 10, feedback: false });
  t.deepEqual(
    without.hits.map((h) => h.path),
    ['pets/oliver', 'pets/bowl'],
  );
  t.is(without.totalFound, 2);
  // the first pass's order of the direct matches is kept
  t.deepEqual(
    paths.filter((p) => p !== 'pets/luna'),
    ['pets/oliver', 'pets/bowl'],
  );
});

test('feedback is off in a small tree (its top hits would be much of it) and tunable', (t) => {
  const small = stackOf([...pets, ...fillers(20)]);
  t.deepEqual(search(small, 'Melanie cat').hits, search(small, 'Melanie cat', { feedback: false }).hits);
  // docsRatio 1 allows it anyway; weight scales the expansion terms
  const forced = search(small, 'Melanie cat', { feedback: { docsRatio: 1, maxDfRatio: 0.5 } });
  t.true(forced.hits.some((h) => h.path === 'pets/luna'));
  const large = stackOf([...pets, ...fillers(120)]);
  const light = search(large, 'Melanie cat', { feedback: { weight: 0.1 } }).hits.find((h) => h.path === 'pets/luna')!;
  const heavy = search(large, 'Melanie cat', { feedback: { weight: 2 } }).hits.find((h) => h.path === 'pets/luna')!;
  t.true(heavy.score > light.score * 10);
  t.deepEqual(search(large, 'Melanie cat', { feedback: { terms: 0 } }).hits, search(large, 'Melanie cat', { feedback: false }).hits);
});

test('feedback never expands with terms in most topics: filler words do not pull fillers in', (t) => {
  const stack = stackOf([...pets, doc('pets/gadget', 'The cat knocked a gadget off the shelf.'), ...fillers(120)]);
  // "gadget" is in every filler: too common to expand with, however prominent in the best hit.
  const paths = search(stack, 'cat shelf', { limit: 50 }).hits.map((h) => h.path);
  t.is(paths[0], 'pets/gadget');
  t.false(
    paths.some((p) => p.startsWith('notes/')),
    paths.join(' '),
  );
});

test('documentTerms: a one-off read and the cached inversion agree; the budget leaves out the most frequent terms', (t) => {
  const docs = [...pets, ...fillers(60)];
  const segment = Segment.open(buildSegment(docs));
  const weights = Float64Array.from([3, 1.5, 2, 1.5, 1]);
  const wanted = [segment.findPath('pets/luna'), segment.findPath('pets/oliver'), segment.findPath('notes/n007')];
  const read = (budget?: number) =>
    documentTerms(segment, wanted, weights, 2, 1000, budget).map(({ terms, tf }) =>
      [...terms].map((rank, i) => `${segment.term(rank)}:${tf[i]}`).sort(),
    );
  const first = read(); // reads the postings of these documents only
  const second = read(); // inverts the segment and keeps it
  t.deepEqual(first, second);
  // "luna" is in one document only; "pets" is in the title (3) and the path (1.5); stems are terms
  t.deepEqual(first[0], ['garden:1', 'oliv:1', 'pet:4.5']);
  t.true(first[2]!.includes('gadget:1'));
  // 60 documents have "gadget", "widget", …; "pet" 3, "cat", "garden", "oliv" 2: a budget of 10 postings keeps df ≤ 3.
  const budgeted = read(10);
  t.deepEqual(budgeted[0], ['garden:1', 'oliv:1', 'pet:4.5']);
  t.deepEqual(budgeted[2], []);
});

test('feedback learns nothing from long hits (a long topic is about many things), and the limit is tunable', (t) => {
  // The same pets, each padded to a long topic with words of its own: the hits are now ~400 words.
  const padding = (tag: string) => Array.from({ length: 400 }, (_, i) => `${tag}word${i % 97}`).join(' ');
  const longPets = [
    doc('pets/oliver', `Melanie adopted a cat named Oliver from the shelter; Oliver naps in the garden. ${padding('a')}`),
    doc('pets/luna', `Luna and Oliver chase each other around the garden every morning. ${padding('b')}`),
    doc('pets/bowl', `A new bowl for the cat. ${padding('c')}`),
  ];
  const stack = stackOf([...longPets, ...fillers(120)]);
  const paths = (options = {}) => search(stack, 'Melanie cat', { limit: 10, ...options }).hits.map((h) => h.path);
  t.deepEqual(paths(), ['pets/oliver', 'pets/bowl']);
  t.deepEqual(paths(), paths({ feedback: false }));
  // With the limit raised past their length, the long hits expand the query as the short ones do.
  t.true(paths({ feedback: { maxMeanLength: 10_000 } }).includes('pets/luna'));
});
