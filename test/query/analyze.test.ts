import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import { analyze, analyzeWithOriginals, forEachWord, isStopWord, TermIds, wantedTerms, words } from '../../src/index/analyze.js';
import { seededRandom } from '../helpers/random.js';

test('lowercases and Porter-stems with lunr', (t) => {
  t.deepEqual(analyze('Running Tokens Authentication configured'), ['run', 'token', 'authent', 'configur']);
  // the same stem on both sides is what makes a query for a plural find a singular
  t.deepEqual(analyze('retries'), analyze('retry'));
  t.deepEqual(analyze('rotation rotating'), ['rotat', 'rotat']);
});

test("drops lunr's English stop words", (t) => {
  t.deepEqual(analyze('how do I get the token from the cache and is it there'), ['token', 'cach']);
  t.true(isStopWord('the'));
  t.false(isStopWord('token'));
  t.deepEqual(analyze('the of and'), []);
});

test('keeps numbers and letter-digit words whole', (t) => {
  t.deepEqual(analyze('RS256 v2 2023 HS-256 ipv6'), ['rs256', 'v2', '2023', 'hs', '256', 'ipv6']);
  t.deepEqual(analyze('2023-01-05 3.14'), ['2023', '01', '05', '3', '14']);
});

test('splits on anything that is not a letter, mark or digit', (t) => {
  t.deepEqual(analyze('src/auth/jwt.ts: verifyJwt(token) → refresh_token'), [
    'src',
    'auth',
    'jwt',
    'ts',
    'verifyjwt',
    'token',
    'refresh',
    'token',
  ]);
  t.deepEqual(analyze("don't mix users' tokens"), ['dont', 'mix', 'user', 'token']);
  t.deepEqual(analyze(''), []);
  t.deepEqual(analyze('  ... --- !!! '), []);
});

test('unicode: NFKC, lowercase, letters of every script', (t) => {
  t.deepEqual(analyze('ＪＷＴ Ｔｏｋｅｎ'), ['jwt', 'token']); // fullwidth
  t.deepEqual(analyze('ﬁle'), ['file']); // ligature
  t.deepEqual(analyze('cafe\u0301'), analyze('café')); // combining accent composes
  t.deepEqual(analyze('Müller ÜBERBLICK'), ['müller', 'überblick']);
  t.deepEqual(analyze('Größe'), ['größe']);
  t.deepEqual(analyze('文档/概要 🚀 日本語'), ['文档', '概要', '日本語']);
  t.deepEqual(analyze('Ωμέγα'), ['ωμέγα']);
});

test('very long runs (hashes, base64) are not terms', (t) => {
  t.deepEqual(analyze(`token ${'a'.repeat(65)} ${'b'.repeat(64)}`), ['token', 'b'.repeat(64)]);
});

test('analyzeWithOriginals keeps the words as written', (t) => {
  t.deepEqual(analyzeWithOriginals('JWT-refresh the Tokens'), [
    { term: 'jwt', original: 'JWT' },
    { term: 'refresh', original: 'refresh' },
    { term: 'token', original: 'Tokens' },
  ]);
  t.deepEqual(
    analyzeWithOriginals('Running ＲＳ２５６ and more').map((w) => w.term),
    analyze('Running ＲＳ２５６ and more'),
  );
});

test('"May" is the month when a date is written around it, else the stop word', (t) => {
  t.deepEqual(analyze('8 May 2023'), ['8', 'may', '2023']);
  t.deepEqual(analyze('on May 23, 2023'), ['may', '23', '2023']);
  t.deepEqual(analyze('in May 2023'), ['may', '2023']);
  t.deepEqual(analyze('the 3rd of May'), ['3rd', 'may']);
  t.deepEqual(analyze('It may rain; you may. MAY'), ['rain']);
  // index and query analyse alike
  t.deepEqual(
    analyzeWithOriginals('What did Jon do on 1 May, 2022?').map((w) => w.term),
    analyze('What did Jon do on 1 May, 2022?'),
  );
  t.deepEqual(
    analyzeWithOriginals('in May 2023').map((w) => w.original),
    ['May', '2023'],
  );
});

test("a possessive 's goes before stemming: James's and James are one term", (t) => {
  t.deepEqual(analyze("James's dogs"), analyze('James dogs'));
  t.deepEqual(analyze('Chris\u2019s car'), analyze('Chris car'));
  t.deepEqual(analyze("Melanie's kids"), ['melani', 'kid']);
  t.deepEqual(
    analyzeWithOriginals("James's dogs").map((w) => w.term),
    analyze("James's dogs"),
  );
  // other apostrophes still join
  t.deepEqual(analyze("don't it's o'clock"), ['dont', 'oclock']);
});

const WANTED_PIECES = [
  'Running', 'tokens', 'rotation', "don't", "user's", "James's", 'May', 'may', '8 May', 'May 2023', "May's",
  'MAY', 'the', 'and', 'RS256', 'v2', '2023', 'happy', 'happiness', 'relational', 'yelling', 'Yoga', 'ies',
  'its', 'a', 'x'.repeat(64), 'x'.repeat(65), 'é', 'caf\u00e9', '\ufb01le', 'it\u2019s', "'", "''", "o'", "'s", '-', '.', ',', ' ', '\n',
  '\n\n', '3.14', 'don\'t\'s', 'ab', 'Zebra', 'zz', "O'Neil's", "A'b", 'ROTATIONS',
]; // prettier-ignore

test('wantedTerms is analyze filtered to the wanted terms, on seeded random text', (t) => {
  for (let seed = 1; seed <= 1000; seed++) {
    const random = seededRandom(seed);
    // Half the texts are ASCII only: those take wantedTerms' own scanner, the rest analyze.
    const pieces = seed % 2 ? WANTED_PIECES.filter((p) => /^[\x00-\x7f]*$/.test(p)) : WANTED_PIECES;
    const pick = () => pieces[Math.floor(random() * pieces.length)]!;
    const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => pick() + (random() < 0.7 ? ' ' : '')).join('');
    const all = [...new Set(analyze(text)), 'may', 'run', 'zzz', 'x'.repeat(65)];
    const wanted = new Set(all.filter(() => random() < 0.5));
    const expected = analyze(text).filter((term) => wanted.has(term));
    t.deepEqual(wantedTerms(text, wanted), expected, `seed ${seed}: ${JSON.stringify(text)}`);
  }
});

test("wantedTerms finds every term of real prose (the stemmer keeps a word's first two letters)", async (t) => {
  const folder = new URL('../../fixtures/coding-corpus/topics/', import.meta.url);
  const files = (await readdir(folder, { recursive: true })).filter((f) => f.endsWith('.html'));
  const text = (await Promise.all(files.map((f) => readFile(new URL(f, folder), 'utf8')))).join('\n');
  t.true(text.length > 100_000);
  const terms = analyze(text);
  t.deepEqual(wantedTerms(text, new Set(terms)), terms);
  t.deepEqual(wantedTerms(text, new Set()), []);
});

/** The definition the ASCII scanner must match: analyze.ts's Unicode WORD regex, as a test oracle. */
const WORD = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;
function regexSpans(text: string): Array<[number, number]> {
  return [...text.matchAll(WORD)].map((m) => [m.index, m.index + m[0].length]);
}

test('the ASCII scanner splits as the Unicode regex does (analyze, analyzeWithOriginals, words, forEachWord), on seeded random text', (t) => {
  const ascii = WANTED_PIECES.filter((p) => /^[\x00-\x7f]*$/.test(p)).concat([
    '\t',
    '--',
    "'x'",
    'A1b2',
    '9th of May',
    'May, 2024',
    'y'.repeat(63) + "'s",
  ]);
  for (let seed = 1; seed <= 500; seed++) {
    const random = seededRandom(seed);
    const text = Array.from(
      { length: 1 + Math.floor(random() * 40) },
      () => ascii[Math.floor(random() * ascii.length)]! + (random() < 0.6 ? ' ' : ''),
    ).join('');
    const spans = regexSpans(text);
    const found: Array<[number, number]> = [];
    forEachWord(text, (start, end) => found.push([start, end]));
    t.deepEqual(found, spans, `seed ${seed}: ${JSON.stringify(text)}`);
    const originals = spans.map(([start, end]) => text.slice(start, end)).filter((w) => w.length <= 64);
    const withOriginals = analyzeWithOriginals(text);
    t.deepEqual(
      withOriginals.map((w) => w.term),
      analyze(text),
      `seed ${seed}`,
    );
    t.true(
      withOriginals.every((w) => originals.includes(w.original)),
      `seed ${seed}`,
    );
    const lower = text.toLowerCase();
    const expectedWords = regexSpans(lower)
      .map(([start, end]) =>
        lower
          .slice(start, end)
          .replace(/['\u2019]s$/, '')
          .replace(/['\u2019]/g, ''),
      )
      .filter((w) => w.length <= 64);
    t.deepEqual(words(text), expectedWords, `seed ${seed}`);
  }
});

test('forEachWord: text that is not ASCII goes through the Unicode regex', (t) => {
  const text = "caf\u00e9 \u2019t it\u2019s na\u00efve \u0645\u0631\u062d\u0628\u0627 don't";
  const found: Array<[number, number]> = [];
  forEachWord(text, (start, end) => found.push([start, end]));
  t.deepEqual(found, regexSpans(text));
  t.deepEqual(words(text), ['café', 't', 'it', 'naïve', '\u0645\u0631\u062d\u0628\u0627', 'dont']);
});

test("TermIds.add gives analyze's terms as ids, one table over many seeded texts (words remembered across texts, 'may' never)", (t) => {
  const pieces = WANTED_PIECES.concat(['9th of May', 'May, 2024', "May's 8", 'may be', '12 may', 'MAY 1999']);
  const table = new TermIds();
  for (let seed = 1; seed <= 1000; seed++) {
    const random = seededRandom(seed);
    const usable = seed % 2 ? pieces.filter((p) => /^[\x00-\x7f]*$/.test(p)) : pieces;
    const text = Array.from(
      { length: 1 + Math.floor(random() * 40) },
      () => usable[Math.floor(random() * usable.length)]! + (random() < 0.7 ? ' ' : ''),
    ).join('');
    const ids: number[] = [7]; // appended after what is there
    const added = table.add(text, ids);
    t.is(added, ids.length - 1);
    t.deepEqual(
      ids.slice(1).map((id) => table.terms[id]),
      analyze(text),
      `seed ${seed}: ${JSON.stringify(text)}`,
    );
  }
  t.is(new Set(table.terms).size, table.terms.length, 'one id per term');
  t.is(table.idOf(table.terms[3]!), 3);
});

test('TermIds: tens of thousands of distinct words are found again with the same ids', (t) => {
  const text = Array.from({ length: 30_000 }, (_, i) => `w${i.toString(36)}x${i % 7 ? 'ing' : "'s"}`).join(' ');
  const table = new TermIds();
  const first: number[] = [];
  table.add(text, first);
  t.deepEqual(
    first.map((id) => table.terms[id]),
    analyze(text),
  );
  const again: number[] = [];
  table.add(`${text} may`, again);
  t.deepEqual(again, first);
  t.is(table.terms.length, new Set(analyze(text)).size);
});
