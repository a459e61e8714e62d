import test from 'ava';
import { normalizeTopicPath, topicBlobPath, topicPathFromBlobPath } from '../../src/topic/index.js';

const ok = (raw: string) => {
  const result = normalizeTopicPath(raw);
  return result.ok ? (result.path as string) : `error: ${result.error.message}`;
};

test('valid paths are normalized', (t) => {
  t.is(ok('security/auth'), 'security/auth');
  t.is(ok('security/auth.html'), 'security/auth');
  t.is(ok(' notes '), 'notes');
  t.is(ok('a/b/c/d/e'), 'a/b/c/d/e');
  t.is(ok('v1.2/release_notes-x'), 'v1.2/release_notes-x');
  t.is(ok('文档/Überblick'), '文档/Überblick');
  t.is(ok('cafe\u0301'), 'caf\u00e9', 'NFC');
  t.is(ok(`a/${'x'.repeat(64)}`), `a/${'x'.repeat(64)}`);
});

test('unsafe paths are rejected with unsafe-path and a hint', (t) => {
  const bad = [
    '',
    '/',
    '.html',
    'a//b',
    'a/',
    '/etc/passwd',
    'a/./b',
    'a/../b',
    '..',
    '.brv/format',
    'a/.hidden',
    'a\\b',
    'a/b\u0000',
    'a\tb',
    'a/b\u007f',
    'a/b/c/d/e/f',
    `a/${'x'.repeat(65)}`,
    `${'x'.repeat(60)}/`.repeat(3) + 'x'.repeat(60),
    'a b',
    'a/b?c',
    'a:b',
    '@a/b',
    'a/b.html.html',
    'a/b*',
  ];
  for (const raw of bad) {
    const result = normalizeTopicPath(raw);
    t.false(result.ok, JSON.stringify(raw));
    if (!result.ok) {
      t.is(result.error.kind, 'unsafe-path');
      t.regex(result.error.message, /Use 1-5 segments/);
    }
  }
});

test('blob paths', (t) => {
  const result = normalizeTopicPath('security/auth');
  if (!result.ok) return t.fail();
  t.is(topicBlobPath(result.path), 'security/auth.html');
  t.is(topicPathFromBlobPath('security/auth.html') as string | undefined, 'security/auth');
  t.is(topicPathFromBlobPath('notes.html') as string | undefined, 'notes');
  for (const p of ['.brv/format', '.brv/x.html', 'notes.md', 'a/.b.html', 'a/b', 'a/b.html.html'])
    t.is(topicPathFromBlobPath(p), undefined, p);
});
