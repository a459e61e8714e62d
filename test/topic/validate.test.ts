import test from 'ava';
import { readFileSync } from 'node:fs';
import { MAX_TOPIC_BYTES, validateTopicHtml, type TopicError } from '../../src/topic/index.js';
import { sanitizerWouldChange } from '../../src/topic/safety.js';
import { parseTopicHtml } from '../../src/topic/parse.js';
import { FIXTURES, fixture, htmlFixtures } from './fixtures.js';

const expected = JSON.parse(readFileSync(`${FIXTURES}invalid/expected.json`, 'utf8')) as Record<string, string[]>;
const kinds = (errors: TopicError[]) => [...new Set(errors.map((e) => e.kind))].sort();
const T = '<bv-topic path="a/b" title="T">';

function errorsOf(html: string): TopicError[] {
  const result = validateTopicHtml(html);
  if (result.ok) throw new Error(`expected errors, got a valid topic for: ${html.slice(0, 120)}`);
  return result.errors;
}

test('every invalid fixture is listed in expected.json', (t) => {
  t.deepEqual(
    htmlFixtures('invalid').map((f) => f.name),
    Object.keys(expected).sort(),
  );
});

for (const { name, html } of htmlFixtures('invalid')) {
  test(`invalid/${name} → ${(expected[name] ?? []).join(', ')}`, (t) => {
    const errors = errorsOf(html);
    t.deepEqual(kinds(errors), [...(expected[name] ?? ['?'])].sort(), JSON.stringify(errors, null, 1));
    for (const error of errors) t.true(error.message.length > 20, error.message);
  });
}

for (const { name, html } of htmlFixtures('valid')) {
  test(`valid/${name} validates`, (t) => {
    const result = validateTopicHtml(html);
    t.true(result.ok, result.ok ? '' : JSON.stringify(result.errors, null, 1));
  });
}

test('full topic: parsed fields', (t) => {
  const result = validateTopicHtml(fixture('valid', 'full-vocabulary.html'));
  if (!result.ok) return t.fail();
  const { path, title, summary, tags, keywords, related, root } = result.topic;
  t.is(path as string, 'security/auth');
  t.is(title, 'Authentication and Authorization');
  t.true(summary?.startsWith('JWT access tokens'));
  t.deepEqual(tags, ['security', 'authentication']);
  t.deepEqual(keywords, ['jwt', 'rs256', 'refresh']);
  t.deepEqual(related as unknown, [
    { ok: true, ref: '@security/cookies', path: 'security/cookies', explicitTopic: false },
    { ok: true, ref: '@security/oauth.html', path: 'security/oauth', explicitTopic: true },
  ]);
  t.is(root.tagName, 'bv-topic');
});

test('stamped createdat/updatedat are tolerated and not stored', (t) => {
  const result = validateTopicHtml(fixture('valid', 'stamped.html'));
  if (!result.ok) return t.fail(JSON.stringify(result.errors));
  t.false(/createdat|updatedat|2026-05/.test(result.topic.canonicalHtml));
});

test('a fenced, trailing-.html path is normalized', (t) => {
  const result = validateTopicHtml(fixture('valid', 'fenced-and-messy.html'));
  if (!result.ok) return t.fail(JSON.stringify(result.errors));
  t.is(result.topic.path as string, 'style/messy');
  t.deepEqual(result.topic.tags, ['b', 'a']);
});

test('all errors are returned together', (t) => {
  const errors = errorsOf(fixture('invalid', 'three-problems.html'));
  t.is(errors.length, 3, JSON.stringify(errors, null, 1));
  const html = `Intro<bv-topic path="/abs" title="" importance="1"><p>x</p><bv-rule severity="no">y</bv-rule><bv-nope>z</bv-nope><bv-task onclick="x()">t</bv-task></bv-topic>`;
  t.deepEqual(kinds(errorsOf(html)), [
    'attribute-validation',
    'content-outside-topic',
    'invalid-nesting',
    'unknown-element',
    'unsafe-html',
    'unsafe-path',
  ]);
});

test('errors name the tag and the HTML attribute', (t) => {
  const [error] = errorsOf(`${T}<bv-reason><img alt="x" src="a.png" onError="x()"></bv-reason></bv-topic>`);
  t.like(error, { kind: 'unsafe-html', tag: 'img', attribute: 'onerror' });
  const [attr] = errorsOf(`${T}<bv-rule severity="urgent">x</bv-rule></bv-topic>`);
  t.like(attr, { kind: 'attribute-validation', tag: 'bv-rule', attribute: 'severity' });
  t.regex(attr?.message ?? '', /info, must, should/);
});

test('each obfuscated javascript: URL is reported', (t) => {
  const errors = errorsOf(fixture('invalid', 'javascript-obfuscated.html'));
  t.is(errors.length, 4, JSON.stringify(errors, null, 1));
  t.true(errors.every((e) => e.attribute === 'href'));
});

test('unknown element message says the vocabulary is closed and suggests close names', (t) => {
  const [error] = errorsOf(fixture('invalid', 'unknown-element.html'));
  t.regex(error?.message ?? '', /closed/);
  t.regex(error?.message ?? '', /Did you mean <bv-rule>/);
});

test('nesting errors name the element, its parent and what is allowed', (t) => {
  const [error] = errorsOf(fixture('invalid', 'ul-in-inline.html'));
  t.regex(error?.message ?? '', /<ul> is not allowed inside <bv-task> \(inline content: text and <code>/);
  const [li] = errorsOf(fixture('invalid', 'li-outside-list.html'));
  t.regex(li?.message ?? '', /<li> is inside <bv-reason>/);
});

test('NUL and other control characters are rejected, never stripped', (t) => {
  t.deepEqual(kinds(errorsOf(`${T}<bv-reason>a\u0000b</bv-reason></bv-topic>`)), ['unsafe-html']);
  t.deepEqual(kinds(errorsOf(`${T}<bv-reason>a\u001bb</bv-reason></bv-topic>`)), ['unsafe-html']);
  t.deepEqual(kinds(errorsOf(`<bv-topic path="a/b\u0001" title="T"></bv-topic>`)), ['unsafe-html', 'unsafe-path']);
  t.true(validateTopicHtml(`${T}<bv-reason>tab\there\r\n</bv-reason></bv-topic>`).ok);
});

test('oversize input gives only too-large', (t) => {
  const big = `${T}<bv-reason>${'x'.repeat(MAX_TOPIC_BYTES)}</bv-reason><script>x</script></bv-topic>`;
  t.deepEqual(
    errorsOf(big).map((e) => e.kind),
    ['too-large'],
  );
  const multibyte = `${T}<bv-reason>${'é'.repeat(MAX_TOPIC_BYTES / 2)}</bv-reason></bv-topic>`;
  t.deepEqual(
    errorsOf(multibyte).map((e) => e.kind),
    ['too-large'],
  );
});

test('limits can be lowered', (t) => {
  const result = validateTopicHtml(`${T}<bv-reason>${'x'.repeat(200)}</bv-reason></bv-topic>`, { maxBytes: 100 });
  t.false(result.ok);
});

test('never throws on garbage', (t) => {
  for (const html of [
    '',
    '   ',
    '<',
    '<bv-topic',
    '```',
    '```html\n```',
    '<bv-topic path=a/b title=T><bv-reason><table><td>x</bv-reason>',
    '\uD800',
  ]) {
    t.notThrows(() => validateTopicHtml(html));
  }
});

test('backstop: the real sanitizer agrees with valid fixtures and catches what it removes', (t) => {
  for (const { name, html } of htmlFixtures('valid')) {
    // Comments are dropped by validation (with a warning) as by the sanitizer; the stored form has none.
    if (!name.startsWith('comment-')) t.false(sanitizerWouldChange(parseTopicHtml(html)), name);
    const result = validateTopicHtml(html);
    if (result.ok) t.false(sanitizerWouldChange(parseTopicHtml(result.topic.canonicalHtml)), name);
  }
  t.true(sanitizerWouldChange(parseTopicHtml('<p><a href="javascript:x">y</a></p>')));
});

test('an outer ```html fence is stripped, an inner one is content', (t) => {
  t.true(validateTopicHtml('```html\n<bv-topic path="a" title="A"></bv-topic>\n```').ok);
  t.true(validateTopicHtml('  ```\n<bv-topic path="a" title="A"></bv-topic>```  ').ok);
  t.deepEqual(kinds(errorsOf('Sure!\n```html\n<bv-topic path="a" title="A"></bv-topic>\n```')), ['content-outside-topic']);
});

test('absurd nesting is refused, not a stack overflow', (t) => {
  for (const n of [150, 5000, 60000]) {
    const result = validateTopicHtml(`${T}<bv-reason>${'<b>'.repeat(n)}x</bv-reason></bv-topic>`);
    t.deepEqual(result.ok ? [] : result.errors.map((e) => e.kind), ['too-large'], String(n));
  }
  t.true(validateTopicHtml(`${T}<bv-structure>${'<blockquote>'.repeat(60)}x</bv-structure></bv-topic>`).ok);
});

test('URLs: relative, anchors, http(s) and mailto pass; odd schemes get a precise message', (t) => {
  const links = ['https://a.b/c', 'http://a.b', 'mailto:x@y.z', '/docs/x', '../x', '#frag', 'page?x=a:b', 'a/b:c'];
  const html = `${T}<bv-highlights><p>${links.map((href) => `<a href="${href}">x</a>`).join(' ')}</p></bv-highlights></bv-topic>`;
  t.true(validateTopicHtml(html).ok);
  const [upper] = errorsOf(`${T}<bv-task><a href="HTTPS://a.b">x</a></bv-task></bv-topic>`);
  t.regex(upper?.message ?? '', /lowercase/);
  t.is(upper?.kind, 'attribute-validation', 'a safe scheme in capitals is no danger');
  t.like(errorsOf(`${T}<bv-task><a href=" https://a.b">x</a></bv-task></bv-topic>`)[0], { kind: 'attribute-validation' });
  t.like(errorsOf(`${T}<bv-task><a href="JavaScript:x">x</a></bv-task></bv-topic>`)[0], { kind: 'unsafe-html' });
  const [ftp] = errorsOf(`${T}<bv-task><a href="ftp://a.b">x</a></bv-task></bv-topic>`);
  t.regex(ftp?.message ?? '', /"ftp:" URL/);
});

test('errors say where their element starts in the HTML as sent, fence and leading blank lines included', (t) => {
  const body =
    '<bv-topic path="a/b" title="T">\n  <bv-rule id="r1" severity="bogus">x</bv-rule>\n  <p>loose</p>\n<script>alert(1)</script><bv-rul>y</bv-rul>\n</bv-topic>';
  const where = (html: string) => {
    const result = validateTopicHtml(html);
    if (result.ok) throw new Error('expected errors');
    return result.errors.map((e) => `${e.kind} ${e.tag} ${e.line}:${e.column}`).sort();
  };
  const expected = ['attribute-validation bv-rule 2:3', 'invalid-nesting p 3:3', 'unknown-element bv-rul 4:26', 'unsafe-html script 4:1'];
  t.deepEqual(where(body), expected);
  // Two blank lines and a fence line before it: three lines down. Indented on its first line: columns move there only.
  t.deepEqual(
    where(`\n\n\`\`\`html\n${body}\n\`\`\``),
    expected.map((e) => e.replace(/ (\d+):/, (_, line: string) => ` ${Number(line) + 3}:`)),
  );
  const indented = validateTopicHtml(`   <bv-topic path="a/b" title="T"><bv-rul>y</bv-rul></bv-topic>`);
  t.like(!indented.ok && indented.errors[0], { tag: 'bv-rul', line: 1, column: 35 });
  // Errors about the whole text carry no position.
  const control = validateTopicHtml('<bv-topic path="a/b" title="T"><bv-rule>\u0007</bv-rule></bv-topic>');
  t.true(!control.ok && control.errors.every((e) => e.line === undefined));
});
