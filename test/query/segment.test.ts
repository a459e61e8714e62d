import test from 'ava';
import { BrvError } from '../../src/base/errors.js';
import { analyze } from '../../src/index/analyze.js';
import { FIELD_COUNT, FIELDS, type SegmentInput } from '../../src/index/document.js';
import { buildSegment, Segment } from '../../src/index/segment.js';

const blob = (n: number) => n.toString(16).padStart(40, '0');

function doc(path: string, title: string, body: string, extra: Partial<SegmentInput> = {}): SegmentInput {
  return {
    path,
    title,
    blob: blob(path.length * 7919),
    fields: { title, path: path.split(/[/_-]+/).join(' '), meta: '', key: '', body },
    dates: [],
    kinds: [],
    ...extra,
  };
}

const DOCS: SegmentInput[] = [
  doc('security/auth', 'Authentication', 'JWT tokens are signed with RS256; refresh tokens rotate.', {
    fields: {
      title: 'Authentication',
      path: 'security auth',
      meta: 'jwt rs256 security',
      key: 'Failed validation must return 401',
      body: 'JWT tokens are signed with RS256; refresh tokens rotate. Failed validation must return 401',
    },
    dates: ['2024-03-05', '2026-04-15'],
    kinds: ['bv-fact', 'bv-rule'],
  }),
  doc('database/migrations', 'Migrations', 'Run migrations in a transaction; never edit an applied migration.'),
  doc('文档/Überblick', 'Überblick — 概要', 'Pfade dürfen Buchstaben aller Schriften enthalten 文档', {
    blob: 'ABCDEF0123456789abcdef0123456789ABCDEF01',
    kinds: ['bv-highlights'],
  }),
  doc('api/rate-limits', 'Rate limits', 'Each tenant gets 100 requests per second; the gateway rejects the rest with 429.'),
  doc('api', 'API overview', 'The public API is versioned: v1 and v2.'),
];

/** The index a segment should hold, computed straight from the documents. */
function expectedPostings(docs: SegmentInput[]): Map<string, Array<{ doc: number; freqs: number[] }>> {
  const sorted = [...docs].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const index = new Map<string, Array<{ doc: number; freqs: number[] }>>();
  sorted.forEach((d, n) => {
    const perDoc = new Map<string, number[]>();
    FIELDS.forEach((field, f) => {
      for (const term of analyze(d.fields[field])) {
        const freqs = perDoc.get(term) ?? new Array<number>(FIELD_COUNT).fill(0);
        freqs[f]!++;
        perDoc.set(term, freqs);
      }
    });
    for (const [term, freqs] of perDoc) index.set(term, [...(index.get(term) ?? []), { doc: n, freqs }]);
  });
  return index;
}

test('round trip: every document and every posting comes back exactly', (t) => {
  const segment = Segment.open(buildSegment(DOCS));
  const sorted = [...DOCS].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  t.deepEqual(
    sorted.map((d) => d.path),
    ['api', 'api/rate-limits', 'database/migrations', 'security/auth', '文档/Überblick'],
  );
  t.is(segment.docCount, DOCS.length);
  sorted.forEach((d, n) => {
    t.deepEqual(segment.doc(n), {
      path: d.path,
      title: d.title,
      blob: d.blob.toLowerCase(),
      dates: d.dates,
      kinds: d.kinds,
      fieldLengths: FIELDS.map((f) => analyze(d.fields[f]).length),
    });
    t.is(segment.path(n), d.path);
    t.is(segment.findPath(d.path), n);
  });
  const expected = expectedPostings(DOCS);
  t.is(segment.termCount, expected.size);
  const terms = Array.from({ length: segment.termCount }, (_, r) => segment.term(r));
  t.deepEqual(
    terms,
    [...expected.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
  );
  for (const [term, postings] of expected) {
    const got = segment.lookup(term);
    if (!got) return t.fail(`missing ${term}`);
    t.is(got.df, postings.length, term);
    t.deepEqual(
      [...got.docs],
      postings.map((p) => p.doc),
      term,
    );
    t.deepEqual(
      [...got.freqs],
      postings.flatMap((p) => p.freqs),
      term,
    );
  }
  t.is(segment.lookup('nonexistent'), undefined);
  t.is(segment.lookup(''), undefined);
  FIELDS.forEach((field, f) =>
    t.is(
      segment.fieldTotals[f],
      DOCS.reduce((sum, d) => sum + analyze(d.fields[field]).length, 0),
    ),
  );
});

test('dictionary prefix search and path lookups', (t) => {
  const segment = Segment.open(buildSegment(DOCS));
  t.deepEqual(segment.termsWithPrefix('rot', 10), ['rotat']);
  t.deepEqual(segment.termsWithPrefix('r', 3), ['rate', 'refresh', 'reject']);
  t.deepEqual(segment.termsWithPrefix('zzz', 10), []);
  t.deepEqual(segment.termsWithPrefix('文', 10), ['文档']);
  t.is(segment.findPath('api/rate'), -1);
  t.deepEqual(segment.pathPrefixRange('api/'), [1, 2]);
  t.deepEqual(segment.pathPrefixRange('api'), [0, 2]);
  t.deepEqual(segment.pathPrefixRange('zz'), [4, 4]); // 'zz' sorts before '文'
  t.deepEqual(segment.pathPrefixRange('\uffff'), [5, 5]);
  t.deepEqual(segment.pathPrefixRange(''), [0, 5]);
});

test('deterministic: input order does not change the bytes', (t) => {
  const a = buildSegment(DOCS);
  const b = buildSegment([...DOCS].reverse());
  t.deepEqual(Buffer.from(a), Buffer.from(b));
});

test('an empty segment is valid', (t) => {
  const segment = Segment.open(buildSegment([]));
  t.is(segment.docCount, 0);
  t.is(segment.termCount, 0);
  t.is(segment.lookup('x'), undefined);
  t.deepEqual(segment.termsWithPrefix('x', 5), []);
  t.is(segment.findPath('x'), -1);
});

test('open works on an unaligned view (as a Buffer slice may be)', (t) => {
  const bytes = buildSegment(DOCS);
  const padded = new Uint8Array(bytes.length + 3);
  padded.set(bytes, 3);
  const segment = Segment.open(padded.subarray(3));
  t.deepEqual(segment.doc(3), Segment.open(bytes).doc(3));
  t.deepEqual([...segment.fieldLengthTable()], [...Segment.open(bytes).fieldLengthTable()]);
});

test('bad input is refused', (t) => {
  t.throws(() => buildSegment([DOCS[0]!, DOCS[0]!]), { message: /distinct paths/ });
  t.throws(() => buildSegment([{ ...DOCS[0]!, blob: 'xyz' }]), { message: /40 or 64 hex/ });
});

test('SHA-256 blob ids round-trip next to SHA-1 ones', (t) => {
  const sha256 = 'ab'.repeat(32);
  const segment = Segment.open(buildSegment([{ ...DOCS[0]!, blob: sha256 }, DOCS[1]!]));
  t.is(segment.doc(segment.findPath(DOCS[0]!.path)).blob, sha256);
  t.is(segment.doc(segment.findPath(DOCS[1]!.path)).blob, DOCS[1]!.blob);
  t.is(segment.path(segment.findPath(DOCS[0]!.path)), DOCS[0]!.path);
});

test('corrupt or foreign bytes throw index-corrupt', (t) => {
  const bytes = buildSegment(DOCS);
  const kind = (f: () => unknown) => {
    const error = t.throws(f);
    t.true(error instanceof BrvError);
    t.is((error as BrvError).kind, 'index-corrupt');
  };
  kind(() => Segment.open(new Uint8Array(10)));
  kind(() => Segment.open(new TextEncoder().encode('{"not": "a segment"}'.padEnd(200))));
  kind(() => Segment.open(bytes.subarray(0, bytes.length - 1)));
  const future = bytes.slice();
  future[8] = 99;
  kind(() => Segment.open(future));
  const shuffled = bytes.slice();
  new DataView(shuffled.buffer).setUint32(24 + 4, 7, true);
  kind(() => Segment.open(shuffled));
});
