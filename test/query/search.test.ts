import test from 'ava';
import { FIELDS, type SegmentInput } from '../../src/index/document.js';
import { search, type SearchOptions } from '../../src/search/search.js';
import { buildSegment, Segment } from '../../src/index/segment.js';
import type { SegmentStack } from '../../src/index/stack.js';

let counter = 0;
function doc(path: string, fields: Partial<Record<(typeof FIELDS)[number], string>>, extra: Partial<SegmentInput> = {}): SegmentInput {
  const title = fields.title ?? path;
  return {
    path,
    title,
    blob: (++counter).toString(16).padStart(40, '0'),
    fields: {
      title,
      path: path.split(/[/_-]+/).join(' '),
      meta: fields.meta ?? '',
      key: fields.key ?? '',
      body: fields.body ?? 'filler text about nothing in particular',
    },
    dates: [],
    kinds: [],
    ...extra,
  };
}

function stackOf(docs: SegmentInput[]): SegmentStack {
  return { segments: [Segment.open(buildSegment(docs))], deleted: new Set() };
}

const paths = (stack: SegmentStack, query: string, options?: SearchOptions) => search(stack, query, options).hits.map((h) => h.path);

test('a title match beats a body match', (t) => {
  const stack = stackOf([
    doc('a/body', { title: 'Caching layer', body: 'We put redis in front of the database for the caching layer.' }),
    doc('b/title', { title: 'Redis', body: 'We put a cache in front of the database for the caching layer.' }),
    doc('c/other', { title: 'Other', body: 'Nothing to see.' }),
  ]);
  const result = search(stack, 'redis');
  t.deepEqual(
    result.hits.map((h) => h.path),
    ['b/title', 'a/body'],
  );
  t.is(result.totalFound, 2);
  t.true(result.hits[0]!.score > result.hits[1]!.score);
  t.deepEqual(result.hits[0]!.matched, { terms: ['redis'], fields: ['title'] });
  t.deepEqual(result.hits[1]!.matched, { terms: ['redis'], fields: ['body'] });
});

test('matching more query terms ranks higher, and a one-term match is never dropped', (t) => {
  const stack = stackOf([
    doc('a/heavy', { title: 'JWT', body: 'jwt jwt jwt jwt signing with jwt libraries and jwt claims' }),
    doc('b/both', { title: 'Sessions', body: 'the jwt is exchanged using a refresh token' }),
    doc('c/page', { title: 'Page refresh', body: 'refresh the page' }),
    ...Array.from({ length: 20 }, (_, i) => doc(`z/filler${i}`, { body: `unrelated topic number ${i}` })),
  ]);
  const result = search(stack, 'jwt refresh');
  t.is(result.hits[0]!.path, 'b/both');
  t.deepEqual(result.hits[0]!.matched.terms, ['jwt', 'refresh']);
  t.deepEqual(result.hits.map((h) => h.path).sort(), ['a/heavy', 'b/both', 'c/page']);
  t.is(result.totalFound, 3);
});

test('no out-of-domain cutoff: the only relevant topic comes back for a long, mostly unknown query', (t) => {
  const stack = stackOf([
    doc('ops/frobnicator', { title: 'Deploy notes', body: 'The frobnicator runs as a sidecar.' }),
    ...Array.from({ length: 80 }, (_, i) => doc(`z/n${i}`, { body: `plain prose ${i} about widgets and gadgets` })),
  ]);
  const result = search(stack, 'how would I configure the quantum zebra frobnicator under heavy load');
  t.deepEqual(
    result.hits.map((h) => h.path),
    ['ops/frobnicator'],
  );
  t.deepEqual(result.hits[0]!.matched.terms, ['frobnicator']);
});

test('scope keeps a path and what is below it, not its siblings', (t) => {
  const docs = ['api', 'api-gateway/limits', 'api.v2/notes', 'api/auth', 'api/auth/jwt', 'apix/auth', 'auth/api'].map((p) =>
    doc(p, { body: 'auth tokens here' }),
  );
  const stack = stackOf(docs);
  t.deepEqual(paths(stack, 'auth tokens', { scope: 'api' }).sort(), ['api', 'api/auth', 'api/auth/jwt']);
  t.deepEqual(paths(stack, 'auth tokens', { scope: 'api/' }).sort(), ['api', 'api/auth', 'api/auth/jwt']);
  t.deepEqual(paths(stack, 'auth tokens', { scope: 'api/auth' }).sort(), ['api/auth', 'api/auth/jwt']);
  t.deepEqual(paths(stack, 'auth tokens', { scope: 'nothing' }), []);
  t.is(search(stack, 'auth tokens', { scope: 'api' }).totalFound, 3);
  // statistics stay global: a scoped score equals the unscoped score of the same topic
  const scoped = search(stack, 'auth', { scope: 'api/auth' }).hits[0]!;
  t.is(search(stack, 'auth', { limit: 100 }).hits.find((h) => h.path === scoped.path)!.score, scoped.score);
});

test('the last word is prefix-expanded when it has no exact match', (t) => {
  const stack = stackOf([
    doc('infra/k8s', { body: 'We deploy on kubernetes clusters.' }),
    doc('security/authz', { body: 'Authorization decides; authentication identifies.' }),
    doc('misc/kubelet', { body: 'The kubelet agent.' }),
  ]);
  t.deepEqual(paths(stack, 'kubern'), ['infra/k8s']);
  t.deepEqual(paths(stack, 'kube').sort(), ['infra/k8s', 'misc/kubelet']);
  t.deepEqual(
    search(stack, 'auth').hits.map((h) => h.matched.terms),
    [['auth']],
  );
  t.deepEqual(paths(stack, 'ku'), []); // too short
  t.deepEqual(paths(stack, 'kubern agent'), ['misc/kubelet']); // only the last word is a prefix
  t.deepEqual(paths(stack, 'kubern', { prefix: false }), []);
  // a partial word longer than the stem of its word still finds it
  const partial = stackOf([doc('a/one', { body: 'Observability of rotation' }), doc('a/two', { body: 'obituary' })]);
  t.deepEqual(paths(partial, 'observab'), ['a/one']);
  t.deepEqual(paths(partial, 'rotati'), ['a/one']);
  t.deepEqual(paths(partial, 'obs'), ['a/one']); // forward from the word as typed ("observ"), not its stem "ob"
  t.deepEqual(paths(partial, 'obituaries'), ['a/two']); // the stem matches exactly
  t.deepEqual(paths(partial, 'obx'), []);
  // an exact match turns expansion off
  const withExact = stackOf([doc('a/auth', { body: 'auth' }), doc('b/authz', { body: 'authorization' })]);
  t.deepEqual(paths(withExact, 'auth'), ['a/auth']);
});

test('ties are broken by path, also at the limit', (t) => {
  const docs = ['d/4', 'b/2', 'a/1', 'c/3', 'e/5'].map((p) => doc(p, { title: 'same', body: 'identical body text' }));
  const stack = stackOf(docs);
  const result = search(stack, 'identical body', { limit: 3 });
  t.deepEqual(
    result.hits.map((h) => h.path),
    ['a/1', 'b/2', 'c/3'],
  );
  t.is(new Set(result.hits.map((h) => h.score)).size, 1);
  t.is(result.totalFound, 5);
});

test('field weights are options; a zero weight ignores a field', (t) => {
  const stack = stackOf([
    doc('a/t', { title: 'Webhooks', body: 'other words' }),
    doc('b/b', { title: 'Other', body: 'webhooks fire on payment' }),
  ]);
  t.deepEqual(paths(stack, 'webhooks'), ['a/t', 'b/b']);
  t.deepEqual(paths(stack, 'webhooks', { fields: { title: 0 } }), ['b/b']);
  t.deepEqual(paths(stack, 'webhooks', { fields: { title: 0.1, body: 10 } }), ['b/b', 'a/t']);
});

test('kind and date filters', (t) => {
  const stack = stackOf([
    doc('a/1', { body: 'deploy steps' }, { kinds: ['bv-rule'], dates: ['2024-01-10'] }),
    doc('a/2', { body: 'deploy steps' }, { kinds: ['bv-bug', 'bv-fix'], dates: ['2025-06-01'] }),
    doc('a/3', { body: 'deploy steps' }),
  ]);
  t.deepEqual(paths(stack, 'deploy', { kinds: ['bv-fix', 'bv-decision'] }), ['a/2']);
  t.deepEqual(paths(stack, 'deploy', { since: '2025-01-01' }), ['a/2']);
  t.deepEqual(paths(stack, 'deploy', { until: '2024-12-31' }), ['a/1']);
  t.is(search(stack, 'deploy', { since: '2024-01-01', until: '2025-12-31' }).totalFound, 2);
});

test('empty, stop-word-only and unknown queries return nothing', (t) => {
  const stack = stackOf([doc('a/1', { body: 'content' })]);
  for (const q of ['', '   ', 'the and of', 'zzzzqqq']) t.deepEqual(search(stack, q), { hits: [], totalFound: 0 }, q);
  t.deepEqual(search({ segments: [], deleted: new Set() }, 'content'), { hits: [], totalFound: 0 });
  t.deepEqual(search(stack, 'content', { limit: 0 }), { hits: [], totalFound: 1 });
});

test('hits carry title, blob and the query words as typed', (t) => {
  const d = doc('sec/jwt', { title: 'JWT Rotation', meta: 'security', body: 'Rotating signing keys' });
  const hit = search(stackOf([d]), 'Rotating JWTs security');
  t.is(hit.hits.length, 1);
  t.like(hit.hits[0], { path: 'sec/jwt', title: 'JWT Rotation', blob: d.blob });
  t.deepEqual(hit.hits[0]!.matched.terms, ['Rotating', 'JWTs', 'security']);
  t.deepEqual(hit.hits[0]!.matched.fields, ['title', 'path', 'meta', 'body']);
});

test('a query word in the path scores once more on its own (pathMatch), unless switched off', (t) => {
  // The topic the question names, by its path, against a longer one that mentions every word in passing.
  const stack = stackOf([
    doc('caching/stampede', { title: 'Expiry', body: 'Expiry is jittered so that one request refills a missing entry.' }),
    doc('notes/launch', {
      title: 'Launch notes',
      body: 'Notes from the launch week: a stampede of new merchant data arrived every day, more than support could read.',
    }),
    ...Array.from({ length: 8 }, (_, i) => doc(`filler/f${i}`, { body: `new merchant data, item ${i}` })),
  ]);
  const options: SearchOptions = { feedback: false };
  t.deepEqual(paths(stack, 'new stampede for merchant data', { ...options, pathMatch: 0 }).slice(0, 2), [
    'notes/launch',
    'caching/stampede',
  ]);
  t.deepEqual(paths(stack, 'new stampede for merchant data', options).slice(0, 2), ['caching/stampede', 'notes/launch']);
  // Only the path field counts: the same word in a title is not scored again.
  const titled = stackOf([doc('a/one', { title: 'stampede' }), doc('b/two', { title: 'other' })]);
  t.is(search(titled, 'stampede', { pathMatch: 0 }).hits[0]!.score, search(titled, 'stampede').hits[0]!.score);
});

test('neighbours: a neighbour of a query word adds uncounted weight; one in over a tenth of a large tree is skipped', (t) => {
  const table = { neighbours: (word: string) => (word === 'couch' ? [{ term: 'sofa', cosine: 0.7 }] : []) };
  const small = stackOf([doc('a/couch', { body: 'The couch is blue.' }), doc('b/sofa', { body: 'The sofa is red.' })]);
  t.deepEqual(paths(small, 'couch', { neighbours: { table } }), ['a/couch', 'b/sofa']);
  t.deepEqual(paths(small, 'couch'), ['a/couch']);
  t.deepEqual(paths(small, 'couch', { neighbours: { table, weight: 0 } }), ['a/couch']);
  const found = search(small, 'couch', { neighbours: { table } }).hits[1]!;
  t.deepEqual(found.matched.terms, [], 'a topic found through a neighbour matched no query word');

  // 600 topics, "sofa" in 61 of them: over both the floor (50) and a tenth of the tree (60).
  const docs = [doc('a/couch', { body: 'The couch is blue.' })];
  for (let i = 0; i < 600; i++) docs.push(doc(`f/${i}`, { body: i <= 60 ? 'The sofa is red.' : 'Nothing here.' }));
  t.deepEqual(paths(stackOf(docs), 'couch', { neighbours: { table } }), ['a/couch']);
  const under = docs.map((d, i) => (i > 55 && i <= 61 ? doc(`g/${i}`, { body: 'Nothing here.' }) : d)); // in 55 of 601
  t.is(paths(stackOf(under), 'couch', { neighbours: { table }, limit: 100 }).length, 56);
  t.is(paths(stackOf(docs.slice(0, 51)), 'couch', { neighbours: { table }, limit: 100 }).length, 51, 'in 50 of 51: the floor');
});
