import test from 'ava';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../../src/base/errors.js';
import type { SegmentInput } from '../../src/index/document.js';
import { buildSegment, mergeSegments, Segment } from '../../src/index/segment.js';
import { SegmentFile } from '../../src/index/segment-file.js';
import { openLocalFileSync } from '../../src/store/local-file.js';
import { tempDir } from '../helpers/repo.js';

/**
 * A segment read from its file as its parts are needed (segment-file.ts) answers exactly as one read
 * whole, reads a small part of a large file for a query's work, and fails as a damaged index (never
 * with wrong bytes) when the file changes under it.
 */
const WORDS = ['deploy', 'pipeline', 'cache', 'release', 'gateway', 'schema', 'rollback', 'token', 'queue', 'metrics'];

function inputs(count: number): SegmentInput[] {
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 40 }, (_, w) => `${WORDS[(i * 7 + w * 3) % WORDS.length]}${(i * 31 + w) % 500}`).join(' ');
    const title = `Topic ${i} about ${WORDS[i % WORDS.length]}`;
    const topicPath = `area${i % 20}/topic-${String(i).padStart(5, '0')}`;
    return {
      path: topicPath,
      title,
      blob: (i + 1).toString(16).padStart(40, '0'),
      fields: { title, path: topicPath.replace(/[/-]/g, ' '), meta: '', key: '', body: words },
      dates: i % 3 === 0 ? ['2026-01-02'] : [],
      kinds: ['bv-fact'],
    };
  });
}

async function segmentOnDisk(count: number) {
  const bytes = buildSegment(inputs(count));
  const file = path.join(await tempDir(), 'segment.seg');
  await writeFile(file, bytes);
  const lazy = () => {
    const opened = openLocalFileSync(file, bytes.length)!;
    return new SegmentFile(opened.fd, Number(opened.stat.size), 'segment.seg');
  };
  return { bytes, file, lazy };
}

function openFds(): number | undefined {
  return existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : undefined;
}

test('a lazily read segment answers every question exactly as one read whole, and a query reads a small part of it', async (t) => {
  const { bytes, lazy } = await segmentOnDisk(3000);
  const whole = Segment.open(bytes);
  const source = lazy();
  const part = Segment.open(source);
  // The header and the last entry of three offset tables: four blocks.
  t.true(source.bytesRead <= 4 * 16 * 1024, `opening read ${source.bytesRead} bytes`);
  // A query's work: its terms' postings, the field lengths, the records of a few hits.
  for (const term of ['deploy7', 'cache42', 'nothing']) t.deepEqual(part.lookup(term), whole.lookup(term), term);
  t.deepEqual(part.fieldLengthTable(), whole.fieldLengthTable());
  for (const doc of [0, 1500, 2999]) t.deepEqual(part.doc(doc), whole.doc(doc));
  t.is(part.findPath('area7/topic-01227'), whole.findPath('area7/topic-01227'));
  t.true(source.bytesRead < bytes.length / 3, `a query read ${source.bytesRead} of ${bytes.length} bytes`);
  // And everything else, in any order.
  for (let doc = whole.docCount - 1; doc >= 0; doc -= 7) t.deepEqual(part.doc(doc), whole.doc(doc));
  for (let rank = 0; rank < whole.termCount; rank += 13) {
    t.is(part.term(rank), whole.term(rank));
    t.is(part.df(rank), whole.df(rank));
    t.deepEqual(part.postingsAt(rank), whole.postingsAt(rank));
  }
  t.deepEqual(part.termsWithPrefix('roll', 50), whole.termsWithPrefix('roll', 50));
  t.deepEqual(part.pathPrefixRange('area1'), whole.pathPrefixRange('area1'));
  // Merging copies raw ranges: it reads the rest in first.
  t.deepEqual(mergeSegments([{ segment: Segment.open(lazy()) }]), mergeSegments([{ segment: whole }]));
});

test('the file descriptor is closed once the whole file is in', async (t) => {
  const { lazy, file, bytes } = await segmentOnDisk(500);
  const onDisk = await stat(file, { bigint: true });
  const before = openFds();
  const source = lazy();
  if (before !== undefined) t.is(openFds(), before + 1);
  source.needAll();
  t.is(source.bytesRead, source.bytes.length);
  if (before !== undefined) t.is(openFds(), before);
  // Read whole for hashing: the status of the file as read (to stamp it), then closed.
  const hashed = lazy();
  const status = hashed.readAllWithStatus();
  t.deepEqual(Buffer.from(hashed.bytes), Buffer.from(bytes));
  t.is(status?.ino, onDisk.ino);
  t.is(status?.mtimeNs, onDisk.mtimeNs);
  if (before !== undefined) t.is(openFds(), before);
  t.is(hashed.readAllWithStatus(), undefined, 'closed: no status');
});

test('a segment file pruned after it was opened still reads; one cut short fails as a damaged index', async (t) => {
  const pruned = await segmentOnDisk(2000);
  const source = pruned.lazy();
  const segment = Segment.open(source);
  await unlink(pruned.file);
  t.deepEqual(segment.doc(1999), Segment.open(pruned.bytes).doc(1999));

  const cut = await segmentOnDisk(2000);
  const shortened = Segment.open(cut.lazy());
  await truncate(cut.file, 40_000);
  const error = t.throws(() => shortened.doc(1999));
  t.true(error instanceof BrvError && error.kind === 'index-corrupt', String(error));
  t.throws(() => shortened.doc(1998), { instanceOf: BrvError }, 'and stays unreadable');
  t.is((await readFile(cut.file)).length, 40_000);
});
