import test from 'ava';
import { embeddingText, MAX_EMBEDDING_CHARS } from '../../src/index/embedding-text.js';

test('a topic is embedded as its rendered text without markup or attribute lists', (t) => {
  const markdown =
    '# Auth tokens\n\n> Signing.\n\nTags: auth, jwt\n\n- **Rule** [must]: Sign with `RS256`.\n\n- **Fact** (subject=D1:4): Keys rotate.\n';
  t.is(embeddingText(markdown), 'Auth tokens\nSigning.\nTags: auth, jwt\nRule [must]: Sign with RS256.\nFact : Keys rotate.');
});

test('a long topic is cut at a word boundary within the cap', (t) => {
  const text = embeddingText(`# Long\n\n${'word '.repeat(2000)}`);
  t.true(text.length <= MAX_EMBEDDING_CHARS);
  t.true(text.length > MAX_EMBEDDING_CHARS - 10);
  t.true(text.endsWith('word'));
});
