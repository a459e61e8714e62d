import test from 'ava';
import { markdownDestination, markdownInline } from '../../src/topic/inline.js';
import { inertMarkdown } from '../../src/topic/render.js';
import { renderStoredTopic } from '../../src/topic/stored.js';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { fastBlobDocument } from '../../src/index/fast-extract.js';
import { attribute, text } from '../helpers/hostile.js';
import { formatFinding, renderOracle } from '../helpers/render-oracle.js';

/** Issue 31's breakout shapes: each a link or image destination the validator takes for a relative URL. */
const BREAKOUTS = [
  '<script>document.title=31337</script>',
  '<style>*{color:red}</style>',
  '</p><img src=x onerror=alert(1)>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<?php <img src=x onerror=alert(1)> ?>',
  '<![CDATA[<img src=x onerror=alert(1)>]]>',
  '<x-runbook onclick=alert(1)>',
  '<svg/onload=alert(1)>',
  '&#106;avascript:alert(1)',
  '<https://x/> <img src=x onerror=alert(1)>',
];

/** Every finding of the oracle for each markdown, one line each, with the markdown that made it. */
function findings(markdowns: readonly string[], images = false): string[] {
  return renderOracle(markdowns, { images }).flatMap((found, i) => found.map((finding) => `${formatFinding(finding)}\n${markdowns[i]}`));
}

test('link and image destinations never break out into HTML in any renderer', (t) => {
  const markdowns: string[] = [];
  for (const url of BREAKOUTS) {
    const html = `<bv-topic path="a/b" title="T"><bv-reason><a href="${attribute(url)}" title="${attribute(url)}">the runbook</a></bv-reason><bv-structure><p><img src="${attribute(url)}" alt="${attribute(url)}"></p></bv-structure></bv-topic>`;
    // The validator takes those without a space for a relative URL; a push carries any of them.
    markdowns.push(renderStoredTopic(html));
  }
  t.deepEqual(findings(markdowns, true).slice(0, 5), []);
  // The destination is percent-encoded: no `<…>` form, no backslash escape, and the title is dropped.
  t.true(
    validateTopicHtml('<bv-topic path="a/b" title="T"><bv-reason><a href="&lt;script&gt;x&lt;/script&gt;">r</a></bv-reason></bv-topic>').ok,
  );
  t.true(markdowns[0]!.includes('[the runbook](%3Cscript%3Edocument.title=31337%3C/script%3E)'), markdowns[0]);
  t.false(markdowns.some((markdown) => markdown.includes('](<')));
});

test('markdownDestination: what could end or escape a destination is percent-encoded, the rest kept', (t) => {
  t.is(markdownDestination('https://x.example/a_b/c-d.html?q=1&r=2#top'), 'https://x.example/a_b/c-d.html?q=1&r=2#top');
  t.is(markdownDestination('<script>'), '%3Cscript%3E');
  t.is(markdownDestination('a b(c)"d\'e\\f`g[h]{i}|j^k'), 'a%20b%28c%29%22d%27e%5Cf%60g%5Bh%5D%7Bi%7D%7Cj%5Ek');
  t.is(markdownDestination('100%/%41%zz'), '100%25/%41%25zz');
  t.is(markdownDestination('https://de.example/Straße/😀'), 'https://de.example/Stra%C3%9Fe/%F0%9F%98%80');
  t.is(markdownDestination('x\ud800y\n'), 'x%EF%BF%BDy%0A');
  // An `&` that would start a character reference is `&amp;` (read back as `&`); `&r=2` is left as written.
  t.is(markdownDestination('?a&#106;&copy;&r=2'), '?a&amp;#106;&amp;copy;&r=2');
});

test('text is inert in the Markdown.pl family too: `<` and `&` as entities where a backslash is not an escape', (t) => {
  const payloads = [
    '<img src=x onerror=alert(1)>',
    '</p><script>alert(1)</script>',
    '<!--x--><svg onload=alert(1)>',
    '<?x?><iframe src=javascript:alert(1)>',
  ];
  const markdowns = payloads.map((payload) =>
    renderStoredTopic(
      `<bv-topic path="a/b" title="${attribute(payload)}" summary="${attribute(payload)}"><bv-reason>${text(payload)}</bv-reason>` +
        `<bv-rule id="${attribute(payload)}">${text(payload)} <b>${text(payload)}</b></bv-rule><bv-structure><ul><li>${text(payload)}</li></ul><h3>${text(payload)}</h3></bv-structure></bv-topic>`,
    ),
  );
  t.deepEqual(findings(markdowns).slice(0, 5), []);
  t.true(markdowns[0]!.startsWith('# &lt;img src=x onerror=alert(1)>\n'), markdowns[0]);
  t.true(markdowns[0]!.includes('**Reason:** &lt;img src=x onerror=alert(1)>'), markdowns[0]);
});

test("markdown written as a link's text stays text: marked reads a label again after unescaping it", (t) => {
  const payloads = ['![x](data:text/html,x)', '[x](javascript:alert(1))', '![x](javascript:alert(1)) and [y](vbscript:x)'];
  const markdowns = payloads.map((payload) =>
    renderStoredTopic(
      `<bv-topic path="a/b" title="T"><bv-reason><a href="https://ok.example/">${text(payload)}</a></bv-reason></bv-topic>`,
    ),
  );
  t.deepEqual(findings(markdowns, true).slice(0, 5), []);
  t.true(markdowns[0]!.includes('[!\\[x\\]\\(data:text/html,x)](https://ok.example/)'), markdowns[0]);
});

test('ordinary text stays readable: entities only where some renderer would read markup', (t) => {
  const markdown = renderStoredTopic(
    '<bv-topic path="a/b" title="R&amp;D: a &lt; b"><bv-reason>R&amp;D uses access_token_ttl when a &lt; b &amp;&amp; c &gt; d, not &amp;amp;.</bv-reason>' +
      '<bv-examples><pre><code class="language-ts">if (a &lt; b &amp;&amp; c) return;</code></pre></bv-examples><bv-rule><code>a &lt; b</code> always</bv-rule></bv-topic>',
  );
  t.true(markdown.startsWith('# R&D: a < b\n'), markdown);
  t.true(markdown.includes('**Reason:** R&D uses access_token_ttl when a < b && c > d, not &amp;amp;.'), markdown);
  t.true(markdown.includes('```ts\nif (a < b && c) return;\n```'), markdown);
  t.true(markdown.includes('- **Rule:** `a < b` always'), markdown);
  t.is(markdownInline('a < b, R&D, x<y'), 'a < b, R&D, x&lt;y');
  t.is(markdownInline('see [x] (y)'), 'see [x\\] (y)');
});

test('code that a renderer without fences would read as markup is an indented block, inert everywhere, also in list items', (t) => {
  const code = '&lt;script>alert(1)&lt;/script>\n\n&lt;img src=x onerror=alert(1)>\n[x](javascript:alert(1))';
  const htmls = [
    `<bv-topic path="a/b" title="T"><bv-diagram type="html">${code}</bv-diagram></bv-topic>`,
    `<bv-topic path="a/b" title="T"><bv-examples><pre><code class="language-html">${code}</code></pre></bv-examples></bv-topic>`,
    `<bv-topic path="a/b" title="T"><bv-rule><p>x</p><pre><code>${code}</code></pre></bv-rule></bv-topic>`,
    `<bv-topic path="a/b" title="T"><bv-structure><ul><li><p>a</p><pre><code>${code}</code></pre></li></ul><ol><li><p>b</p><pre>${code}</pre></li></ol></bv-structure></bv-topic>`,
    `<bv-topic path="a/b" title="T"><bv-structure><pre>a\u2028&lt;script>alert(1)&lt;/script></pre></bv-structure></bv-topic>`,
  ];
  const markdowns = htmls.map(renderStoredTopic);
  t.deepEqual(findings(markdowns).slice(0, 5), []);
  // The code itself is kept as written (CommonMark reads the indented block verbatim).
  t.true(markdowns[1]!.includes('\n    <script>alert(1)</script>\n\n    <img src=x onerror=alert(1)>\n'), markdowns[1]);
  t.true(markdowns[2]!.startsWith('# T\n\n-   **Rule:** x\n\n        <script>'), markdowns[2]);
  // The fast path does not model indented code: it bails, so both paths write the same bytes.
  for (const html of htmls) {
    const valid = validateTopicHtml(html);
    if (valid.ok) t.is(fastBlobDocument(valid.topic.canonicalHtml), undefined, html);
  }
});

test("indented code after a list ends the list first (else CommonMark reads it as the item's raw HTML)", (t) => {
  const code = '&lt;script>alert(1)&lt;/script>';
  const markdowns = [
    `<bv-topic path="a/b" title="T"><bv-structure><ul><li>a</li></ul><pre>${code}</pre></bv-structure></bv-topic>`,
    `<bv-topic path="a/b" title="T"><bv-rule>r</bv-rule><pre>${code}</pre></bv-topic>`,
  ].map(renderStoredTopic);
  t.deepEqual(findings(markdowns), []);
  t.true(markdowns[0]!.includes('- a\n\n<!---->\n\n    <script>'), markdowns[0]);
});

test("a model's markdown (answers) is made as inert as a rendered topic, and stays readable", (t) => {
  const answers = [
    'See <script>alert(1)</script> and [x](javascript:alert(1)) and ![i](data:text/html,x) [ops/runbook].',
    '<div>\n<img src=x onerror=alert(1)>\n</div>\n\n- <svg onload=alert(1)>\n\n```\n<script>alert(1)</script>\n```',
    '[a]: javascript:alert(1)\n\n[a] and [b] (javascript:alert(1)) and a\u2028<script>x</script>',
    '[r](<script>document.title=31337</script>) and <https://ok.example/a>',
  ];
  const inert = answers.map(inertMarkdown);
  t.deepEqual(findings(inert), []);
  t.true(inert[0]!.startsWith('See &lt;script>alert(1)&lt;/script> and x and i'), inert[0]);
  t.is(inertMarkdown('Use `Array<T>` and **R&D**; a < b.'), 'Use `Array<T>` and **R&D**; a < b.');
});
