import test from 'ava';
import { parseTransferLine, TransferLines, type GitTransferProgress } from '../../src/git/transfer-progress.js';

test('git’s progress lines, local and remote, with and without a total', (t) => {
  t.deepEqual(parseTransferLine('Receiving objects:  45% (450/1000), 1.20 MiB | 300.00 KiB/s'), {
    phase: 'Receiving objects',
    remote: false,
    done: 450,
    total: 1000,
  });
  t.deepEqual(parseTransferLine('remote: Counting objects: 100% (4/4), done.        '), {
    phase: 'Counting objects',
    remote: true,
    done: 4,
    total: 4,
  });
  t.deepEqual(parseTransferLine('remote: Enumerating objects: 5, done.'), { phase: 'Enumerating objects', remote: true, done: 5 });
  t.deepEqual(parseTransferLine('Resolving deltas: 100% (1/1), done.'), { phase: 'Resolving deltas', remote: false, done: 1, total: 1 });
  for (const other of [
    'fatal: repository not found',
    'remote: Total 4 (delta 0), reused 0 (delta 0), pack-reused 0',
    'To ../remote.git',
    'Receiving objects: lots',
    '',
  ])
    t.is(parseTransferLine(other), undefined, other);
});

test('stderr split as it arrives: progress (\\r-separated, cut anywhere) reported, every other line kept', (t) => {
  const seen: GitTransferProgress[] = [];
  const lines = new TransferLines((p) => seen.push(p));
  const stderr =
    'remote: Counting objects:  50% (1/2)\rremote: Counting objects: 100% (2/2)\rremote: Counting objects: 100% (2/2), done.\n' +
    'fatal: the remote end hung up unexpectedly\r\nReceiving objects: 100% (2/2)\nerror: last words';
  // Cut into 3-character chunks: a line, a "\r\n" pair and the last unterminated line all straddle chunks.
  for (let i = 0; i < stderr.length; i += 3) lines.push(stderr.slice(i, i + 3));
  t.is(lines.end(), 'fatal: the remote end hung up unexpectedly\nerror: last words\n');
  t.deepEqual(
    seen.map((p) => `${p.remote ? 'remote ' : ''}${p.phase} ${p.done}/${p.total}`),
    ['remote Counting objects 1/2', 'remote Counting objects 2/2', 'remote Counting objects 2/2', 'Receiving objects 2/2'],
  );
});
