import test from 'ava';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { EMPTY_FORM, formGap, formHtml, formMeta, KINDS } from '../../src/views/curate-form.js';

test('the form makes a valid topic with every value escaped, whatever is typed', (t) => {
  const form = {
    ...EMPTY_FORM,
    path: ' ops/rollback ',
    title: 'Rollbacks "fast" & <safe>',
    summary: '<script>alert(1)</script>',
    kind: 1,
    text: 'Roll back with the previous tag </bv-rule><script>x()</script> & keep the DB.',
    reason: '  incident 42  ',
  };
  const html = formHtml(form);
  const checked = validateTopicHtml(html);
  t.true(checked.ok, JSON.stringify(!checked.ok && checked.errors));
  if (!checked.ok) return;
  t.is(String(checked.topic.path), 'ops/rollback');
  t.is(checked.topic.title, 'Rollbacks "fast" & <safe>');
  t.regex(html, /<bv-rule severity="should">Roll back with the previous tag &lt;\/bv-rule&gt;&lt;script&gt;/);
  t.notRegex(html, /<script>/);
  t.deepEqual(formMeta(form), { reason: 'incident 42' });
  t.is(formMeta({ ...form, reason: ' ' }), undefined);
});

test('every kind makes a valid topic; the form says what it still lacks', (t) => {
  for (let kind = 0; kind < KINDS.length; kind++) {
    const html = formHtml({ ...EMPTY_FORM, path: 'a/b', title: 'T', text: 'Some knowledge.', kind });
    t.true(validateTopicHtml(html).ok, `${KINDS[kind]!.label}: ${html}`);
  }
  t.regex(formGap(EMPTY_FORM)!, /path/);
  t.regex(formGap({ ...EMPTY_FORM, path: 'a/b' })!, /title/);
  t.regex(formGap({ ...EMPTY_FORM, path: 'a/b', title: 'T' })!, /knowledge itself/);
  t.is(formGap({ ...EMPTY_FORM, path: 'a/b', title: 'T', text: 'x' }), undefined);
});
