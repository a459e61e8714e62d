import test from 'ava';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderProblems } from '../helpers/hostile.js';
import { brvJson, cleanup, makeRepo, tempDir } from '../helpers/repo.js';

interface Vector {
  readonly note: string;
  readonly kind: string;
  readonly html: string;
}

const VECTORS = JSON.parse(readFileSync(new URL('../../fixtures/hostile-html/vectors.json', import.meta.url), 'utf8')) as Vector[];

test('a sample of the hostile corpus is refused by the real brv curate --html-file with its kind, and nothing is written', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  t.teardown(() => cleanup(repo, dir));
  const sample = VECTORS.filter((_, i) => i % 12 === 0);
  t.true(sample.length >= 20);
  const file = path.join(dir, 'topic.html');
  for (const vector of sample) {
    await writeFile(file, vector.html);
    const run = await brvJson(repo, ['curate', '--html-file', file]);
    t.is(run.json?.success, false, `${vector.note}: ${run.stdout}${run.stderr}`);
    const kinds = ((run.json?.data.errors ?? []) as Array<{ kind: string }>).map((e) => e.kind);
    t.true(kinds.includes(vector.kind), `${vector.note}: ${kinds.join(', ')}`);
  }
  const ls = await brvJson(repo, ['ls']);
  t.deepEqual(ls.json?.data.topics ?? [], [], 'no hostile vector was stored');
});

test('everyday HTML curates through the CLI: comments dropped with a warning, <time> dates --since/--until, details render inert', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  t.teardown(() => cleanup(repo, dir));
  const file = path.join(dir, 'topic.html');
  await writeFile(
    file,
    '<!-- drafted by an agent --><bv-topic path="ops/release" title="Release" data-owner="ops"><bv-highlights><div class="note"><p>Shipped <time datetime="2024-03-05">last spring</time>, <mark>zebra</mark> build.</p></div><details><summary>Why <abbr title="Continuous Integration">CI</abbr></summary><p>Gate.</p></details></bv-highlights></bv-topic>',
  );
  const curated = await brvJson(repo, ['curate', '--html-file', file]);
  t.true(curated.json?.success, curated.stdout + curated.stderr);
  t.true(
    (curated.json?.data.warnings as string[]).some((w) => /Dropped 1 HTML comment/.test(w)),
    curated.stdout,
  );

  const raw = await brvJson(repo, ['read', 'ops/release', '--raw']);
  const stored = raw.json?.data.content as string;
  t.false(stored.includes('<!--'), stored);
  for (const kept of ['data-owner="ops"', '<time datetime="2024-03-05">', '<mark>', '<details>', '<abbr title="Continuous Integration">']) {
    t.true(stored.includes(kept), `${kept} in ${stored}`);
  }

  const read = await brvJson(repo, ['read', 'ops/release']);
  const markdown = read.json?.data.content as string;
  t.true(markdown.includes('**Why CI (Continuous Integration)**'), markdown);
  t.deepEqual(renderProblems(markdown, { images: false }), []);
  t.false(/<[a-z]/i.test(markdown), markdown);

  const inMarch = await brvJson(repo, ['query', 'zebra', '--since', '2024-03-01', '--until', '2024-03-31']);
  t.deepEqual(
    (inMarch.json?.data.matchedDocs as Array<{ topicPath: string }>).map((d) => d.topicPath),
    ['ops/release'],
    inMarch.stdout,
  );
  const inApril = await brvJson(repo, ['query', 'zebra', '--since', '2024-04-01']);
  t.deepEqual(inApril.json?.data.matchedDocs ?? [], [], inApril.stdout);
});

test('MCP brv-curate: a sample of the corpus is refused with its kind; a comment is dropped with a warning', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const client = await connectMcp(t, repo);
  for (const vector of VECTORS.filter((_, i) => i % 25 === 3)) {
    const result = await client.callTool({ name: 'brv-curate', arguments: { html: vector.html } });
    t.true(result.isError, `${vector.note}: ${textOf(result)}`);
    t.true(textOf(result).includes(vector.kind), `${vector.note}: ${textOf(result)}`);
  }
  const ok = await client.callTool({
    name: 'brv-curate',
    arguments: { html: '<bv-topic path="ops/x" title="X"><bv-reason>Why<!-- private --> <mark>now</mark>.</bv-reason></bv-topic>' },
  });
  t.falsy(ok.isError, textOf(ok));
  t.regex(textOf(ok), /⚠ Dropped 1 HTML comment/);
});
