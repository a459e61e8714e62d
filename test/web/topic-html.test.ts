import test from 'ava';
import type { Element, Nodes } from 'hast';
import { parseTopicHtml } from '../../src/topic/parse.js';
import { topicDisplayHtml } from '../../src/web/topic-html.js';
import { listTopics, PAYLOADS, PLANTED_BLOBS, text, topicWithEveryAttribute } from '../helpers/hostile.js';
import { htmlFixtures } from '../topic/fixtures.js';

const TAGS = new Set(
  'article section header h1 h2 h3 h4 h5 h6 div p span ul ol li dl dt dd pre code strong em b i a br kbd sub sup time mark abbr u s del ins small cite q var samp dfn data bdi bdo wbr blockquote table caption thead tbody tfoot tr th td hr aside footer address details summary figure figcaption img'.split(
    ' ',
  ),
);

/** Everything in display HTML that could run, load, or pose as the dashboard (escaped text is inert: the parse below sees it as text). */
function problems(html: string): string[] {
  const found: string[] = [];
  // Outside double-quoted attribute values (where "<" starts nothing), no dangerous tag is spelled at all.
  if (/<(script|style|iframe|object|embed|svg|math|base|meta|link|form)\b/i.test(html.replace(/="[^"]*"/g, '=""')))
    found.push(`dangerous tag in ${html}`);
  const stack: Nodes[] = [parseTopicHtml(html)];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'comment') found.push('comment');
    if (node.type !== 'element' && node.type !== 'root') continue;
    if (node.type === 'element') found.push(...elementProblems(node));
    stack.push(...node.children);
  }
  return found;
}

function elementProblems(node: Element): string[] {
  const found: string[] = [];
  if (!TAGS.has(node.tagName)) found.push(`tag ${node.tagName}`);
  for (const [name, value] of Object.entries(node.properties)) {
    if (/^on/i.test(name) || name === 'style' || name === 'id' || name.startsWith('data') || name === 'srcDoc' || name === 'target')
      found.push(`${node.tagName} ${name}`);
    if (name === 'className' && (value as string[]).some((c) => !/^bv(-[a-z]+)?$/.test(c))) found.push(`class ${String(value)}`);
  }
  if (node.tagName === 'a' && node.properties.href !== undefined) {
    if (!/^(https?:|mailto:)/i.test(String(node.properties.href))) found.push(`href ${String(node.properties.href)}`);
    if (String(node.properties.rel) !== 'noopener noreferrer nofollow'.split(' ').join(','))
      found.push(`rel ${String(node.properties.rel)}`);
  }
  if (node.tagName === 'img' && !/^data:image\/(png|gif|jpeg|webp|avif|bmp);base64,/.test(String(node.properties.src)))
    found.push(`img ${String(node.properties.src)}`);
  return found;
}

test('the hostile corpus renders inert: no script, handler, style, iframe, srcdoc, unsafe URL or remote image survives', (t) => {
  const corpus = [
    ...PLANTED_BLOBS,
    ...listTopics(),
    ...PAYLOADS.map((payload) => topicWithEveryAttribute('a/b', payload, `<bv-unknown>${text(payload)}</bv-unknown>`)),
    ...htmlFixtures('valid').map((f) => f.html),
    ...htmlFixtures('invalid').map((f) => f.html),
  ];
  const failures: string[] = [];
  for (const blob of corpus) {
    const { html } = topicDisplayHtml(blob);
    for (const problem of problems(html)) failures.push(`${problem}\n  from ${blob.slice(0, 300)}`);
  }
  t.deepEqual(failures.slice(0, 5), []);
  t.true(corpus.length > 100, `corpus of ${corpus.length}`);
});

test('bv-* elements become labelled sections; links keep http(s)/mailto with rel; remote images become their alt text', (t) => {
  const { title, html } = topicDisplayHtml(
    '<bv-topic path="a/b" title="Keys &amp; more" summary="S"><bv-rule severity="must" id="r1">Do <a href="https://x.example/" target="_blank">it</a> ' +
      '<a href="mailto:a@b.example">mail</a> <a href="/api/reviews">local</a></bv-rule>' +
      '<bv-changes><li class="bv bv-rule">one</li><li>two</li></bv-changes><bv-diagram type="ascii">a -&gt; &lt;b&gt;</bv-diagram>' +
      '<bv-structure><img src="https://tracker.example/p.png" alt="pixel"><img src="data:image/png;base64,iVBORw0KGgo=" alt="inline"></bv-structure></bv-topic>',
  );
  t.is(title, 'Keys & more');
  t.is(
    html,
    '<article class="bv bv-topic"><header class="bv-meta"><p class="bv-summary">S</p></header>' +
      '<section class="bv bv-rule"><h3 class="bv-label">Rule <span class="bv-meta">severity: must</span></h3><div class="bv-body">Do ' +
      '<a href="https://x.example/" rel="noopener noreferrer nofollow">it</a> <a href="mailto:a@b.example" rel="noopener noreferrer nofollow">mail</a> <a>local</a></div></section>' +
      '<section class="bv bv-changes"><h3 class="bv-label">Changes</h3><div class="bv-body"><ul><li>one</li><li>two</li></ul></div></section>' +
      '<section class="bv bv-diagram"><h3 class="bv-label">Diagram <span class="bv-meta">type: ascii</span></h3><div class="bv-body"><pre><code>a -> &#x3C;b></code></pre></div></section>' +
      '<section class="bv bv-structure"><h3 class="bv-label">Structure</h3><div class="bv-body"><span>[image: pixel]</span><img src="data:image/png;base64,iVBORw0KGgo=" alt="inline"></div></section></article>',
  );
});

test('a blob that is not a topic is a notice, not its bytes', (t) => {
  const { html } = topicDisplayHtml('<script>alert(1)</script><p>no topic</p>');
  t.regex(html, /cannot be shown as a topic/);
  t.notRegex(html, /<script/);
});

test('a diagram keeps its line breaks (a <pre>), and file paths are code, as in the Markdown rendering', (t) => {
  const { html } = topicDisplayHtml(
    '<bv-topic path="a/b" title="T"><bv-diagram type="mermaid" title="Flow">graph TD\n  A --&gt; B\n  B --&gt; C\n</bv-diagram><bv-files><li>migrations/0001_init.sql</li><li><code>src/a.ts</code></li></bv-files></bv-topic>',
  );
  t.true(html.includes('<pre><code>graph TD\n  A --> B\n  B --> C</code></pre>'), html);
  t.true(html.includes('<li><code>migrations/0001_init.sql</code></li><li><code>src/a.ts</code></li>'), html);
});

test('a diagram keeps its line breaks; a file item written as text shows its path as code, an address as a link, never a project file as one', (t) => {
  const { html } = topicDisplayHtml(
    '<bv-topic path="a/b" title="T"><bv-diagram type="ascii">client\n  |\n  v\nserver</bv-diagram>' +
      '<bv-files><li>src/a.ts (the parser)</li><li><code>src/b.ts</code></li><li>https://example.com/spec</li></bv-files></bv-topic>',
  );
  t.true(html.includes('<pre><code>client\n  |\n  v\nserver</code></pre>'), html);
  t.true(html.includes('<li><code>src/a.ts</code> (the parser)</li>'), html);
  t.true(html.includes('<li><code>src/b.ts</code></li>'), html);
  t.true(
    html.includes('<li><a href="https://example.com/spec" rel="noopener noreferrer nofollow">https://example.com/spec</a></li>'),
    html,
  );
});
