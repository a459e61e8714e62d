import test from 'ava';
import { diffLines, diffStats, readCommit, readTopicDiff, toggleVersion, topicDiffHref, versionRange } from '../../src/web/client/diff.js';

// What the service's jsdiff patch of a topic's rendered markdown looks like.
const PATCH = [
  '--- a/security/auth.html',
  '+++ b/security/auth.html',
  '@@ -1,4 +1,4 @@',
  ' # Auth',
  '-Rotate keys yearly.',
  '--- a removed line that starts with two dashes',
  '+Rotate keys every 90 days.',
  '++++ an added line that starts with three pluses',
  ' Use JWT.',
  '\\ No newline at end of file',
  '',
].join('\n');

test('diff lines: file headers, hunks, additions, removals, context, notes', (t) => {
  t.deepEqual(
    diffLines(PATCH).map((line) => line.type),
    ['file', 'file', 'hunk', 'context', 'del', 'del', 'add', 'add', 'context', 'note'],
  );
  t.is(diffLines(PATCH)[5]!.text, '--- a removed line that starts with two dashes', 'the text is kept as is');
  t.deepEqual(diffStats(PATCH), { added: 2, removed: 2 });
});

test('after a hunk ends, the next file header is a header again', (t) => {
  const two = ['--- a/x', '+++ b/x', '@@ -1 +1 @@', '-old', '+new', '--- a/y', '+++ b/y', '@@ -0,0 +1,2 @@', '+a', '+b'].join('\n');
  t.deepEqual(
    diffLines(two).map((line) => line.type),
    ['file', 'file', 'hunk', 'del', 'add', 'file', 'file', 'hunk', 'add', 'add'],
  );
});

test('a diff without hunk headers (a review summary) is coloured by first character', (t) => {
  t.deepEqual(
    diffLines('- old summary\n+ new summary\nplain').map((line) => line.type),
    ['del', 'add', 'context'],
  );
  t.deepEqual(diffLines(''), []);
  t.deepEqual(
    diffLines('a\r\nb\r\n').map((line) => line.text),
    ['a', 'b'],
  );
});

test('ticking versions keeps the last two; unticking removes one', (t) => {
  t.deepEqual(toggleVersion([], 'a'), ['a']);
  t.deepEqual(toggleVersion(['a'], 'b'), ['a', 'b']);
  t.deepEqual(toggleVersion(['a', 'b'], 'c'), ['b', 'c']);
  t.deepEqual(toggleVersion(['a', 'b'], 'a'), ['b']);
});

test('two ticked versions diff older → newer whatever the order they were ticked in', (t) => {
  const newestFirst = ['c3', 'c2', 'c1'];
  t.deepEqual(versionRange(['c3', 'c1'], newestFirst), { from: 'c1', to: 'c3' });
  t.deepEqual(versionRange(['c1', 'c2'], newestFirst), { from: 'c1', to: 'c2' });
  t.is(versionRange(['c1'], newestFirst), null);
  t.is(versionRange(['c1', 'gone'], newestFirst), null, 'a version no longer in the history');
});

test('the topic diff address encodes its parameters', (t) => {
  t.is(topicDiffHref('a b/c&d', 'abc', 'def'), '/api/topic/diff?path=a+b%2Fc%26d&from=abc&to=def');
  t.is(topicDiffHref('a', 'HEAD~1'), '/api/topic/diff?path=a&from=HEAD%7E1');
});

test('the commit answer is read defensively', (t) => {
  t.deepEqual(
    readCommit({
      commit: 'abc',
      time: '2026-01-01T00:00:00Z',
      author: 'A <a@x>',
      subject: 'curate: x\n\nbody',
      meta: { agent: 'cli' },
      changes: [{ path: 'a/b', status: 'changed', diff: PATCH }, { filePath: 'c.html', status: 'added' }, null],
      changesOmitted: 3,
    }),
    {
      commit: 'abc',
      time: '2026-01-01T00:00:00Z',
      author: 'A <a@x>',
      subject: 'curate: x',
      changes: [
        { path: 'a/b', status: 'changed', diff: PATCH },
        { path: 'c', status: 'added', diff: '' },
        { path: '', status: '', diff: '' },
      ],
      omitted: 3,
    },
  );
  t.like(readCommit(null), { commit: '', changes: [], omitted: 0 });
  t.is(readTopicDiff({ path: 'a', from: 'x', to: 'y', diff: '+a\n' }), '+a\n');
  t.is(readTopicDiff('nonsense'), '');
});

test('a change the server could not diff (a topic over the size limit) keeps its problem for the page to show', (t) => {
  const problem = { kind: 'too-large', message: 'x/huge is 700000000 bytes after this change; topics are at most 262144 bytes.' };
  const { changes } = readCommit({
    commit: 'c',
    changes: [
      { path: 'x/huge', status: 'added', diff: '', problem },
      { path: 'a/b', diff: '+x' },
    ],
  });
  t.deepEqual(changes, [
    { path: 'x/huge', status: 'added', diff: '', problem: problem.message },
    { path: 'a/b', status: '', diff: '+x' },
  ]);
});
