import test from 'ava';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { cleanup, makeRepo } from '../helpers/repo.js';
import { fuzzTopics, storeAndCheck, unsafeParts } from './lib/fuzz-topics.js';

// Issue 9, campaign 2 (the full size is bench/attack/fuzz-topics.ts): nothing unsafe is ever stored.

test('fuzzed hostile topics: whatever the validator accepts is stored with nothing executable and validates again', (t) => {
  const stats = fuzzTopics({ numRuns: 4000, seed: 9 });
  t.is(stats.unsafeStored, 0);
  // The generator must exercise both sides, or the property says nothing.
  t.true(stats.accepted > 500, `accepted ${stats.accepted}`);
  t.true(stats.rejected > 500, `rejected ${stats.rejected}`);
});

test('accepted fuzzed topics written through the real writer read back safe from git', async (t) => {
  const samples = fuzzTopics({ numRuns: 400, seed: 10, keepAccepted: 40 }).samples;
  t.true(samples.length >= 20);
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  t.deepEqual(await storeAndCheck(repo, samples), []);
});

test('the checker itself finds every kind of executable content', (t) => {
  const wrap = (body: string) => `<bv-topic path="a/b" title="t">${body}</bv-topic>`;
  for (const body of [
    '<script>x</script>',
    '<bv-rule><img src=x onerror=alert(1)></bv-rule>',
    '<bv-rule><a href="java&#x09;script:x">x</a></bv-rule>',
    '<bv-rule><a href=" DATA:text/html,x">x</a></bv-rule>',
    '<!-- c -->',
    '<bv-rule><iframe></iframe></bv-rule>',
    '<bv-rule style="x">y</bv-rule>',
  ]) {
    t.not(unsafeParts(wrap(body)).length, 0, body);
  }
  const fine = validateTopicHtml('<bv-topic path="a/b" title="t"><bv-rule>fine <a href="https://x.example">x</a></bv-rule></bv-topic>');
  if (!fine.ok) return t.fail(JSON.stringify(fine.errors));
  t.deepEqual(unsafeParts(fine.topic.canonicalHtml), []);
});
