import test from 'ava';
import {
  CLOSED,
  editReducer,
  formatWhere,
  offsetOf,
  readOpened,
  refusedEvent,
  saveBody,
  savedEvent,
  type EditEvent,
  type EditState,
} from '../../src/web/client/edit.js';

const run = (events: EditEvent[], from: EditState = CLOSED): EditState => events.reduce(editReducer, from);
const editing = (state: EditState) => {
  if (state.phase !== 'editing') throw new Error(`phase ${state.phase}`);
  return state;
};

const OPENED: EditEvent[] = [
  { type: 'open', path: 'a/b' },
  { type: 'opened', path: 'a/b', html: '<h1>A</h1>', version: 'v1' },
];

test('open → edit → save sends the text with the version opened, and closes on success', (t) => {
  let state = run([...OPENED, { type: 'input', text: '<h1>B</h1>' }]);
  t.deepEqual(saveBody(editing(state)), { path: 'a/b', html: '<h1>B</h1>', version: 'v1' });
  state = run([{ type: 'save' }], state);
  t.true(editing(state).saving);
  t.is(run([{ type: 'save' }], state), state, 'no second save while one runs');
  state = run([savedEvent({ status: 'saved', commit: 'c2' })], state);
  t.deepEqual(state, { phase: 'closed', saved: { commit: 'c2', unchanged: false } });
  t.deepEqual(run([...OPENED, { type: 'save' }, savedEvent({ status: 'unchanged' })]), {
    phase: 'closed',
    saved: { commit: '', unchanged: true },
  });
});

test('an answer to an open that was cancelled, or for another topic, is ignored', (t) => {
  t.is(run([{ type: 'open', path: 'a/b' }, { type: 'cancel' }, { type: 'opened', path: 'a/b', html: 'x', version: 'v' }]).phase, 'closed');
  t.is(
    run([
      { type: 'open', path: 'a/b' },
      { type: 'opened', path: 'c', html: 'x', version: 'v' },
    ]).phase,
    'opening',
  );
  t.deepEqual(
    run([
      { type: 'open', path: 'a/b' },
      { type: 'open-failed', path: 'a/b', failure: { kind: 'not-found', message: 'No such topic.' } },
    ]),
    {
      phase: 'failed',
      path: 'a/b',
      failure: { kind: 'not-found', message: 'No such topic.' },
    },
  );
});

test('422: the validator errors are listed with line:column and the text is kept', (t) => {
  const event = refusedEvent(422, 'invalid-topic', 'The topic is not valid.', {
    kind: 'invalid-topic',
    message: 'The topic is not valid.',
    errors: [
      { kind: 'forbidden-attribute', message: 'Event handlers are not allowed.', line: 3, column: 7, tag: 'p', attribute: 'onclick' },
      { kind: 'missing-title', message: 'A topic needs an <h1>.', line: 1 },
      { kind: 'x', message: 'y', line: 0, column: 'z' },
    ],
  });
  const state = editing(run([...OPENED, { type: 'input', text: '<p onclick=x>' }, { type: 'save' }, event]));
  t.false(state.saving);
  t.is(state.text, '<p onclick=x>');
  t.deepEqual(state.problems, [
    { kind: 'forbidden-attribute', message: 'Event handlers are not allowed.', where: '3:7', subject: '<p> onclick', line: 3, column: 7 },
    { kind: 'missing-title', message: 'A topic needs an <h1>.', where: '1', subject: '', line: 1, column: 1 },
    { kind: 'x', message: 'y', where: '', subject: '' },
  ]);
  t.deepEqual(state.failure, { kind: 'invalid-topic', message: 'The topic is not valid.' });
  // A 422 without a list still shows its message as one problem.
  t.deepEqual(editing(run([...OPENED, { type: 'save' }, refusedEvent(422, 'too-large', 'Too big.', {})])).problems, [
    { kind: 'too-large', message: 'Too big.', where: '', subject: '' },
  ]);
});

test('409: the current version is shown, the text kept, and nothing is saved until it is taken in', (t) => {
  const conflict = refusedEvent(409, 'edit-conflict', 'Changed since opened.', {
    kind: 'edit-conflict',
    message: 'Changed since opened.',
    current: { html: '<h1>Theirs</h1>', version: 'v2' },
  });
  let state = run([...OPENED, { type: 'input', text: '<h1>Mine</h1>' }, { type: 'save' }, conflict]);
  t.deepEqual(editing(state).conflict, { html: '<h1>Theirs</h1>', version: 'v2' });
  t.is(editing(state).text, '<h1>Mine</h1>');
  t.is(run([{ type: 'save' }], state), state, 'Save is refused while the conflict is on screen');

  state = run([{ type: 'reload' }], state);
  const reloaded = editing(state);
  t.is(reloaded.text, '<h1>Theirs</h1>');
  t.is(reloaded.mine, '<h1>Mine</h1>', 'their text is kept in the second pane');
  t.is(reloaded.conflict, undefined);
  t.deepEqual(
    saveBody(reloaded),
    { path: 'a/b', html: '<h1>Theirs</h1>', version: 'v2' },
    'the next save is against the version now shown',
  );

  // Another concurrent change, reloaded without typing: the second pane still holds the person's text.
  const again = refusedEvent(409, 'edit-conflict', 'Changed again.', { current: { html: '<h1>Third</h1>', version: 'v3' } });
  state = run([{ type: 'save' }, again, { type: 'reload' }], state);
  t.like(editing(state), { text: '<h1>Third</h1>', mine: '<h1>Mine</h1>', version: 'v3' });
  // After typing, a new conflict keeps what they typed last.
  state = run([{ type: 'input', text: '<h1>Merged</h1>' }, { type: 'save' }, again, { type: 'reload' }], state);
  t.like(editing(state), { text: '<h1>Third</h1>', mine: '<h1>Merged</h1>' });
  // Having seen the current version, the person may take their own text back into the editor and save it.
  state = run([{ type: 'use-mine' }], state);
  t.deepEqual(saveBody(editing(state)), { path: 'a/b', html: '<h1>Merged</h1>', version: 'v3' });
});

test('a conflict clears the errors of an earlier attempt; its own text cannot be taken in before a reload', (t) => {
  const invalid = refusedEvent(422, 'invalid-topic', 'Not valid.', { errors: [{ kind: 'k', message: 'm' }] });
  const conflict = refusedEvent(409, 'edit-conflict', 'Changed.', { current: { html: 'theirs', version: 'v2' } });
  const state = editing(run([...OPENED, { type: 'input', text: 'mine' }, { type: 'save' }, invalid, { type: 'save' }, conflict]));
  t.deepEqual(state.problems, []);
  t.is(state.failure, null);
  t.is(run([{ type: 'use-mine' }], state), state);
});

test('a 409 without the current version cannot be reloaded; other failures are shown as they are', (t) => {
  const state = run([
    ...OPENED,
    { type: 'save' },
    refusedEvent(409, 'edit-conflict', 'a/b was removed since you opened it.', { current: null }),
  ]);
  t.is(editing(state).conflict, null);
  t.deepEqual(editing(state).failure, { kind: 'edit-conflict', message: 'a/b was removed since you opened it.' });
  t.is(run([{ type: 'reload' }], state), state);
  const failed = editing(run([...OPENED, { type: 'save' }, refusedEvent(0, 'network', 'Server gone.', null)]));
  t.deepEqual(failed.failure, { kind: 'network', message: 'Server gone.' });
  t.false(failed.saving);
  t.is(failed.conflict, undefined);
  t.deepEqual(editing(run([{ type: 'save' }], failed)).failure, null, 'a retry clears it');
});

test('cancel leaves without saving from any phase', (t) => {
  t.deepEqual(run([...OPENED, { type: 'input', text: 'x' }, { type: 'cancel' }]), CLOSED);
});

test('answers read defensively', (t) => {
  t.deepEqual(readOpened({ path: 'a', html: '<h1>A</h1>', version: 'v' }), { html: '<h1>A</h1>', version: 'v' });
  t.is(readOpened({ html: 'x' }), null);
  t.is(readOpened(null), null);
  t.deepEqual(savedEvent({ ok: false, errors: [{ kind: 'k', message: 'm' }] }), {
    type: 'invalid',
    problems: [{ kind: 'k', message: 'm', where: '', subject: '' }],
    failure: { kind: 'invalid-topic', message: 'The topic is not valid.' },
  });
  t.is(formatWhere(12, 5), '12:5');
  t.is(formatWhere(12, undefined), '12');
  t.is(formatWhere(undefined, 5), '');
});

test('a line and column become the caret offset, clamped to the text as it is now', (t) => {
  const text = 'ab\ncdef\n\ng';
  t.is(offsetOf(text, 1, 1), 0);
  t.is(offsetOf(text, 2, 3), 5);
  t.is(offsetOf(text, 2, 99), 7, 'past the end of its line: the end of that line');
  t.is(offsetOf(text, 3, 1), 8);
  t.is(offsetOf(text, 4, 1), 9);
  t.is(offsetOf(text, 9, 1), text.length, 'a line the text no longer has: its end');
  t.is(offsetOf(text, 1, 0), 0);
});
