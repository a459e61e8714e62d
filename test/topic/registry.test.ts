import test from 'ava';
import { ELEMENTS, elementSpec, renderVocabulary, validateElementAttributes } from '../../src/topic/index.js';

const attrs = (entries: Record<string, string>) => new Map(Object.entries(entries));

test('the registry is the closed 19-element vocabulary in canonical order', (t) => {
  t.deepEqual(
    ELEMENTS.map((e) => e.name),
    [
      'bv-topic',
      'bv-reason',
      'bv-task',
      'bv-changes',
      'bv-files',
      'bv-flow',
      'bv-timestamp',
      'bv-author',
      'bv-pattern',
      'bv-structure',
      'bv-dependencies',
      'bv-highlights',
      'bv-rule',
      'bv-examples',
      'bv-diagram',
      'bv-fact',
      'bv-decision',
      'bv-bug',
      'bv-fix',
    ],
  );
  t.is(elementSpec('bv-topic')?.content, 'any');
  t.is(elementSpec('bv-pattern')?.content, 'text');
  t.is(elementSpec('bv-diagram')?.content, 'text');
  t.is(elementSpec('bv-rule')?.content, 'inline');
  t.is(elementSpec('bv-fix')?.content, 'block');
  t.is(elementSpec('bv-index'), undefined);
});

test('attribute validators', (t) => {
  t.deepEqual(validateElementAttributes('bv-rule', attrs({ severity: 'must', id: 'r-1' })), []);
  t.like(validateElementAttributes('bv-rule', attrs({ id: '' }))[0], { kind: 'attribute-validation', attribute: 'id' });
  t.like(validateElementAttributes('bv-bug', attrs({ severity: 'must' }))[0], { attribute: 'severity' });
  t.like(validateElementAttributes('bv-diagram', attrs({ type: 'svg' }))[0], { attribute: 'type' });
  t.like(validateElementAttributes('bv-fact', attrs({ category: 'misc' }))[0], { attribute: 'category' });
  t.like(validateElementAttributes('bv-reason', attrs({ id: 'x' }))[0], { attribute: 'id' });
  t.regex(validateElementAttributes('bv-reason', attrs({ id: 'x' }))[0]?.message ?? '', /takes no attributes/);
});

test('bv-topic: reserved attributes rejected, stamped dates tolerated, title required', (t) => {
  for (const name of ['importance', 'maturity', 'recency']) {
    t.like(validateElementAttributes('bv-topic', attrs({ path: 'a', title: 'T', [name]: '1' }))[0], {
      kind: 'attribute-validation',
      attribute: name,
    });
  }
  t.deepEqual(validateElementAttributes('bv-topic', attrs({ path: 'a', title: 'T', createdat: 'x', updatedat: 'y' })), []);
  t.like(validateElementAttributes('bv-topic', attrs({ path: 'a' }))[0], { attribute: 'title' });
  t.deepEqual(validateElementAttributes('bv-topic', attrs({ title: 'T' })), [], "missing path is the validator's missing-path-attribute");
});

test('vocabulary prompt text lists every element with its attributes and content', (t) => {
  const text = renderVocabulary();
  for (const e of ELEMENTS) t.true(text.includes(`<${e.name}>`), e.name);
  t.regex(text, /<bv-rule> \(inline content\)/);
  t.regex(text, /severity \(how binding the rule is\): one of info \| must \| should/);
  t.regex(text, /required: path: .*; title:/);
  t.regex(text, /Block content: .*<table>/);
});
