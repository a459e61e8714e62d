import test from 'ava';
import { collapseWhitespace } from '../../src/topic/whitespace.js';
import { seededRandom } from '../helpers/random.js';

// Every kind of whitespace \s knows, and neighbours that are not whitespace.
const PIECES = [' ', '  ', '\t', '\n', '\r\n', '\f', '\v', '\u00a0', '\u2028', '\u3000', '\ufeff', 'a', 'bc', '.', '\u200b', 'é'];

test('collapseWhitespace is /\\s+/g → one space, on seeded random text', (t) => {
  for (let seed = 1; seed <= 2000; seed++) {
    const random = seededRandom(seed);
    const text = Array.from({ length: Math.floor(random() * 30) }, () => PIECES[Math.floor(random() * PIECES.length)]!).join('');
    t.is(collapseWhitespace(text), text.replace(/\s+/g, ' '), JSON.stringify(text));
  }
  t.is(collapseWhitespace(' a  b\n\tc '), ' a b c ');
});
