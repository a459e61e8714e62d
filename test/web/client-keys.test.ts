import test from 'ava';
import { KeySequence } from '../../src/web/client/keys.js';

test('g then a page key goes there; / focuses search', (t) => {
  const keys = new KeySequence();
  t.is(keys.press('g', 0), null);
  t.deepEqual(keys.press('r', 100), { type: 'go', page: 'reviews' });
  t.is(keys.press('g', 200), null);
  t.deepEqual(keys.press('k', 300), { type: 'go', page: 'knowledge' });
  t.is(keys.press('g', 400), null);
  t.deepEqual(keys.press('s', 500), { type: 'go', page: 'search' });
  t.is(keys.press('g', 600), null);
  t.deepEqual(keys.press('c', 700), { type: 'go', page: 'changes' });
  t.deepEqual(keys.press('/', 800), { type: 'focus-search' });
  t.is(keys.press('g', 900), null);
  t.deepEqual(keys.press('b', 1000), { type: 'go', page: 'branches' });
  t.is(keys.press('g', 1100), null);
  t.deepEqual(keys.press('e', 1200), { type: 'go', page: 'setup' });
});

test('a page key alone, too late, or after another key does nothing', (t) => {
  const keys = new KeySequence();
  t.is(keys.press('r', 0), null);
  t.is(keys.press('g', 0), null);
  t.is(keys.press('r', 5000), null);
  t.is(keys.press('g', 6000), null);
  t.is(keys.press('x', 6100), null);
  t.is(keys.press('r', 6200), null);
  t.is(keys.press('g', 7000), null);
  t.is(keys.press('toString', 7100), null);
});
