import test from 'ava';
import { convertLegacyMarkdown } from '../../src/byterover/legacy-markdown.js';
import { mergeTopicHtml, renderTopicMarkdown, stripCodeFence, topicText, validateTopicHtml } from '../../src/topic/index.js';
import { readStoredTopic } from '../../src/topic/stored.js';

/** Each pathological input must be handled well inside this budget (linear work is milliseconds). */
const BUDGET_MS = 2000;
/**
 * Converting a legacy markdown file parses it with micromark, which is linear but takes 1.8–2.2 s of
 * CPU on the largest of these inputs (262,000 characters) on this machine: a one-off cost at import,
 * measured, so it gets twice the budget. A super-linear blowup on such inputs costs minutes, not seconds.
 */
const MARKDOWN_BUDGET_MS = 2 * BUDGET_MS;

function timed<T>(run: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

test('stripCodeFence is linear: an unclosed fence over a long run of spaces', (t) => {
  for (const body of [' '.repeat(262_000) + 'x', '\n'.repeat(262_000) + 'x', ' \n'.repeat(131_000) + '``', '\t'.repeat(262_000) + '`']) {
    const { value, ms } = timed(() => stripCodeFence('```\n' + body));
    t.true(ms < BUDGET_MS, `${ms} ms`);
    t.true(value === ('```\n' + body).trim(), 'unclosed: left as it is');
  }
  const { value, ms } = timed(() => stripCodeFence('```\n' + '`'.repeat(262_000)));
  t.true(ms < BUDGET_MS, `${ms} ms`);
  t.true(value === '`'.repeat(262_000 - 3), 'a run of backticks closes the fence with its last three');
});

test('stripCodeFence removes only a fence around the whole input', (t) => {
  t.is(stripCodeFence('```html\n<bv-topic></bv-topic>\n```'), '<bv-topic></bv-topic>');
  t.is(stripCodeFence('  ```html  \r\n<p>a</p>\n\n```  \n'), '<p>a</p>');
  t.is(stripCodeFence('```\n```'), '');
  t.is(stripCodeFence('```\na\n``````'), 'a\n```');
  t.is(stripCodeFence('```html <p>a</p>\n```'), '```html <p>a</p>\n```', 'not an info string');
  t.is(stripCodeFence('```html\n<p>a</p>'), '```html\n<p>a</p>', 'unclosed');
  t.is(stripCodeFence('<p>```x\n```</p>'), '<p>```x\n```</p>', 'an inner fence is content');
  t.is(stripCodeFence('```\n'), '```');
});

const N = 262_000;
const T = (inner: string, attributes = '') => `<bv-topic path="a/b" title="T"${attributes}>${inner}</bv-topic>`;
const manyAttributes = Array.from({ length: 50_000 }, (_, i) => ` ${i.toString(36)}`).join('');

/** Pathological topic HTML: deep nesting, huge attribute counts, long runs, many siblings. */
const HTML: Record<string, string> = {
  'divs nested 10,000 deep': T('<bv-structure>' + '<div>'.repeat(10_000) + 'x</bv-structure>'),
  'spans nested 10,000 deep': T('<bv-reason>' + '<span>'.repeat(10_000) + 'x</bv-reason>'),
  'lists nested 5,000 deep': T('<bv-structure>' + '<ul><li>'.repeat(5_000) + 'x</bv-structure>'),
  'quotes nested 10,000 deep': T('<bv-structure>' + '<blockquote>'.repeat(10_000) + 'x</bv-structure>'),
  '50,000 attributes on bv-topic': `<bv-topic path="a/b" title="T"${manyAttributes}><bv-reason>x</bv-reason></bv-topic>`,
  '50,000 attributes on bv-rule': T(`<bv-rule${manyAttributes}>x</bv-rule>`),
  '262,000 spaces': T('<bv-reason>' + ' '.repeat(N) + 'x</bv-reason>'),
  '262,000 backticks': T('<bv-reason>' + '`'.repeat(N) + '</bv-reason>'),
  '262,000 backticks in a pattern': T('<bv-pattern>' + '`'.repeat(N) + '</bv-pattern>'),
  '50,000 lines in a diagram': T('<bv-diagram>' + '` \n'.repeat(50_000) + '</bv-diagram>'),
  '262,000 "<"': T('<bv-reason>' + '<'.repeat(N) + '</bv-reason>'),
  '262,000 "&"': T('<bv-reason>' + '&'.repeat(N) + '</bv-reason>'),
  '262,000 "-"': T('<bv-reason>' + '-'.repeat(N) + '</bv-reason>'),
  '262,000 "*"': T('<bv-reason>' + '*'.repeat(N) + '</bv-reason>'),
  '262,000 "[" ': T('<bv-reason>' + '['.repeat(N) + '</bv-reason>'),
  'a 262,000-character title': `<bv-topic path="a/b" title="${'_-'.repeat(N / 2)}"></bv-topic>`,
  '40,000 tags': `<bv-topic path="a/b" title="T" tags="${Array.from({ length: 40_000 }, (_, i) => i.toString(36)).join(',')}"></bv-topic>`,
  '12,000 sibling rules': T('<bv-rule>x</bv-rule>'.repeat(12_000)),
  '20,000 sibling list items': T('<bv-changes>' + '<li>x'.repeat(20_000) + '</bv-changes>'),
  '20,000 sibling paragraphs': T('<bv-reason>' + '<p>x'.repeat(20_000) + '</bv-reason>'),
  '20,000 table cells': T('<bv-structure><table><tr>' + '<td>'.repeat(20_000) + '</table></bv-structure>'),
  '35,000 comments': T('<bv-reason>' + '<!---->'.repeat(35_000) + '</bv-reason>'),
  'an unclosed fence over 262,000 spaces': '```\n' + ' '.repeat(N) + 'x',
};

/** Pathological legacy markdown. */
const MARKDOWN: Record<string, string> = {
  '262,000 ">" (quotes nested on one line)': '>'.repeat(N),
  '131,000 "- " (lists nested on one line)': '- '.repeat(N / 2),
  'lists nested by indentation': Array.from({ length: 5_000 }, (_, i) => ' '.repeat(Math.min(i * 2, 40)) + '- x').join('\n'),
  '131,000 "*a"': '*a'.repeat(N / 2),
  '131,000 "_a"': '_a'.repeat(N / 2),
  '262,000 "["': '['.repeat(N),
  '65,000 "[a]("': '[a]('.repeat(N / 4),
  '262,000 "<"': '<'.repeat(N),
  '262,000 "&"': '&'.repeat(N),
  '262,000 backticks': '`'.repeat(N),
  '262,000 "-"': '-'.repeat(N),
  '262,000 spaces': ' '.repeat(N) + 'x',
  'a table of 65,000 columns': '|' + 'a|'.repeat(N / 4) + '\n|' + '-|'.repeat(N / 4),
};

const cpuMs = (run: () => unknown) => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/**
 * CPU time of `run`; over budget, it is timed twice more and the best time counts: a garbage
 * collection or a busy core can push one linear run over (micromark takes 1.8–2.2 s on some of these
 * inputs here); a super-linear one stays over every time.
 */
const bestCpuMs = (run: () => unknown, budget = BUDGET_MS) => {
  let ms = cpuMs(run);
  for (let retry = 0; retry < 2 && ms > budget; retry++) ms = Math.min(ms, cpuMs(run));
  return ms;
};

const theirs = T('<bv-reason>theirs</bv-reason>');
const base = T('<bv-reason>base</bv-reason>');

for (const [name, html] of Object.entries(HTML)) {
  test(`pathological HTML within ${BUDGET_MS} ms per step: ${name}`, (t) => {
    const slow: string[] = [];
    const step = (what: string, run: () => unknown, budget = BUDGET_MS) => {
      const ms = bestCpuMs(run, budget);
      if (ms > budget) slow.push(`${what}: ${Math.round(ms)} ms`);
    };
    step('stripCodeFence', () => stripCodeFence(html));
    step('validateTopicHtml', () => validateTopicHtml(html));
    let read: ReturnType<typeof readStoredTopic> | undefined;
    step('readStoredTopic', () => (read = readStoredTopic(html)));
    if (read?.ok) {
      const root = read.root;
      step('renderTopicMarkdown', () => renderTopicMarkdown(root));
      step('topicText', () => topicText(root));
    }
    step('mergeTopicHtml', () => mergeTopicHtml(base, html, theirs, { ours: 'a', theirs: 'b' }));
    step('convertLegacyMarkdown', () => convertLegacyMarkdown(html, 'a/b.md'), MARKDOWN_BUDGET_MS);
    t.deepEqual(slow, []);
  });
}

for (const [name, markdown] of Object.entries(MARKDOWN)) {
  test(`pathological markdown within ${MARKDOWN_BUDGET_MS} ms (conversion), ${BUDGET_MS} ms (each step after): ${name}`, (t) => {
    let result: ReturnType<typeof convertLegacyMarkdown> | undefined;
    const ms = bestCpuMs(() => (result = convertLegacyMarkdown(markdown, 'a/b.md')), MARKDOWN_BUDGET_MS);
    t.true(ms < MARKDOWN_BUDGET_MS, `${Math.round(ms)} ms`);
    if (result?.ok) {
      const html = result.html;
      t.true(bestCpuMs(() => validateTopicHtml(html)) < BUDGET_MS);
      const read = readStoredTopic(html);
      if (read.ok) t.true(bestCpuMs(() => renderTopicMarkdown(read.root)) < BUDGET_MS);
    }
  });
}

test('refused early, with the reason: one line nesting over 100 containers, or over 10,000 "*"/"[" markers', (t) => {
  const deep = convertLegacyMarkdown('> '.repeat(101) + 'x', 'a/b.md');
  t.true(!deep.ok && deep.kind === 'too-large' && /nests more than 100/.test(deep.message));
  t.true(convertLegacyMarkdown('> '.repeat(50) + 'x', 'a/b.md').ok);
  const stars = convertLegacyMarkdown('*a'.repeat(10_001), 'a/b.md');
  t.true(!stars.ok && stars.kind === 'too-large' && /emphasis and link markers/.test(stars.message));
  t.true(convertLegacyMarkdown('* item\n'.repeat(12_000), 'a/b.md').ok, 'bullets are not emphasis markers');
});

test('many errors and many children never overflow the stack (no spread of a huge list)', (t) => {
  const result = validateTopicHtml(T(`<bv-rule${manyAttributes}>x</bv-rule>`));
  t.true(!result.ok && result.errors.length >= 49_990); // "dir" is an allowed attribute
  // 100,000 children in one element: flatText and elementsIn walk them without spreading them.
  const read = readStoredTopic(T('<bv-reason>' + '<br>a'.repeat(50_000) + '</bv-reason>'));
  if (!read.ok) return t.fail(read.message);
  const text = topicText(read.root);
  t.is(text.body.length, 'a '.repeat(50_000).trim().length);
});
