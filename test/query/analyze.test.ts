import test from 'ava';
import { analyze, analyzeWithOriginals, isStopWord } from '../../src/query/analyze.js';

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
