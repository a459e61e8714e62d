import test from 'ava';
import { CatFileBatchParser, type BatchAnswer, type GitObject } from '../../src/git/object-reader.js';
import { seededRandom } from '../helpers/random.js';

// `git cat-file --batch` output, as the pipe may split it anywhere: every answer must come out whole
// and in order, whatever the chunk boundaries (inside a header, a size, the data, its newline).

const oid = (n: number) => n.toString(16).padStart(40, '0');
const blob = (n: number, data: Buffer) => ({ header: `${oid(n)} blob ${data.length}\n`, data });

function stream(): { bytes: Buffer; expected: Array<GitObject | undefined> } {
  const parts: Buffer[] = [];
  const expected: Array<GitObject | undefined> = [];
  const add = (n: number, data: Buffer) => {
    const { header } = blob(n, data);
    parts.push(Buffer.from(header), data, Buffer.from('\n'));
    expected.push({ oid: oid(n), type: 'blob', data });
  };
  add(1, Buffer.from('<bv-topic title="a"></bv-topic>\n'));
  add(2, Buffer.alloc(0));
  add(3, Buffer.from(`${oid(9)} blob 3\nnot a header\n\n`)); // data that looks like output
  parts.push(Buffer.from('refs/brv/heads/main:a b.html missing\n')); // a name with one space
  expected.push(undefined);
  add(4, Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 256)));
  parts.push(Buffer.from('abc ambiguous\n'));
  expected.push(undefined);
  parts.push(Buffer.from(`${'e'.repeat(64)} tree 2\n\x00\x01\n`));
  expected.push({ oid: 'e'.repeat(64), type: 'tree', data: Buffer.from([0, 1]) });
  return { bytes: Buffer.concat(parts), expected };
}

/** Answers as comparable text (ava's deep comparison of 200 KB buffers, 200 times, takes minutes). */
const shown = (answers: BatchAnswer[]) =>
  answers.map((a) =>
    !a
      ? 'missing'
      : 'oversized' in a
        ? `${a.oid} ${a.type} ${a.size} oversized`
        : `${a.oid} ${a.type} ${a.data.length} ${a.data.toString('base64')}`,
  );

function parse(bytes: Buffer, cuts: number[]): string[] {
  const parser = new CatFileBatchParser();
  const answers: BatchAnswer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    parser.push(bytes.subarray(from, cut), (answer) => answers.push(answer));
    from = cut;
  }
  return shown(answers);
}

test('answers come out whole and in order however the output is split', (t) => {
  const { bytes, expected } = stream();
  const want = shown(expected);
  t.deepEqual(parse(bytes, []), want, 'one chunk');
  t.deepEqual(
    parse(
      bytes,
      Array.from({ length: 400 }, (_, i) => i + 1),
    ),
    want,
    'the first 400 bytes one at a time (every header split everywhere)',
  );
  const random = seededRandom(7);
  for (let round = 0; round < 200; round++) {
    const cuts = new Set<number>();
    const count = 1 + Math.floor(random() * 40);
    for (let i = 0; i < count; i++) cuts.add(Math.floor(random() * bytes.length));
    const sorted = [...cuts].sort((a, b) => a - b);
    t.deepEqual(parse(bytes, sorted), want, `cuts ${sorted.slice(0, 8).join(',')}…`);
  }
});

test('the data of an answer is its own copy, not a view of the pipe chunks', (t) => {
  const { bytes, expected } = stream();
  const chunk = Buffer.from(bytes);
  const parser = new CatFileBatchParser();
  const answers: BatchAnswer[] = [];
  parser.push(chunk, (answer) => answers.push(answer));
  chunk.fill(0);
  t.deepEqual(shown(answers), shown(expected));
});

test('an object over the limit is answered from its header and its data dropped as it arrives, never held', (t) => {
  const { bytes, expected } = stream();
  // Object 4 (200 KB) is over a 1,000-byte limit; the rest are read whole.
  const want = shown(
    expected.map((e) => (e && e.data.length > 1000 ? { oid: e.oid, type: e.type, size: e.data.length, oversized: true } : e)),
  );
  const random = seededRandom(11);
  for (let round = 0; round < 100; round++) {
    const parser = new CatFileBatchParser(() => 1000);
    const answers: BatchAnswer[] = [];
    let held = 0;
    let from = 0;
    const cuts = Array.from({ length: 1 + Math.floor(random() * 60) }, () => Math.floor(random() * bytes.length)).sort((a, b) => a - b);
    for (const cut of [...cuts, bytes.length]) {
      const chunk = bytes.subarray(from, cut);
      parser.push(chunk, (answer) => answers.push(answer));
      // What the parser keeps between chunks: never more than the last chunk (plus a partial header).
      held = Math.max(held, (parser as unknown as { length: number }).length - chunk.length);
      from = cut;
    }
    t.deepEqual(shown(answers), want);
    t.true(held < 1000, `held ${held} bytes of earlier chunks`);
  }
});
