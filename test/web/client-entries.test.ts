import test from 'ava';
import { readChanges, readError, readReviews, relativeTime } from '../../src/web/client/entries.js';

test('history entries as the service returns them (trailers in meta, blob paths in changes)', (t) => {
  const [entry] = readChanges({
    entries: [
      {
        commit: 'c0ffee00',
        parents: [],
        time: '2026-01-02T03:04:05Z',
        author: 'Claude Code <agent@example.com>',
        subject: 'curate: security/auth\n\nBrv-Op: curate',
        meta: { op: 'curate', agent: 'claude-code', impact: 'high', reason: 'new rotation policy', summary: 'Rotate keys' },
        changes: [
          { status: 'modified', path: 'security/auth.html' },
          { status: 'added', path: 'notes/x.html' },
          { status: 'added', path: '.brv/config' },
        ],
      },
    ],
  });
  t.deepEqual(entry, {
    commit: 'c0ffee00',
    parents: [],
    time: '2026-01-02T03:04:05Z',
    agent: 'claude-code',
    op: 'curate',
    impact: 'high',
    reason: 'new rotation policy',
    summary: 'Rotate keys',
    subject: 'curate: security/auth',
    topics: ['security/auth', 'notes/x'],
    omitted: 0,
    signature: '',
    signatureStatus: '',
  });
});

test("a history entry's signature state, when the server checked it", (t) => {
  const [entry] = readChanges({
    entries: [{ commit: 'b', signature: { status: 'G', text: 'signed by alice@example.com (allowed)', key: 'SHA256:x' } }],
  });
  t.like(entry, { signature: 'signed by alice@example.com (allowed)', signatureStatus: 'G' });
});

test('parents and the count of topics the server left out of an entry', (t) => {
  const [entry] = readChanges({ entries: [{ commit: 'b', parents: ['a', 7, ''], changes: [{ path: 'x.html' }], changesOmitted: 41 }] });
  t.like(entry, { parents: ['a'], topics: ['x'], omitted: 41 });
});

test('flat entries (oid, date, topics) and missing fields are read defensively', (t) => {
  const [flat, empty] = readChanges([{ oid: 'abc', date: '2026-01-01', agent: 'cli', op: 'rm', topics: ['a', 'a', 'b'] }, null]);
  t.like(flat, { commit: 'abc', time: '2026-01-01', agent: 'cli', op: 'rm', topics: ['a', 'b'] });
  t.like(empty, { commit: '', agent: '', topics: [] });
  t.like(readChanges([{ author: 'Jane Doe <jane@example.com>' }])[0], { agent: 'Jane Doe' });
  t.deepEqual(readChanges({}), []);
});

test("pending reviews in the service's shape (tasks, taskId, type)", (t) => {
  const reviews = readReviews({
    pendingCount: 2,
    tasks: [
      {
        taskId: 'r1',
        commit: 'abc',
        subject: 'curate: auth',
        gated: true,
        onBranch: false,
        time: '2026-01-01T00:00:00Z',
        author: { name: 'Ada', email: 'ada@example.com' },
        agent: 'claude-code',
        session: 's1',
        model: 'openai/gpt-4o',
        impact: 'high',
        operations: [
          {
            path: 'security/auth',
            filePath: 'security/auth.html',
            type: 'UPDATE',
            impact: 'high',
            reason: 'why',
            summary: 'new',
            previousSummary: 'old',
          },
          { filePath: 'b/c.html', type: 'ADD', diff: '+x' },
        ],
      },
    ],
  });
  t.deepEqual(reviews, [
    {
      id: 'r1',
      subject: 'curate: auth',
      time: '2026-01-01T00:00:00Z',
      gated: true,
      author: 'Ada <ada@example.com>',
      agent: 'claude-code',
      session: 's1',
      model: 'openai/gpt-4o',
      impact: 'high',
      operations: [
        {
          path: 'security/auth',
          op: 'UPDATE',
          impact: 'high',
          reason: 'why',
          summary: 'new',
          previousSummary: 'old',
          diff: '',
          landing: '',
        },
        { path: 'b/c', op: 'ADD', impact: '', reason: '', summary: '', previousSummary: '', diff: '+x', landing: '' },
      ],
    },
  ]);
  t.deepEqual(readReviews({ reviews: [{ id: 'x', operations: [{ path: 'p', op: 'DELETE' }] }] })[0]?.operations[0]?.op, 'DELETE');
  t.deepEqual(readReviews({ pendingCount: 0, tasks: [] }), []);
  t.deepEqual(readReviews('nonsense'), []);
});

test('API errors: the typed body, else the HTTP status', (t) => {
  t.deepEqual(readError(400, { error: { kind: 'invalid-path', message: 'Bad path.' } }), { kind: 'invalid-path', message: 'Bad path.' });
  t.is(readError(401, null).kind, 'unauthorized');
  t.deepEqual(readError(502, '<html>'), { kind: 'http-502', message: 'The server answered 502.' });
});

test('relative times', (t) => {
  const now = Date.parse('2026-01-10T12:00:00Z');
  t.is(relativeTime('2026-01-10T11:59:50Z', now), 'just now');
  t.is(relativeTime('2026-01-10T11:55:00Z', now), '5 min ago');
  t.is(relativeTime('2026-01-10T09:00:00Z', now), '3 h ago');
  t.is(relativeTime('2026-01-08T12:00:00Z', now), '2 d ago');
  t.is(relativeTime('2025-06-01T00:00:00Z', now), '2025-06-01');
  t.is(relativeTime('garbage', now), 'garbage');
});

test('a review operation the server could not diff (a topic over the size limit) keeps its problem', (t) => {
  const problem = { kind: 'too-large', message: 'x/huge is 700000000 bytes after this change.' };
  const [review] = readReviews({
    tasks: [
      {
        taskId: 'r',
        operations: [
          { path: 'x/huge', type: 'ADD', diff: null, problem },
          { path: 'a/b', type: 'ADD' },
        ],
      },
    ],
  });
  t.is(review?.operations[0]?.problem, problem.message);
  t.false('problem' in review!.operations[1]!);
});
