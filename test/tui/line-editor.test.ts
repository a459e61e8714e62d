import test from 'ava';
import { backspacesIn, cleanInput, editLine, EMPTY_LINE, MAX_LINE, type Line, type LineEdit } from '../../src/tui/line-editor.js';

const run = (edits: LineEdit[], from: Line = EMPTY_LINE): Line => edits.reduce(editLine, from);

test('typing, moving and erasing keep the caret where it belongs', (t) => {
  const typed = run([{ type: 'insert', text: 'hello world' }]);
  t.deepEqual(typed, { text: 'hello world', cursor: 11 });
  t.deepEqual(run([{ type: 'left' }, { type: 'left' }, { type: 'backspace' }], typed), { text: 'hello wold', cursor: 8 });
  t.deepEqual(run([{ type: 'home' }, { type: 'delete' }], typed), { text: 'ello world', cursor: 0 });
  t.deepEqual(
    run([{ type: 'home' }, { type: 'backspace' }, { type: 'left' }], typed),
    { text: 'hello world', cursor: 0 },
    'nothing before the start',
  );
  t.deepEqual(
    run([{ type: 'end' }, { type: 'delete' }, { type: 'right' }], typed),
    { text: 'hello world', cursor: 11 },
    'nothing after the end',
  );
  t.deepEqual(run([{ type: 'home' }, { type: 'insert', text: '> ' }], typed), { text: '> hello world', cursor: 2 });
});

test('word moves and kills (Alt-B/F, Ctrl-W, Ctrl-U, Ctrl-K)', (t) => {
  const line: Line = { text: 'find  the auth rules', cursor: 20 };
  t.is(editLine(line, { type: 'word-left' }).cursor, 15);
  t.is(editLine({ ...line, cursor: 6 }, { type: 'word-left' }).cursor, 0, 'over the spaces, then the word');
  t.is(editLine({ ...line, cursor: 0 }, { type: 'word-right' }).cursor, 4);
  t.is(editLine({ ...line, cursor: 4 }, { type: 'word-right' }).cursor, 9);
  t.deepEqual(editLine(line, { type: 'kill-word' }), { text: 'find  the auth ', cursor: 15 });
  t.deepEqual(editLine({ ...line, cursor: 9 }, { type: 'kill-before' }), { text: ' auth rules', cursor: 0 });
  t.deepEqual(editLine({ ...line, cursor: 9 }, { type: 'kill-after' }), { text: 'find  the', cursor: 9 });
});

test('pasted text becomes one clean line, bounded', (t) => {
  t.is(cleanInput('a\r\nb\nc\td\u001b[31m\u0007e'), 'a b c d[31me');
  const huge = run([{ type: 'insert', text: 'x'.repeat(MAX_LINE + 50) }]);
  t.is(huge.text.length, MAX_LINE);
  t.is(run([{ type: 'insert', text: 'more' }], huge).text.length, MAX_LINE, 'a full line takes nothing more');
  t.deepEqual(editLine(huge, { type: 'set', text: 'recalled\nline' }), { text: 'recalled line', cursor: 13 });
});

test('several Backspaces read as one chunk erase as many characters, never past the start', (t) => {
  t.is(backspacesIn('\u007f\u007f\u007f'), 3);
  t.is(backspacesIn('\b\b'), 2);
  t.is(backspacesIn('\u007fa'), 0, 'mixed with text: not a run of Backspaces');
  t.is(backspacesIn(''), 0);
  const line: Line = { text: 'hello world', cursor: 11 };
  t.deepEqual(editLine(line, { type: 'backspace', count: 3 }), { text: 'hello wo', cursor: 8 });
  t.deepEqual(editLine({ ...line, cursor: 2 }, { type: 'backspace', count: 5 }), { text: 'llo world', cursor: 0 });
});
