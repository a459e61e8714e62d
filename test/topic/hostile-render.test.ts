import test from 'ava';
import { renderTopicMarkdown, validateTopicHtml } from '../../src/topic/index.js';
import { parseTopicHtml } from '../../src/topic/parse.js';
import { markdownInline } from '../../src/topic/inline.js';
import { isSanitized } from '../../src/topic/safety.js';
import { readStoredTopic, renderStoredTopic } from '../../src/topic/stored.js';
import {
  attribute,
  listTopics,
  PAYLOADS,
  PLANTED_BLOBS,
  RENDERED_ATTRIBUTES,
  renderFailures,
  renderProblems,
  text,
  topicWithAttribute,
  topicWithEveryAttribute,
} from '../helpers/hostile.js';
import { htmlFixtures } from './fixtures.js';

/** The first bv-topic of some HTML, parsed but neither validated nor sanitized. */
function unsanitized(html: string) {
  const topic = parseTopicHtml(html).children.find((c) => c.type === 'element' && c.tagName === 'bv-topic');
  if (topic?.type !== 'element') throw new Error('no topic');
  return topic;
}

test('every rendered attribute, each with every hostile value, renders harmless', (t) => {
  const cases: Array<[string, string]> = [];
  for (const { tag, name } of RENDERED_ATTRIBUTES) {
    for (const payload of PAYLOADS) {
      const html = topicWithAttribute(tag, name, payload);
      // Through the stored-blob gate, and straight from the parse (render's own escaping, no sanitizer).
      for (const [how, markdown] of [
        ['stored', renderStoredTopic(html)],
        ['render', renderTopicMarkdown(unsanitized(html))],
      ] as const) {
        cases.push([`${tag} ${name}=${JSON.stringify(payload)} (${how}):\n${markdown}`, markdown]);
      }
    }
  }
  const failures = renderFailures(cases, { images: false });
  t.deepEqual(failures.slice(0, 5), [], `${failures.length} failures`);
});

test('rendered topics stay harmless side by side (a definition in one would turn text of another into a link)', (t) => {
  const all = [
    ...PAYLOADS.map((payload) => renderStoredTopic(topicWithEveryAttribute('a/b', payload, `<bv-unknown>${text(payload)}</bv-unknown>`))),
    ...listTopics().map(renderStoredTopic),
    ...PLANTED_BLOBS.map(renderStoredTopic),
  ];
  t.deepEqual(renderProblems(all.join('\n\n---\n\n'), { images: true }), []);
  t.deepEqual(
    renderProblems(
      `${renderTopicMarkdown(unsanitized('<bv-topic path="a" title="T"><bv-x>[a]: javascript:alert(1)</bv-x></bv-topic>'))}\n[a]`,
    ),
    [],
  );
});

test('a hostile title, summary or fact stays on its own line as escaped text', (t) => {
  const title = renderStoredTopic(topicWithAttribute('bv-topic', 'title', '<img src=x onerror=alert(1)>'));
  t.true(title.startsWith('# &lt;img src=x onerror=alert(1)>\n'), title);
  const summary = renderStoredTopic(topicWithAttribute('bv-topic', 'summary', '[click](javascript:alert(1))\n# injected\n<script>'));
  t.true(summary.includes('\n> \\[click\\](javascript:alert(1)) # injected &lt;script>\n'), summary);
  const fact = renderStoredTopic(topicWithAttribute('bv-fact', 'value', 'a\n\n- b'));
  t.true(fact.includes('value=a - b)'), fact);
  const type = renderStoredTopic(topicWithAttribute('bv-diagram', 'type', 'x\n<script>`'));
  t.true(type.includes('\n```xscript\ngraph TD; A-->B\n```'), type);
});

test('text directly inside <ul>, <ol>, <dl> and other hostile text renders harmless', (t) => {
  const failures = renderFailures(
    listTopics().flatMap((html) =>
      [renderStoredTopic(html), renderTopicMarkdown(unsanitized(html))].map((markdown) => [`${html}\n${markdown}`, markdown] as const),
    ),
    { images: false },
  );
  t.deepEqual(failures.slice(0, 5), [], `${failures.length} failures`);
  const markdown = renderStoredTopic(
    '<bv-topic path="a/b" title="T"><bv-structure><ul>note &lt;img src=x onerror=alert(1)&gt;<li>a</li></ul></bv-structure></bv-topic>',
  );
  t.true(markdown.includes('- note &lt;img src=x onerror=alert(1)>'), markdown);
});

test('planted blobs are sanitized before rendering: no script, handler, unsafe URL or control character', (t) => {
  for (const html of PLANTED_BLOBS) t.true(readStoredTopic(html).ok, html);
  const failures = renderFailures(PLANTED_BLOBS.map((html) => [`${html}\n${renderStoredTopic(html)}`, renderStoredTopic(html)] as const));
  t.deepEqual(failures.slice(0, 5), [], `${failures.length} failures`);
  t.is(renderStoredTopic(PLANTED_BLOBS[0]!), '# A\n\n**Reason:** click\n');
  const kept = renderStoredTopic(PLANTED_BLOBS.find((b) => b.includes('ok.example'))!);
  t.true(kept.includes('[fine](https://ok.example/)') && kept.includes('![ok](https://ok.example/i.png)'), kept);
});

test('render keeps only safe link and image schemes even on trees nobody sanitized', (t) => {
  const failures = renderFailures(PLANTED_BLOBS.map((html) => [html, renderTopicMarkdown(unsanitized(html))] as const));
  // Scripts, styles and comments are the sanitizer's job; render alone must still keep links and handlers safe.
  t.deepEqual(
    failures.filter((f) => /dangerous URL|event handler|control/.test(f)),
    [],
  );
  const markdown = renderTopicMarkdown(unsanitized(PLANTED_BLOBS[0]!));
  t.is(markdown, '# A\n\n**Reason:** click\n');
});

test('the sanitizer is skipped for blobs that are already safe, and removes what a push smuggled in', (t) => {
  for (const { name, html } of htmlFixtures('valid')) {
    const topic = validateTopicHtml(html);
    if (!topic.ok) return t.fail(name);
    t.true(isSanitized(parseTopicHtml(topic.topic.canonicalHtml)), name);
    const read = readStoredTopic(topic.topic.canonicalHtml);
    t.true(read.ok && renderTopicMarkdown(read.root) === renderTopicMarkdown(topic.topic.root), name);
  }
  const read = readStoredTopic(PLANTED_BLOBS.find((b) => b.includes('onload'))!);
  if (!read.ok) return t.fail();
  t.deepEqual(Object.keys(read.root.properties).sort(), ['path', 'title']);
});

test('control characters: refused after entity decoding, replaced when a stored blob is read', (t) => {
  const topic = (attrs: string, body: string) => `<bv-topic path="a/b" title="T"${attrs}><bv-reason>${body}</bv-reason></bv-topic>`;
  for (const html of [
    topic('', 'a&#x1b;]0;PWNED&#x7;b'),
    topic('', 'a&#27;[2J'),
    topic(' summary="&#x1b;[31m"', 'x'),
    topic('', '<a href="https://x/" title="&#x8;">x</a>'),
    topic('', 'a&#13;b'),
    topic('', '<code>&#x1;</code>'),
  ]) {
    const result = validateTopicHtml(html);
    t.deepEqual(result.ok ? [] : result.errors.map((e) => e.kind), ['unsafe-html'], html);
    if (!result.ok) t.regex(result.errors[0]!.message, /control character/);
  }
  // Tab and newline, written either way, are text; what validates serializes to HTML that validates again.
  const fine = validateTopicHtml(topic(' summary="a&#x9;b"', 'a&#x9;b&#xa;c\td &lt;e&gt; &amp; &#x2028; &#x9b;'));
  if (!fine.ok) return t.fail(JSON.stringify(fine.errors));
  const again = validateTopicHtml(fine.topic.canonicalHtml);
  t.true(again.ok, fine.topic.canonicalHtml);
  if (again.ok) t.is(again.topic.canonicalHtml, fine.topic.canonicalHtml);
  // A planted blob with raw and encoded controls reads without them: title, text, attributes.
  const read = readStoredTopic(
    `<bv-topic path="a/b" title="x\x1b]0;PWNED\x07" summary="&#x1b;"><bv-reason>a&#x1b;b\x00c\x9bd\te\nf</bv-reason></bv-topic>`,
  );
  if (!read.ok) return t.fail();
  t.is(read.title, 'x\uFFFD]0;PWNED\uFFFD');
  t.is(read.root.properties['summary'], '\uFFFD');
  const rendered = renderTopicMarkdown(read.root);
  t.false(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(rendered), rendered);
  t.true(rendered.includes('a\uFFFDb'), rendered);
});

test('markdownInline: ordinary values read as written, markup is escaped', (t) => {
  for (const plain of [
    'access_token_ttl',
    '15 minutes',
    'R&D',
    'C#',
    'a -> b',
    '[draft] notes',
    'x (y)',
    'snake_case_2',
    '@x/y.html',
    'r-1',
  ]) {
    t.is(markdownInline(plain), plain);
  }
  t.is(markdownInline('a\n\n# b\r\n\tc'), 'a # b c');
  t.is(
    markdownInline('<b>*x* `y` [z](j:x) a_ &amp; &#x3c; &b |~\\'),
    '&lt;b>\\*x\\* \\`y\\` [z\\](j:x) a\\_ &amp;amp; &amp;#x3c; &b \\|\\~\\\\',
  );
  t.is(markdownInline('- a', 'line-start'), '\\- a');
  t.is(markdownInline('1. a', 'line-start'), '1\\. a');
  t.is(markdownInline('[a]: b', 'line-start'), '\\[a\\]: b');
  t.is(markdownInline('a #', 'heading'), 'a \\#');
  t.is(markdownInline('\x1b]0;x\x07'), '\uFFFD]0;x\uFFFD');
});

test('the attribute helper encodes controls as references, as a push would carry them', (t) => {
  t.is(attribute('\x1b<"&\n'), '&#x1b;&lt;&quot;&amp;\n');
});
