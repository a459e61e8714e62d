import test from 'ava';
import {
  afterBatch,
  allChecked,
  batchRequest,
  filterChoices,
  filterInbox,
  isMergeReview,
  NO_FILTER,
  NO_SELECTION,
  pruneSelection,
  readBatchResults,
  readConflicts,
  resolveBody,
  reviewChecked,
  selectAll,
  selectedCount,
  selectedTopics,
  toggleReview,
  toggleTopic,
  topicChecked,
} from '../../src/web/client/review-inbox.js';

const review = (id: string, ...paths: string[]) => ({ id, operations: paths.map((path) => ({ path })) });
const A = review('aaaa', 'x/one', 'x/two', 'x/three');
const B = review('bbbb', 'y/only');

test('a review selected whole; its topics toggled one by one; all topics read as the whole review, none as nothing', (t) => {
  let s = toggleReview(NO_SELECTION, A);
  t.is(reviewChecked(s, A), 'all');
  t.true(topicChecked(s, A, 'x/two'));
  t.is(selectedCount(s, [A, B]), 3);

  s = toggleTopic(s, A, 'x/two');
  t.is(reviewChecked(s, A), 'some', 'indeterminate');
  t.deepEqual(selectedTopics(s, A), ['x/one', 'x/three']);
  t.false(topicChecked(s, A, 'x/two'));

  s = toggleTopic(s, A, 'x/two');
  t.is(s.get('aaaa'), 'all', 'every topic again: the whole review');
  s = toggleTopic(toggleTopic(toggleTopic(s, A, 'x/one'), A, 'x/two'), A, 'x/three');
  t.is(reviewChecked(s, A), 'none');
  t.false(s.has('aaaa'));

  s = toggleTopic(s, A, 'x/one');
  t.is(reviewChecked(s, A), 'some');
  s = toggleReview(s, A);
  t.is(reviewChecked(s, A), 'all', 'a partly selected review becomes whole');
  s = toggleReview(s, A);
  t.is(reviewChecked(s, A), 'none');
  t.is(toggleTopic(s, A, 'not/there'), s, 'a topic not in the review changes nothing');
});

test('select all, and the select-all checkbox state', (t) => {
  t.is(allChecked(NO_SELECTION, [A, B]), 'none');
  const all = selectAll([A, B]);
  t.is(allChecked(all, [A, B]), 'all');
  t.is(allChecked(toggleTopic(all, A, 'x/one'), [A, B]), 'some');
  t.is(allChecked(toggleReview(all, B), [A, B]), 'some');
  t.is(allChecked(all, []), 'none');
});

test('a refresh drops reviews and topics that left the inbox, keeps the rest, and returns the same selection when nothing left', (t) => {
  const s = toggleTopic(selectAll([A, B]), A, 'x/three'); // A: one, two; B: whole
  t.is(pruneSelection(s, [A, B]), s, 'unchanged: the same object');

  // B decided elsewhere; x/two of A decided: x/one stays selected.
  const A2 = review('aaaa', 'x/one', 'x/three');
  const pruned = pruneSelection(s, [A2]);
  t.false(pruned.has('bbbb'));
  t.deepEqual(selectedTopics(pruned, A2), ['x/one']);
  t.is(reviewChecked(pruned, A2), 'some');

  // Only the selected topics are left in A: the whole review now.
  const A3 = review('aaaa', 'x/one', 'x/two');
  t.is(pruneSelection(s, [A3]).get('aaaa'), 'all');
  // A whole review stays whole as its topics change.
  t.is(pruneSelection(selectAll([A]), [A3]).get('aaaa'), 'all');
  // None of the selected topics are left, or the review has none: it is dropped.
  t.false(pruneSelection(s, [review('aaaa', 'x/three')]).has('aaaa'));
  t.is(pruneSelection(selectAll([A]), [review('aaaa')]).size, 0);
});

test('the batch request follows the inbox order: whole reviews without topics, partial ones with them; at most 100', (t) => {
  const s = toggleTopic(selectAll([B, A]), A, 'x/two');
  t.deepEqual(batchRequest(s, [A, B], 'reject'), {
    decisions: [
      { id: 'aaaa', decision: 'reject', topics: ['x/one', 'x/three'] },
      { id: 'bbbb', decision: 'reject' },
    ],
  });
  t.deepEqual(batchRequest(NO_SELECTION, [A, B], 'approve'), { decisions: [] });
  const many = Array.from({ length: 120 }, (_, i) => review(`r${i}`, `p/${i}`));
  t.is(batchRequest(selectAll(many), many, 'approve').decisions.length, 100);
});

test('batch results: failures in their place with kind and message; what went through leaves the selection', (t) => {
  const sent = batchRequest(selectAll([A, B]), [A, B], 'approve').decisions;
  const outcome = readBatchResults(
    {
      results: [
        { id: 'aaaa', decision: 'approve', ok: false, error: { kind: 'unresolved-conflicts', message: 'Resolve first.' } },
        { id: 'bbbb', decision: 'approve', ok: true, result: { decision: 'approved' } },
      ],
    },
    sent,
  );
  t.deepEqual(outcome.succeeded, ['bbbb']);
  t.deepEqual(outcome.failed, [{ id: 'aaaa', decision: 'approve', kind: 'unresolved-conflicts', message: 'Resolve first.' }]);
  const after = afterBatch(selectAll([A, B]), outcome);
  t.deepEqual([...after.keys()], ['aaaa'], 'the refused review stays selected for another try');

  const garbled = readBatchResults({ results: [{ ok: 'yes' }] }, sent);
  t.deepEqual(garbled.succeeded, []);
  t.is(garbled.failed.length, 2);
  t.is(garbled.failed[1]!.kind, 'internal-error');
  t.regex(garbled.failed[1]!.message, /no result/);
  t.is(readBatchResults(null, sent).failed.length, 2);
});

test('conflicts as the API sends them: sides paired or not; topics without conflicts left out; read defensively', (t) => {
  const topics = readConflicts({
    taskId: 'aaaa',
    topics: [
      {
        path: 'ops/deploy',
        conflicts: [
          {
            section: 'bv-rule#r1',
            reason: 'changed differently',
            ours: '<bv-rule id="r1">A</bv-rule>',
            theirs: '<bv-rule id="r1">B</bv-rule>',
            oursDisplay: { html: '<article>A</article>', markdown: 'A' },
            theirsDisplay: { html: '<article>B</article>', markdown: 'B' },
          },
          { section: 'title', reason: 'ours has "X", theirs has "Y"' },
        ],
      },
      { path: 'ops/clean', conflicts: [] },
      { path: 42, conflicts: [{}] },
      'junk',
    ],
  });
  t.is(topics.length, 1);
  t.is(topics[0]!.path, 'ops/deploy');
  t.deepEqual(topics[0]!.conflicts[0], {
    section: 'bv-rule#r1',
    reason: 'changed differently',
    sides: {
      oursHtml: '<article>A</article>',
      theirsHtml: '<article>B</article>',
      oursSource: '<bv-rule id="r1">A</bv-rule>',
      theirsSource: '<bv-rule id="r1">B</bv-rule>',
    },
  });
  t.is(topics[0]!.conflicts[1]!.sides, null);
  t.deepEqual(readConflicts('nothing'), []);
});

test('merge reviews, and the resolve body', (t) => {
  t.true(isMergeReview({ operations: [{ op: 'MERGE' }] }));
  t.false(isMergeReview({ operations: [{ op: 'UPDATE' }, { op: 'DELETE' }] }));
  t.deepEqual(resolveBody('aaaa', 'ops/deploy', 'both'), { id: 'aaaa', topic: 'ops/deploy', side: 'both' });
  t.deepEqual(resolveBody('aaaa', 'ops/deploy', 'ours', 'bv-rule#r1'), {
    id: 'aaaa',
    topic: 'ops/deploy',
    side: 'ours',
    section: 'bv-rule#r1',
  });
});

test('the inbox filter: by agent and impact exactly, author by part of name or email, since by how recent; the choices', (t) => {
  const now = Date.parse('2026-12-06T08:00:00Z');
  const reviews = [
    { id: 'a', author: 'Ada Author <ada@example.com>', agent: 'claude-code', impact: 'high', time: '2026-12-06T07:30:00Z' },
    { id: 'b', author: 'Bob <bob@example.org>', agent: 'codex', impact: 'low', time: '2026-12-01T00:00:00Z' },
    { id: 'c', author: '', agent: '', impact: '', time: '2026-10-01T00:00:00Z' },
  ];
  const ids = (filter: Partial<typeof NO_FILTER>) => filterInbox(reviews, { ...NO_FILTER, ...filter }, now).map((r) => r.id);
  t.deepEqual(ids({}), ['a', 'b', 'c']);
  t.deepEqual(ids({ agent: 'codex' }), ['b']);
  t.deepEqual(ids({ impact: 'high' }), ['a']);
  t.deepEqual(ids({ author: 'BOB@' }), ['b']);
  t.deepEqual(ids({ author: 'ada author' }), ['a']);
  t.deepEqual(ids({ since: '1h' }), ['a']);
  t.deepEqual(ids({ since: '7d' }), ['a', 'b']);
  t.deepEqual(ids({ since: '30d', agent: 'claude-code' }), ['a']);
  t.deepEqual(filterChoices(reviews), { agents: ['claude-code', 'codex'], impacts: ['high', 'low'] });
});
