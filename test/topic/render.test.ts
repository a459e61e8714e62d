import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { renderTopicMarkdown, topicText, validateTopicHtml } from '../../src/topic/index.js';
import { parseTopicHtml } from '../../src/topic/parse.js';
import { FIXTURES, fixture, htmlFixtures } from './fixtures.js';

const update = process.env.UPDATE_GOLDEN === '1';

function topicOf(html: string) {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 1));
  return result.topic;
}

for (const { name, html } of htmlFixtures('valid')) {
  test(`${name} renders as its golden markdown`, (t) => {
    const golden = `${FIXTURES}rendered/${name.replace(/\.html$/, '.md')}`;
    const markdown = renderTopicMarkdown(topicOf(html).root);
    if (update) writeFileSync(golden, markdown);
    t.is(markdown, readFileSync(golden, 'utf8'));
  });
}

test('lists keep their structure', (t) => {
  const markdown = renderTopicMarkdown(topicOf(fixture('valid', 'full-vocabulary.html')).root);
  t.true(markdown.includes('**Changes:**\n\n- Switched signing from HS256 to RS256\n- Refresh tokens rotate on every use'));
  t.true(markdown.includes('- **Rule** [must] (r-jwt-401): Failed validation MUST return `401`'));
  t.true(markdown.includes('**Diagram:** Refresh flow\n\n```mermaid\nsequenceDiagram\n'));
});

test('render never throws, even on unvalidated trees', (t) => {
  const root = parseTopicHtml(
    '<bv-topic><bv-unknown>odd <b>x</b></bv-unknown><img src="a.png" alt="A"><bv-rule><table><td>x</table></bv-rule>text</bv-topic>',
  );
  const topic = root.children[0];
  if (topic?.type !== 'element') return t.fail();
  const markdown = renderTopicMarkdown(topic);
  t.true(markdown.startsWith('# Untitled topic\n'), markdown);
  t.true(markdown.includes('- odd x'), markdown);
  t.true(markdown.includes('![A](a.png)'), markdown);
});

test('topicText: plain text for the search index', (t) => {
  const text = topicText(topicOf(fixture('valid', 'full-vocabulary.html')).root);
  t.is(text.title, 'Authentication and Authorization');
  t.deepEqual(text.tags, ['security', 'authentication']);
  t.true(text.body.startsWith('Captured after the token refresh incident'));
  t.false(/\s{2}/.test(text.body));
  t.true(text.body.includes('Document how verifyJwt validates tokens'));
  t.is(text.elements.length, 19);
  t.deepEqual(
    text.elements.find((e) => e.tag === 'bv-fact'),
    {
      tag: 'bv-fact',
      attributes: { subject: 'access_token_ttl', category: 'project', value: '15 minutes' },
      text: 'Access tokens expire in 15 minutes.',
    },
  );
});
