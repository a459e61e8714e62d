import test from 'ava'
import {analyze, analyzeWithOriginals, isStopWord} from '../../src/query/analyze.js'

test('lowercases and Porter-stems with lunr', (t) => {
  t.deepEqual(analyze('Running Tokens Authentication configured'), ['run', 'token', 'authent', 'configur'])
  // the same stem on both sides is what makes a query for a plural find a singular
  t.deepEqual(analyze('retries'), analyze('retry'))
  t.deepEqual(analyze('rotation rotating'), ['rotat', 'rotat'])
})

test("drops lunr's English stop words", (t) => {
  t.deepEqual(analyze('how do I get the token from the cache and is it there'), ['token', 'cach'])
  t.true(isStopWord('the'))
  t.false(isStopWord('token'))
  t.deepEqual(analyze('the of and'), [])
})

test('keeps numbers and letter-digit words whole', (t) => {
  t.deepEqual(analyze('RS256 v2 2023 HS-256 ipv6'), ['rs256', 'v2', '2023', 'hs', '256', 'ipv6'])
  t.deepEqual(analyze('2023-01-05 3.14'), ['2023', '01', '05', '3', '14'])
})

test('splits on anything that is not a letter, mark or digit', (t) => {
  t.deepEqual(analyze('src/auth/jwt.ts: verifyJwt(token) → refresh_token'), ['src', 'auth', 'jwt', 'ts', 'verifyjwt', 'token', 'refresh', 'token'])
  t.deepEqual(analyze("don't mix users' tokens"), ['dont', 'mix', 'user', 'token'])
  t.deepEqual(analyze(''), [])
  t.deepEqual(analyze('  ... --- !!! '), [])
})

test('unicode: NFKC, lowercase, letters of every script', (t) => {
  t.deepEqual(analyze('ＪＷＴ Ｔｏｋｅｎ'), ['jwt', 'token']) // fullwidth
  t.deepEqual(analyze('ﬁle'), ['file']) // ligature
  t.deepEqual(analyze('cafe\u0301'), analyze('café')) // combining accent composes
  t.deepEqual(analyze('Müller ÜBERBLICK'), ['müller', 'überblick'])
  t.deepEqual(analyze('Größe'), ['größe'])
  t.deepEqual(analyze('文档/概要 🚀 日本語'), ['文档', '概要', '日本語'])
  t.deepEqual(analyze('Ωμέγα'), ['ωμέγα'])
})

test('very long runs (hashes, base64) are not terms', (t) => {
  t.deepEqual(analyze(`token ${'a'.repeat(65)} ${'b'.repeat(64)}`), ['token', 'b'.repeat(64)])
})

test('analyzeWithOriginals keeps the words as written', (t) => {
  t.deepEqual(analyzeWithOriginals('JWT-refresh the Tokens'), [
    {term: 'jwt', original: 'JWT'},
    {term: 'refresh', original: 'refresh'},
    {term: 'token', original: 'Tokens'},
  ])
  t.deepEqual(
    analyzeWithOriginals('Running ＲＳ２５６ and more').map((w) => w.term),
    analyze('Running ＲＳ２５６ and more'),
  )
})
