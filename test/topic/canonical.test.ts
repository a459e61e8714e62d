import test from 'ava';
import { parseTopicHtml, serializeCanonical, validateTopicHtml } from '../../src/topic/index.js';
import { fixture, htmlFixtures } from './fixtures.js';

function canonical(html: string): string {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 1));
  return result.topic.canonicalHtml;
}

for (const { name, html } of htmlFixtures('valid')) {
  test(`${name}: canonical form is a fixed point and round-trips`, (t) => {
    const once = canonical(html);
    t.is(canonical(once), once);
    const root = parseTopicHtml(once).children.find((n) => n.type === 'element');
    if (root?.type !== 'element') return t.fail();
    t.is(serializeCanonical(root), once);
  });
}

test('canonical layout', (t) => {
  t.is(
    canonical(`<bv-topic title="T" path="a/b.html"><bv-reason>Why</bv-reason>   <bv-rule id="r" severity="must">R</bv-rule></bv-topic>`),
    '<bv-topic path="a/b" title="T">\n  <bv-reason>Why</bv-reason>\n  <bv-rule id="r" severity="must">R</bv-rule>\n</bv-topic>\n',
  );
  t.is(canonical('<bv-topic path="x" title="X"></bv-topic>'), '<bv-topic path="x" title="X">\n</bv-topic>\n');
});

test('attribute order, quote style and indentation between children do not matter', (t) => {
  const a = `<bv-topic path="a/b" title="T" summary="S" tags="x,y" keywords="k" related="@c/d">
  <bv-rule severity="must" id="r-1">Do <a title="t" href="https://e.x">it</a>.</bv-rule>
  <bv-fact subject="s" category="team" value="v">F</bv-fact>
</bv-topic>`;
  const b = `<bv-topic related='@c/d'   keywords='k' tags=' x , y,x' summary='S' title='T' path='a/b'
    createdat="2026-01-01T00:00:00Z" updatedat="2026-01-02T00:00:00Z"><bv-rule id='r-1' severity='must'>Do <a href='https://e.x' title='t'>it</a>.</bv-rule>
            <bv-fact value='v' category='team' subject='s'>F</bv-fact></bv-topic>`;
  t.is(canonical(a), canonical(b));
  t.true(canonical(a).startsWith('<bv-topic path="a/b" title="T" summary="S" tags="x,y" keywords="k" related="@c/d">\n'));
  t.regex(canonical(a), /<a href="https:\/\/e.x" title="t">/);
});

test('content inside a top-level child is kept byte for byte, pre leading newlines included', (t) => {
  const out = canonical(fixture('valid', 'tables-pre-diagram.html'));
  t.regex(out, /<pre><code>\n\n {2}\.\/deploy\.sh --region eu-central-1 \\\n {6}--promote\n<\/code><\/pre>/);
  t.regex(out, /<bv-diagram type="ascii">\n {6}\+---------\+/);
});
