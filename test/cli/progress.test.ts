import test from 'ava';
import { startProgress } from '../../src/cli/progress.js';

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
