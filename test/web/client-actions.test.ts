// The action pages' view models (src/web/client/actions.ts) and their addresses (routes.ts): pure, no DOM.
import test from 'ava';
import {
  answerPieces,
  readAsk,
  readCheck,
  readProviders,
  refusalProblems,
  startValues,
  summarizeCreated,
  summarizeMerge,
} from '../../src/web/client/actions.js';
import { parseRoute, routeHref } from '../../src/web/client/routes.js';

test('an answer’s citations become links only for the paths the server says were cited', (t) => {
  t.deepEqual(answerPieces('Monthly [security/auth]; see [a, ops/x] and [1].', ['security/auth', 'ops/x']), [
    { type: 'text', text: 'Monthly [' },
    { type: 'cite', path: 'security/auth', source: '' },
    { type: 'text', text: ']; see [a, ops/x] and [1].' },
  ]);
  t.deepEqual(answerPieces('Both [ops/x, team:ops/y.html].', ['ops/x', 'team:ops/y']), [
    { type: 'text', text: 'Both [' },
    { type: 'cite', path: 'ops/x', source: '' },
    { type: 'text', text: ', ' },
    { type: 'cite', path: 'ops/y', source: 'team' },
    { type: 'text', text: '].' },
  ]);
  t.deepEqual(answerPieces('No citations.', []), [{ type: 'text', text: 'No citations.' }]);
});

test('answers read defensively: a missing model is a note, odd fields are empty, never a crash', (t) => {
  const view = readAsk({
    question: 'q',
    answer: null,
    citations: ['a', 3],
    topics: [{ path: 'a', title: '', score: 'x' }, null],
    model: null,
    note: { kind: 'no-provider', message: 'Connect one.' },
  });
  t.is(view.answer, null);
  t.deepEqual(view.citations, ['a']);
  t.deepEqual(view.topics[0], { path: 'a', title: 'a', score: 0, excerpt: '', source: '' });
  t.is(view.model, '');
  t.deepEqual(view.note, { kind: 'no-provider', message: 'Connect one.' });
  t.is(readAsk('nonsense').topics.length, 0);
  t.deepEqual(readCheck({ gap: null, errors: [{ kind: 'invalid-path', message: 'bad', line: 2 }] }).errors, ['invalid-path: bad (line 2)']);
  t.deepEqual(refusalProblems({ errors: [{ kind: 'k', message: 'm' }] }), ['k: m']);
  t.deepEqual(startValues('ops').path, 'ops/');
  t.regex(summarizeCreated({ status: 'written', path: 'ops/x', review: { id: 'r1', gated: true } }).text, /held for review r1/);
  t.is(
    summarizeMerge('exp', { status: 'merged', conflicts: ['a'], review: { id: 'r2' } }),
    'Merged exp; 1 topic kept both versions for review r2: a.',
  );
  const providers = readProviders({
    providers: [{ id: 'openai', key: { from: 'file', source: 'credentials file' }, connected: true }],
    active: { provider: 'openai', model: 'm', from: 'env' },
  });
  t.like(providers, { active: 'openai · m', fromEnv: true });
  t.is(providers.providers[0]!.key, 'credentials file');
});

test('the new pages have addresses: /new (with a folder), /ask?q=…, /dream', (t) => {
  t.deepEqual(parseRoute('/new', '?folder=ops'), { page: 'new', folder: 'ops' });
  t.deepEqual(parseRoute('/ask', '?q=rate%20limits'), { page: 'ask', q: 'rate limits' });
  t.deepEqual(parseRoute('/dream'), { page: 'dream' });
  t.is(routeHref({ page: 'ask', q: 'a b' }), '/ask?q=a+b');
  t.is(routeHref({ page: 'new', folder: '' }), '/new');
  t.is(routeHref({ page: 'dream' }), '/dream');
});
