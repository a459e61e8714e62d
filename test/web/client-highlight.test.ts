import test from 'ava';
import { highlight } from '../../src/web/client/highlight.js';

const render = (text: string, terms: string[]) =>
  highlight(text, terms)
    .map((s) => (s.mark ? `[${s.text}]` : s.text))
    .join('');

test('matched terms are marked, case-insensitively, in their original spelling', (t) => {
  t.deepEqual(highlight('Rotate JWT tokens weekly', ['jwt', 'token']), [
    { text: 'Rotate ', mark: false },
    { text: 'JWT', mark: true },
    { text: ' ', mark: false },
    { text: 'token', mark: true },
    { text: 's weekly', mark: false },
  ]);
  t.is(render('Café CAFÉ café', ['café']), '[Café] [CAFÉ] [café]');
});

test('longest term first, adjacent marks merged, no terms or no text', (t) => {
  t.is(render('authentication and auth', ['auth', 'authentication']), '[authentication] and [auth]');
  t.is(render('abab', ['ab']), '[abab]');
  t.deepEqual(highlight('plain', []), [{ text: 'plain', mark: false }]);
  t.deepEqual(highlight('plain', ['', '  ']), [{ text: 'plain', mark: false }]);
  t.deepEqual(highlight('', ['x']), []);
});

test('terms are text, not patterns; markup in the text stays text', (t) => {
  t.is(render('a.b axb (x) [y] \\ $1', ['a.b', '(x)', '[y]', '\\', '$1']), '[a.b] axb [(x)] [[y]] [\\] [$1]');
  t.is(render('<script>alert(1)</script>', ['script']), '<[script]>alert(1)</[script]>');
  // The segments concatenate back to the text, whatever it contains.
  const text = '<img src=x onerror=alert(1)> & é🙂 tokens';
  t.is(
    highlight(text, ['img', 'é', '🙂', 'tokens'])
      .map((s) => s.text)
      .join(''),
    text,
  );
});
