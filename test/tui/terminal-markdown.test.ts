import test from 'ava';
import { renderStoredTopic } from '../../src/topic/stored.js';
import { plainLine, renderTerminalMarkdown, widthOf, wrapPlainText, wrapSpans } from '../../src/tui/terminal-markdown.js';

const TOPIC =
  '<bv-topic path="a/b" title="Auth tokens" summary="How we sign tokens, and why the keys rotate every ninety days">' +
  '<bv-rule id="r1" severity="must">Use <code>RS256</code> for <strong>every</strong> token.</bv-rule>' +
  '<bv-structure><table><tr><th>Key</th><th>Use</th></tr><tr><td>kid</td><td>the key id, a long description that wraps inside its cell</td></tr></table>' +
  '<pre><code class="language-ts">const key = await loadKey("kid");</code></pre>' +
  '<ul><li>one</li><li>two <a href="https://example.com/x">the docs</a></li></ul><ol><li>first</li><li>second</li></ol></bv-structure></bv-topic>';

const lines = (width: number) => renderTerminalMarkdown(renderStoredTopic(TOPIC), width).map(plainLine);

test('a topic for the terminal: headings underlined, rules as bullets, tables boxed, code marked, lists numbered', (t) => {
  const text = lines(80).join('\n');
  t.regex(text, /^Auth tokens\n═{11}\n/);
  t.regex(text, /│ How we sign tokens/);
  t.regex(text, /• Rule \[must\] \(r1\): Use RS256 for every token\./);
  t.regex(text, /┌─────┬─+┐\n│ Key │ Use +│\n├─────┼─+┤\n│ kid │ the key id, a long description that wraps inside its cell │\n└─────┴─+┘/);
  t.regex(text, / {2}│ const key = await loadKey\("kid"\);/);
  t.regex(text, /• two the docs <https:\/\/example\.com\/x>/);
  t.regex(text, /1\. first\n2\. second/);
});

test('every line fits the width, however narrow: words wrap, long words and table cells are cut to fit', (t) => {
  for (const width of [20, 33, 40, 57, 80, 120]) {
    for (const line of lines(width)) t.true(widthOf(line) <= width, `${width}: "${line}" is ${widthOf(line)} wide`);
  }
  const narrow = lines(40).join('\n');
  t.regex(narrow, /│ kid │ the key id, a long description +│\n│ {5}│ that wraps inside its cell +│/);
});

test('styles ride on spans (the App colours them, or not with NO_COLOR)', (t) => {
  const rendered = renderTerminalMarkdown('Use `RS256` and **bold** _words_ with [a link](https://x.y).', 80);
  const spans = rendered[0]!;
  t.like(
    spans.find((s) => s.text === 'RS256'),
    { style: { color: 'cyan' } },
  );
  t.like(
    spans.find((s) => s.text === 'bold'),
    { style: { bold: true } },
  );
  t.like(
    spans.find((s) => s.text === 'words'),
    { style: { italic: true } },
  );
  t.like(
    spans.find((s) => s.text === 'link'),
    { style: { underline: true } },
  );
});

test('wrapping counts wide characters as two columns and keeps indentation of plain text', (t) => {
  const wide = wrapSpans([{ text: '漢字漢字 漢字漢字 漢字' }], 10).map(plainLine);
  t.deepEqual(wide, ['漢字漢字', '漢字漢字', '漢字']);
  t.true(wide.every((l) => widthOf(l) <= 10));
  const plain = wrapPlainText(`a1b2c3d4  2026-12-01  someone\n    ${'word '.repeat(12)}`, 30).map(plainLine);
  t.is(plain[0], 'a1b2c3d4  2026-12-01  someone');
  t.true(
    plain.slice(1).every((l) => l.startsWith('    ')),
    JSON.stringify(plain),
  );
});

test('a rule after <bv-files> is a list of its own, and the comment that ends the files list is not shown', (t) => {
  const topic =
    '<bv-topic path="a/b" title="T"><bv-files><li>migrations/0001_init.sql</li><li>*.test.ts</li></bv-files>' +
    '<bv-rule severity="must">Keep migrations.</bv-rule></bv-topic>';
  const text = renderTerminalMarkdown(renderStoredTopic(topic), 80).map(plainLine).join('\n');
  t.regex(text, /Files:\n\n• migrations\/0001_init\.sql\n• \*\.test\.ts\n\n• Rule \[must\]: Keep migrations\./);
  t.false(text.includes('<!--'), text);
});
