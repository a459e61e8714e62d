/**
 * Issue 35: what readers of rendered topics see, checked in the renderers agents and viewers use
 * (test/helpers/render-oracle.ts): blocks after a list stay out of it, file paths are code, a
 * table's caption and a diagram's lines survive. Both renderings (render.ts and the index's fast
 * path) write the same bytes.
 */
import test from 'ava';
import { blobDocument } from '../../src/index/document.js';
import type { BlobDocument } from '../../src/index/doc-cache.js';
import { renderTopicMarkdown, validateTopicHtml } from '../../src/topic/index.js';
import { topicPlainText } from '../../src/topic/plain-text.js';
import { renderHtml, renderOracle, formatFinding } from '../helpers/render-oracle.js';

const TOPIC = `<bv-topic path="api/limits" title="API limits" summary="Limits of the public API">
<bv-fact subject="rate_limit" value="100/min">The <code>rate_limit</code> applies per token; <code>access_token_ttl</code> is 15 minutes.</bv-fact>
<bv-rule severity="must">Paginate with <code>?cursor=…&amp;limit=50</code>, never offsets.</bv-rule>
<bv-files><li>migrations/0001_init.sql</li><li>*.test.ts</li><li>src/api/limits.ts — where the limits are checked</li></bv-files>
<bv-rule severity="should">Run tests for *.test.ts before a release.</bv-rule>
<bv-changes><li>Limits per token, not per IP</li></bv-changes>
<bv-fix>Retry after the <code>Retry-After</code> header.</bv-fix>
<bv-diagram type="mermaid" title="Flow">graph TD
  A --&gt; B
  B --&gt; C</bv-diagram>
<bv-structure><table><caption>Quotas per plan</caption><tr><th>plan</th><th>quota</th></tr><tr><td>free</td><td>10</td></tr></table></bv-structure>
</bv-topic>`;

function topicOf(html: string) {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 1));
  return result.topic.root;
}

/** The `<ul>`/`<ol>` elements of some HTML, each as its source text (lists here are not nested). */
function lists(html: string): string[] {
  return [...html.matchAll(/<(ul|ol)>[\s\S]*?<\/\1>/g)].map((m) => m[0]);
}

test('a rule after <bv-files> (or <bv-changes>) is not one more item of that list, in any renderer; paths are code', (t) => {
  const markdown = renderTopicMarkdown(topicOf(TOPIC));
  const [outputs] = renderHtml([markdown]);
  t.true(outputs!.length >= 5, 'the JavaScript renderers at least');
  for (const [renderer, html] of outputs!) {
    const files = lists(html).find((list) => list.includes('0001_init.sql'));
    t.truthy(files, `${renderer}: ${html}`);
    t.is((files!.match(/<li>/g) ?? []).length, 3, `${renderer}: the Files list holds the three files only\n${files}`);
    t.false(files!.includes('Rule'), `${renderer}: ${files}`);
    t.regex(files!, /<code>migrations\/0001_init\.sql<\/code>/, renderer);
    t.regex(files!, /<code>\*\.test\.ts<\/code>/, renderer);
    t.regex(files!, /<code>src\/api\/limits\.ts<\/code> — where the limits are checked/, renderer);
    const changes = lists(html).find((list) => list.includes('not per IP'));
    t.false(changes!.includes('Retry'), `${renderer}: ${changes}`);
    // The rule after the files is still a list item of its own.
    t.regex(html, /<li>\s*(?:<p>)?<strong>Rule<\/strong> \[should\]/, renderer);
  }
  t.deepEqual(renderOracle([markdown]).flat().map(formatFinding), [], 'inert in every renderer');
});

test("a table's caption and a diagram's line breaks are in the rendered output of every renderer", (t) => {
  const markdown = renderTopicMarkdown(topicOf(TOPIC));
  t.regex(markdown, /\*\*Structure:\*\* Quotas per plan\n\n\| plan \| quota \|/);
  for (const [renderer, html] of renderHtml([markdown])[0]!) {
    t.regex(html, /Quotas per plan/, renderer);
    // Python-Markdown without its fenced_code extension knows no fences (the text keeps its lines, in a code span).
    const pre = renderer === 'python-markdown' ? '' : '<pre>';
    t.true(html.includes(`${pre}<code`), renderer);
    t.regex(html, /graph TD\n {2}A --&gt; B\n {2}B --&gt; C/, `${renderer}: ${html}`);
  }
});

test('the fast path renders what the full path does (files, list ends), and the plain text too', (t) => {
  const canonical = `<bv-topic path="a/b" title="T"><bv-files><li>migrations/0001_init.sql</li><li>*.test.ts</li></bv-files><bv-rule severity="must">Keep it.</bv-rule><bv-changes><li>One</li></bv-changes><bv-fact subject="x">y</bv-fact></bv-topic>`;
  const doc = blobDocument(canonical) as BlobDocument;
  const root = topicOf(canonical);
  t.is(doc.markdown, renderTopicMarkdown(root));
  t.is(doc.text, topicPlainText(root));
  t.regex(doc.markdown, /- `migrations\/0001_init\.sql`\n- `\*\.test\.ts`\n\n<!---->\n\n- \*\*Rule\*\* \[must\]: Keep it\./);
  t.regex(doc.markdown, /- One\n\n<!---->\n\n- \*\*Fact\*\* \(subject=x\): y/);
});

test('topicPlainText: the text nodes and labels as written, identifiers whole, no markup or escapes', (t) => {
  const text = topicPlainText(topicOf(TOPIC));
  for (const kept of [
    'Limits of the public API',
    'Fact (subject=rate_limit, value=100/min): The rate_limit applies per token; access_token_ttl is 15 minutes.',
    'Rule [must]: Paginate with ?cursor=…&limit=50, never offsets.',
    'Files: migrations/0001_init.sql *.test.ts src/api/limits.ts — where the limits are checked',
    'Rule [should]: Run tests for *.test.ts before a release.',
    'Diagram: graph TD A --> B B --> C',
    'Structure: Quotas per plan plan quota free 10',
  ])
    t.true(text.includes(kept), `${kept}\nin\n${text}`);
  t.false(/[\\`]|\*\*|<!--/.test(text), text);
});
