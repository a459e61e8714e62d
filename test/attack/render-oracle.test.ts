import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { activeRenderers, DEFAULT_RENDERERS, renderOracle } from '../helpers/render-oracle.js';
import { ROOT } from '../helpers/repo.js';
import { describeFinding, renderCampaign } from './lib/render-check.js';
import { fuzzedTopics, plantedCorpus, renderCorpus } from './lib/render-corpus.js';

// Issue 31, "What must be true" 1 (the full size is bench/attack/render-oracle.ts): every hostile
// topic, validated or planted, renders to markdown that is inert in every renderer of the oracle,
// through the full path and the fast extractor alike.

test('the hostile corpus renders inert in every renderer, through the full and the fast extraction paths', (t) => {
  const vectors = [...renderCorpus({ stride: 16 }), ...plantedCorpus()];
  t.true(vectors.length >= 500, `${vectors.length} vectors`);
  const campaign = renderCampaign(vectors);
  // Both sides must be exercised, or the property says little.
  t.true(campaign.accepted >= 400, `${campaign.accepted} accepted`);
  t.true(campaign.fastAnswered >= 150, `the fast path answered only ${campaign.fastAnswered}`);
  t.log(
    `${campaign.vectors} vectors (${campaign.accepted} accepted, fast path ${campaign.fastAnswered}), ${campaign.documents} documents, ${campaign.ms.paths} + ${campaign.ms.oracle} ms`,
  );
  t.deepEqual(
    campaign.findings.slice(0, 12).map(describeFinding),
    [],
    `${campaign.liveVectors} vectors render live: ${JSON.stringify(campaign.liveByRenderer)}`,
  );
});

test('fuzz: generated topics with hostile values in one to five slots render inert (seeded)', (t) => {
  const topics = fuzzedTopics(31, 200);
  const campaign = renderCampaign(topics.map((topic, index) => ({ id: `seed 31 #${index}: ${topic.slots.join(' ')}`, html: topic.html })));
  t.true(campaign.accepted >= 100, `${campaign.accepted} accepted`);
  t.true(
    campaign.fastAnswered + campaign.plantedFastAnswered >= 40,
    `fast path: ${campaign.fastAnswered} + ${campaign.plantedFastAnswered}`,
  );
  t.deepEqual(campaign.findings.slice(0, 12).map(describeFinding), [], `${campaign.liveVectors} topics render live`);
});

test('the oracle finds every kind of live HTML, in the renderers that make it, and nothing in ordinary markdown', (t) => {
  const renderers = activeRenderers();
  if (process.env.CI) t.deepEqual(renderers, [...DEFAULT_RENDERERS], 'under CI every renderer runs');
  const [script, entityUrl, backslash, raw, plain, ...golden] = renderOracle([
    '[the runbook](<script>document.title=31337</script>)',
    '[a](java&#x09;script:alert(1)) ![b](DATA:text/html,x)',
    '# \\<img src=x onerror=alert(1)>',
    'a <x-y>b</x-y> <!-- c --> <svg><a xlink:href="javascript:1">x</a></svg> <form action="vbscript:x"><input onfocus=alert(1)></form>',
    'Plain **text**, _emphasis_, `code`, [a link](https://ok.example/a?b=1&c=2) and ![an image](https://ok.example/i.png "t").\n\n- [ ] a task\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```js\nif (a < b && c > d) x = "<script>";\n```\n\n> quote\n\n1. one\n\n---\n\n<https://ok.example/> &lt;x&gt; &amp;',
    ...readdirSync(path.join(ROOT, 'fixtures/topics/rendered')).map((file) =>
      readFileSync(path.join(ROOT, 'fixtures/topics/rendered', file), 'utf8'),
    ),
  ]);
  const by = (findings: typeof script) => new Set(findings!.map((f) => f.renderer));
  // Finding 1 of the issue: a bare destination that begins with "<" is HTML to CommonMark renderers with HTML on.
  for (const renderer of ['markdown-it', 'micromark', 'marked'] as const) t.true(by(script).has(renderer), renderer);
  t.true(
    script!.some((f) => f.kind === 'element' && /<script>/.test(f.detail)),
    JSON.stringify(script),
  );
  t.true(
    entityUrl!.some((f) => f.kind === 'url'),
    JSON.stringify(entityUrl),
  );
  // Finding 2: "\<" is no escape to showdown and Python-Markdown.
  t.true(by(backslash).has('showdown'));
  if (renderers.includes('python-markdown')) t.true(by(backslash).has('python-markdown'));
  t.false(by(backslash).has('micromark'));
  t.true(backslash!.some((f) => f.kind === 'handler'));
  for (const kind of ['element', 'handler', 'url', 'raw-html'] as const)
    t.true(
      raw!.some((f) => f.kind === kind && f.renderer === 'markdown-it'),
      kind,
    );
  t.deepEqual(plain, [], 'ordinary markdown is not reported');
  t.deepEqual(
    golden.flat().map((f) => f.detail),
    [],
    'the golden renders of fixtures/topics are not reported',
  );
});
