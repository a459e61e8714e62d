import test from 'ava';
import { readBranches, readSyncProgress, summarizeSync, trackingLabel, type BranchRow } from '../../src/web/client/branches.js';
import { NdjsonLines } from '../../src/web/client/json.js';

const ANSWER = {
  current: 'main',
  branches: [
    { name: 'main', tip: 'aaaaaaaaaaaa', current: true, upstream: 'origin/main', ahead: 2, behind: 1 },
    { name: 'feature/x', tip: 'bbbb', current: false },
    { branch: 'origin/main', commit: 'cccc', current: false, remote: 'origin' },
    { name: 'origin/feature/x', tip: 'dddd', current: false },
  ],
  remotes: [{ name: 'origin', url: 'git@example.com:team/app.git' }, { url: 'nameless' }],
  worktrees: [
    { path: '/w/app', branch: 'main', current: true },
    { path: '/w/app-fix', gitBranch: 'fix', brvBranch: 'fix', bare: false, current: false },
    { path: '/w/broken', brvBranch: null, current: false },
  ],
};

test('branches, remote-tracking branches, remotes and worktrees', (t) => {
  const view = readBranches(ANSWER);
  t.is(view.current, 'main');
  t.deepEqual(view.local, [
    { name: 'main', tip: 'aaaaaaaaaaaa', current: true, upstream: 'origin/main', ahead: 2, behind: 1, remote: '' },
    { name: 'feature/x', tip: 'bbbb', current: false, upstream: '', ahead: null, behind: null, remote: '' },
  ]);
  t.deepEqual(
    view.tracking.map((row) => [row.name, row.remote, row.tip]),
    [
      ['origin/main', 'origin', 'cccc'],
      ['origin/feature/x', 'origin', 'dddd'],
    ],
  );
  t.deepEqual(view.remotes, [{ name: 'origin', url: 'git@example.com:team/app.git' }]);
  t.deepEqual(view.worktrees, [
    { path: '/w/app', branch: 'main', gitBranch: '', current: true },
    { path: '/w/app-fix', branch: 'fix', gitBranch: 'fix', current: false },
    { path: '/w/broken', branch: null, gitBranch: '', current: false },
  ]);
  t.true(view.canSync);
});

test('no remote: the sync buttons are off; the current branch is marked from `current`', (t) => {
  const view = readBranches({ current: 'dev', branches: [{ name: 'main' }, { name: 'dev' }], remotes: [], worktrees: [] });
  t.false(view.canSync);
  t.deepEqual(
    view.local.map((row) => [row.name, row.current]),
    [
      ['main', false],
      ['dev', true],
    ],
  );
  t.deepEqual(readBranches(null), { current: '', local: [], tracking: [], remotes: [], worktrees: [], canSync: false });
});

test('ahead / behind labels', (t) => {
  const row = (over: Partial<BranchRow>): BranchRow => ({
    name: 'm',
    tip: '',
    current: false,
    upstream: 'origin/m',
    ahead: 0,
    behind: 0,
    remote: '',
    ...over,
  });
  t.is(trackingLabel(row({})), 'up to date');
  t.is(trackingLabel(row({ ahead: 2, behind: 1 })), '2 ahead, 1 behind');
  t.is(trackingLabel(row({ behind: 3 })), '3 behind');
  t.is(trackingLabel(row({ ahead: null, behind: null })), 'follows origin/m');
  t.is(trackingLabel(row({ upstream: '', ahead: null, behind: null })), 'no upstream');
});

test('what fetch, pull, push and sync did, in one line', (t) => {
  t.is(
    summarizeSync('fetch', {
      remote: 'origin',
      branches: [
        { branch: 'main', commit: 'a' },
        { branch: 'x', commit: 'b' },
      ],
      reviews: { opened: ['r1'], closed: [] },
      refused: [],
      createdBranches: ['x'],
    }),
    'Fetched: 2 brv branches on origin; 1 review opened; new local branch x.',
  );
  t.is(
    summarizeSync('pull', {
      remote: 'origin',
      branch: 'main',
      merge: { status: 'fast-forward', commit: '0123456789ab', merged: [], conflicts: [] },
    }),
    'Pulled main from origin: fast-forwarded to 01234567.',
  );
  t.is(
    summarizeSync('pull', {
      remote: 'origin',
      branch: 'main',
      merge: { status: 'merged', commit: 'ffffffffff', merged: ['a'], conflicts: ['b', 'c'] },
    }),
    'Pulled main from origin: merged as ffffffff; 1 topic merged section by section; 2 conflicts kept for review.',
  );
  t.is(
    summarizeSync('pull', {
      remote: 'origin',
      branch: 'main',
      merge: {
        status: 'held',
        commit: '0123456789ab',
        merged: [],
        conflicts: [],
        removed: { deleted: ['a/b', 'a/c'], emptied: ['d/e'] },
        held: { id: 'abcdef012345' },
      },
    }),
    'Pulled main from origin: held for review abcdef012345: it would remove 3 topics; nothing applied or pushed (brv review approve abcdef012345 takes it, reject keeps the topics).',
  );
  t.is(
    summarizeSync('pull', {
      remote: 'origin',
      branch: 'main',
      merge: { status: 'fast-forward', commit: '0123456789ab', merged: [], conflicts: [], removed: { deleted: ['a/b'], emptied: [] } },
    }),
    'Pulled main from origin: fast-forwarded to 01234567; 1 topic removed.',
  );
  t.is(
    summarizeSync('push', {
      remote: 'origin',
      branch: 'main',
      refs: [{ ref: 'refs/brv/heads/main', status: 'ok', summary: '' }],
      upstreamSet: true,
    }),
    'Pushed main to origin: 1 ref updated; upstream set.',
  );
  t.is(
    summarizeSync('sync', {
      remote: 'origin',
      branch: 'main',
      merge: { status: 'up-to-date', merged: [], conflicts: [] },
      push: { refs: [{ status: 'up-to-date' }] },
      attempts: 2,
    }),
    'Synced main with origin: already up to date; nothing new to push (2 attempts: the remote moved meanwhile).',
  );
  t.is(summarizeSync('push', null), 'Pushed to the remote: nothing new to push.');
});

test('a sync stream’s progress lines read as the CLI words them, with a percentage when git gives a total', (t) => {
  t.deepEqual(readSyncProgress({ type: 'progress', step: 'fetch', remote: 'origin', branch: 'main', attempt: 1 }), {
    step: 'Fetching knowledge from origin…',
    detail: '',
    percent: null,
  });
  t.deepEqual(
    readSyncProgress({
      step: 'fetch',
      remote: 'origin',
      branch: 'main',
      attempt: 2,
      transfer: { phase: 'Counting objects', remote: true, done: 1, total: 3 },
    }),
    {
      step: 'Fetching knowledge from origin… (attempt 2: the remote moved meanwhile)',
      detail: 'remote: Counting objects 33% (1/3)',
      percent: 33,
    },
  );
  t.like(readSyncProgress({ step: 'push', remote: 'up', branch: 'x', transfer: { phase: 'Enumerating objects', done: 7 } }), {
    step: 'Pushing x to up…',
    detail: 'Enumerating objects 7',
    percent: null,
  });
  t.like(readSyncProgress({ step: 'merge', remote: 'origin', branch: 'main' }), { step: 'Merging origin/main into main…' });
  t.like(readSyncProgress(null), { step: 'Fetching knowledge from the remote…', percent: null });
});

test('NDJSON read as it arrives: lines cut across chunks, junk lines skipped, an unterminated last line at the end', (t) => {
  const lines = new NdjsonLines();
  t.deepEqual(lines.push('{"a":1}\n{"b"'), [{ a: 1 }]);
  t.deepEqual(lines.push(':2}\nnot json\n\n{"c":'), [{ b: 2 }]);
  t.deepEqual(lines.push('3}'), []);
  t.deepEqual(lines.end(), [{ c: 3 }]);
  t.deepEqual(lines.end(), []);
});
