import test from 'ava';
import { stripCodeFence } from '../../src/topic/index.js';

/** Each pathological input must be handled well inside this budget (linear work is milliseconds). */
const BUDGET_MS = 2000;

function timed<T>(run: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

test('stripCodeFence is linear: an unclosed fence over a long run of spaces', (t) => {
  for (const body of [' '.repeat(262_000) + 'x', '\n'.repeat(262_000) + 'x', ' \n'.repeat(131_000) + '``', '\t'.repeat(262_000) + '`']) {
    const { value, ms } = timed(() => stripCodeFence('```\n' + body));
    t.true(ms < BUDGET_MS, `${ms} ms`);
    t.true(value === ('```\n' + body).trim(), 'unclosed: left as it is');
  }
  const { value, ms } = timed(() => stripCodeFence('```\n' + '`'.repeat(262_000)));
  t.true(ms < BUDGET_MS, `${ms} ms`);
  t.true(value === '`'.repeat(262_000 - 3), 'a run of backticks closes the fence with its last three');
});

test('stripCodeFence removes only a fence around the whole input', (t) => {
  t.is(stripCodeFence('```html\n<bv-topic></bv-topic>\n```'), '<bv-topic></bv-topic>');
  t.is(stripCodeFence('  ```html  \r\n<p>a</p>\n\n```  \n'), '<p>a</p>');
  t.is(stripCodeFence('```\n```'), '');
  t.is(stripCodeFence('```\na\n``````'), 'a\n```');
  t.is(stripCodeFence('```html <p>a</p>\n```'), '```html <p>a</p>\n```', 'not an info string');
  t.is(stripCodeFence('```html\n<p>a</p>'), '```html\n<p>a</p>', 'unclosed');
  t.is(stripCodeFence('<p>```x\n```</p>'), '<p>```x\n```</p>', 'an inner fence is content');
  t.is(stripCodeFence('```\n'), '```');
});
