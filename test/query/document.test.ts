import test from 'ava';
import { parseTopicHtml } from '../../src/topic/parse.js';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { dateInWords, datesIn, documentFromTopic } from '../../src/index/document.js';
import { fixture } from '../topic/fixtures.js';

function parsed(html: string) {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.topic;
}

test('documentFromTopic: fields, dates and kinds of the full vocabulary', (t) => {
  const topic = parsed(fixture('valid', 'full-vocabulary.html'));
  const doc = documentFromTopic(topic.path, topic.root);
  t.is(doc.path, 'security/auth');
  t.is(doc.title, 'Authentication and Authorization');
  t.is(doc.fields.title, 'Authentication and Authorization');
  t.is(doc.fields.path, 'security auth');
  for (const word of ['JWT access tokens', 'security', 'authentication', 'rs256', 'refresh', 'security/cookies', 'security/oauth'])
    t.true(doc.fields.meta.includes(word), word);
  t.false(doc.fields.meta.includes('.html'));
  // key: rules, decision, fact (with subject and value), bug, fix, highlights — not the reason or the task
  for (const text of [
    'MUST return 401',
    'Use RS256',
    'access_token_ttl',
    '15 minutes',
    'resurrected sessions',
    'revocation list',
    'Access tokens live',
  ])
    t.true(doc.fields.key.includes(text), text);
  t.false(doc.fields.key.includes('incident'));
  t.false(doc.fields.key.includes('verifyJwt'));
  // body: all text
  for (const text of ['incident', 'verifyJwt', 'jose', 'MUST return', 'sequenceDiagram']) t.true(doc.fields.body.includes(text), text);
  t.deepEqual(doc.dates, ['2026-04-15']);
  t.deepEqual(doc.kinds, [
    'bv-author',
    'bv-bug',
    'bv-changes',
    'bv-decision',
    'bv-dependencies',
    'bv-diagram',
    'bv-examples',
    'bv-fact',
    'bv-files',
    'bv-fix',
    'bv-flow',
    'bv-highlights',
    'bv-pattern',
    'bv-reason',
    'bv-rule',
    'bv-structure',
    'bv-task',
    'bv-timestamp',
  ]);
});

test('documentFromTopic: path segments split on / _ -', (t) => {
  const topic = parsed('<bv-topic path="api-gateway/rate_limits/per-tenant" title="Rate limits"><bv-reason>x</bv-reason></bv-topic>');
  const doc = documentFromTopic(topic.path, topic.root);
  t.is(doc.fields.path, 'api gateway rate limits per tenant');
  t.deepEqual(doc.kinds, ['bv-reason']);
  t.deepEqual(doc.dates, []);
  t.is(doc.fields.key, '');
  t.is(doc.fields.meta, '');
});

test('documentFromTopic: dates from <time datetime> and bv-timestamp prose', (t) => {
  // <time datetime> is in the topic vocabulary (issue 11); documents are made from any parsed root all the same.
  const root = parseTopicHtml(
    '<bv-topic path="a/b" title="T"><bv-reason>Seen on <time datetime="2024-03-05T10:00:00Z">Tuesday</time></bv-reason><bv-timestamp>5 March 2025, then 2025-02-30</bv-timestamp></bv-topic>',
  );
  const topic = root.children.find((c) => c.type === 'element');
  if (topic?.type !== 'element') throw new Error('no root');
  t.deepEqual(documentFromTopic('a/b', topic).dates, ['2024-03-05', '2025-03-05']);
});

test('datesIn normalises what it can parse and guesses nothing', (t) => {
  t.deepEqual(datesIn('2024-3-5'), ['2024-03-05']);
  t.deepEqual(datesIn('2024/03/05 and 2024.12.31'), ['2024-03-05', '2024-12-31']);
  t.deepEqual(datesIn('March 5, 2024'), ['2024-03-05']);
  t.deepEqual(datesIn('Sept. 1st 2023'), ['2023-09-01']);
  t.deepEqual(datesIn('1 Jan 2020'), ['2020-01-01']);
  t.deepEqual(datesIn('2024-02-29 2023-02-29 2024-13-01 12345-01-01'), ['2024-02-29']);
  t.deepEqual(datesIn('last week, 03/05/2024, Q3 2024'), []);
});

test('documentFromTopic: a fact subject that is only an id is not indexed; a real subject and the value are', (t) => {
  const topic = parsed(
    '<bv-topic path="chat/d1_3" title="Turn"><bv-fact subject="D1:3">Caroline: I went to a support group.</bv-fact><bv-fact subject="#42" value="15 minutes">Sessions expire.</bv-fact><bv-fact subject="access_token_ttl">Tokens live briefly.</bv-fact></bv-topic>',
  );
  const key = documentFromTopic(topic.path, topic.root).fields.key;
  t.false(key.includes('D1'), key);
  t.false(key.includes('42'), key);
  for (const text of ['support group', '15 minutes', 'access_token_ttl']) t.true(key.includes(text), text);
});

test('documentFromTopic: timestamp dates are also indexed in words, as questions say them', (t) => {
  const topic = parsed('<bv-topic path="a/b" title="T"><bv-timestamp>2023-05-08</bv-timestamp><bv-reason>x</bv-reason></bv-topic>');
  const doc = documentFromTopic(topic.path, topic.root);
  t.deepEqual(doc.dates, ['2023-05-08']);
  t.true(doc.fields.meta.includes('8 May 2023'), doc.fields.meta);
  t.deepEqual(dateInWords('2024-12-01'), '1 December 2024');
});
