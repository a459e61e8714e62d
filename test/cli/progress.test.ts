import test from 'ava';
import { startProgress, stepNotes } from '../../src/cli/progress.js';
import type { SyncProgress } from '../../src/service/sharing.js';
import { syncStepText, syncTransferText } from '../../src/views/vc.js';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream };
}

test('progress is silent on a non-terminal stderr and with --format json', (t) => {
  const pipe = fakeStream(false);
  const p = startProgress('Working', { format: 'text', stream: pipe.stream, delayMs: 0, mode: '' });
  p.onProgress(5, 10);
  p.finish();
  t.deepEqual(pipe.written, []);
  const tty = fakeStream(true);
  const q = startProgress('Working', { format: 'json', stream: tty.stream, delayMs: 0, mode: '' });
  q.onProgress(5, 10);
  q.finish();
  t.deepEqual(tty.written, []);
});

test('progress on a terminal rewrites one line after the delay and clears it when finished', (t) => {
  const tty = fakeStream(true);
  const p = startProgress('Exporting topics', { format: 'text', stream: tty.stream, delayMs: 0, mode: '' });
  p.onProgress(10, 10);
  p.finish();
  p.finish();
  t.deepEqual(tty.written, ['\r\x1b[2KExporting topics 10/10 (100%)', '\r\x1b[2K']);
  const slow = fakeStream(true);
  const q = startProgress('Exporting topics', { format: 'text', stream: slow.stream, delayMs: 60_000, mode: '' });
  q.onProgress(1, 10);
  q.finish();
  t.deepEqual(slow.written, [], 'work shorter than the delay prints nothing');
});

test('BRV_PROGRESS=always shows progress as lines on a non-terminal', (t) => {
  const pipe = fakeStream(false);
  const p = startProgress('Indexing', { format: 'text', stream: pipe.stream, mode: 'always' });
  p.onProgress(3);
  p.finish();
  t.deepEqual(pipe.written, ['Indexing 3\n']);
});

const step = (s: SyncProgress['step'], transfer?: SyncProgress['transfer']): SyncProgress => ({
  step: s,
  remote: 'origin',
  branch: 'main',
  attempt: 1,
  ...(transfer ? { transfer } : {}),
});

test('sync steps are lines; git’s transfer within a step is one line rewritten on a terminal, cleared by the next step and by finish', (t) => {
  const tty = fakeStream(true);
  const notes = stepNotes(syncStepText, { format: 'text', stream: tty.stream, mode: '' }, syncTransferText);
  notes.onStep(step('fetch'));
  notes.onStep(step('fetch', { phase: 'Counting objects', remote: true, done: 1, total: 4 }));
  notes.onStep(step('fetch', { phase: 'Counting objects', remote: true, done: 2, total: 4 })); // within 100 ms: skipped
  notes.onStep(step('fetch', { phase: 'Receiving objects', remote: false, done: 4, total: 4 }));
  notes.onStep(step('merge'));
  notes.onStep(step('push', { phase: 'Writing objects', remote: false, done: 3, total: 3 }));
  notes.finish();
  notes.finish();
  t.deepEqual(tty.written, [
    'Fetching knowledge from origin…\n',
    '\r\x1b[2K  remote: Counting objects 25% (1/4)',
    '\r\x1b[2K  Receiving objects 100% (4/4)',
    '\r\x1b[2K',
    'Merging origin/main into main…\n',
    '\r\x1b[2K  Writing objects 100% (3/3)',
    '\r\x1b[2K',
  ]);
});

test('off a terminal (BRV_PROGRESS=always), each transfer phase is one line with its last report; nothing with --format json', (t) => {
  const pipe = fakeStream(false);
  const notes = stepNotes(syncStepText, { format: 'text', stream: pipe.stream, mode: 'always' }, syncTransferText);
  notes.onStep(step('fetch'));
  notes.onStep(step('fetch', { phase: 'Enumerating objects', remote: true, done: 4 }));
  notes.onStep(step('fetch', { phase: 'Counting objects', remote: true, done: 1, total: 4 }));
  notes.onStep(step('fetch', { phase: 'Counting objects', remote: true, done: 4, total: 4 }));
  notes.onStep(step('merge'));
  notes.finish();
  t.deepEqual(pipe.written, [
    'Fetching knowledge from origin…\n',
    '  remote: Enumerating objects 4\n',
    '  remote: Counting objects 100% (4/4)\n',
    'Merging origin/main into main…\n',
  ]);
  const json = fakeStream(true);
  const silent = stepNotes(syncStepText, { format: 'json', stream: json.stream, mode: 'always' }, syncTransferText);
  silent.onStep(step('fetch', { phase: 'Counting objects', remote: true, done: 1, total: 4 }));
  silent.finish();
  t.deepEqual(json.written, []);
});

// git's parser (src/git/transfer-progress.ts) only passes phases like "Counting objects"; the writer
// does not rely on it.
test('progress lines carry no control character but their own line rewriting, whatever a step says', (t) => {
  const tty = fakeStream(true);
  const notes = stepNotes(syncStepText, { format: 'text', stream: tty.stream, mode: '' }, syncTransferText);
  notes.onStep(step('fetch', { phase: 'Counting\x1b]52;c;cHduZWQ=\x07 objects\x9b2J', remote: true, done: 1, total: 4 }));
  notes.finish();
  t.deepEqual(tty.written, ['\r\x1b[2K  remote: Counting\uFFFD]52;c;cHduZWQ=\uFFFD objects\uFFFD2J 25% (1/4)', '\r\x1b[2K']);
  const pipe = fakeStream(false);
  const lines = stepNotes(syncStepText, { format: 'text', stream: pipe.stream, mode: 'always' }, syncTransferText);
  lines.onStep(step('fetch', { phase: 'Counting\x1b[2J', remote: true, done: 4 }));
  lines.finish();
  t.deepEqual(pipe.written, ['  remote: Counting\uFFFD[2J 4\n']);
});
