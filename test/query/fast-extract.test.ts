import test from 'ava';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { generateTopics } from '../../bench/lib/locomo-topics.js';
import { normaliseConversation } from '../../bench/lib/locomo-data.js';
import { syntheticTopic } from '../../bench/lib/synthetic.js';
import type { CachedBlob } from '../../src/index/doc-cache.js';
import { blobDocument, fullBlobDocument } from '../../src/index/document.js';
import { fastBlobDocument, fastBlobFields } from '../../src/index/fast-extract.js';
import type { Element } from 'hast';
import { attributesOf, elementsIn, flatText, isBvTag, splitList } from '../../src/topic/hast.js';
import { MAX_STORED_TOPIC_BYTES } from '../../src/topic/limits.js';
import { elementSpec } from '../../src/topic/registry.js';
import { readStoredTopic } from '../../src/topic/stored.js';
import { topicText } from '../../src/topic/text.js';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { tinySample } from '../bench/locomo-fixture.js';
import { PAYLOADS } from '../helpers/hostile.js';
import { seededRandom } from '../helpers/random.js';
import { brv, brvJson, cleanup, git, makeRepo, ROOT, tempDir } from '../helpers/repo.js';

/** Canonical topic HTML, as curate and import store it. */
function canonical(html: string): string {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.topic.canonicalHtml;
}

/** Plain data, as the per-blob cache stores it (no undefined, no prototypes). */
const plain = (value: CachedBlob) => JSON.parse(JSON.stringify(value)) as unknown;

/** The full path's answer without the markdown and plain text: what `fastBlobFields` must answer when it does. */
function withoutMarkdown(doc: CachedBlob): unknown {
  const { markdown: _markdown, text: _text, ...rest } = doc as CachedBlob & { markdown?: string; text?: string };
  return plain(rest as CachedBlob);
}

/**
 * The fast path either bails or answers exactly what the full path does; so does its fields-only
 * form (the first query's scan), also where the markdown bails. Returns whether fastBlobDocument answered.
 */
function agrees(html: string): { answered: boolean; equal: boolean } {
  const fast = fastBlobDocument(html);
  const fields = fastBlobFields(html);
  if (fast === undefined && fields === undefined) return { answered: false, equal: true };
  const full = fullBlobDocument(html);
  const fieldsEqual = fields === undefined || isDeepStrictEqual(plain(fields as CachedBlob), withoutMarkdown(full));
  // Where the whole document is answered, so are its fields.
  if (fast !== undefined && fields === undefined) return { answered: true, equal: false };
  if (fast === undefined) return { answered: false, equal: fieldsEqual };
  return { answered: true, equal: fieldsEqual && isDeepStrictEqual(plain(fast), plain(full)) };
}

/** 3,000 topics of `shapes` filled with `text()`: each answered exactly as the full path does, or bailed on. Returns how many were answered. */
function fuzzShapes(
  t: { fail(message: string): void; log(message: string): void },
  shapes: ReadonlyArray<(a: string, b: string) => string>,
  text: () => string,
): number {
  let answered = 0;
  for (let i = 0; i < 3000; i++) {
    const html = `<bv-topic path="f/x" title="T">${shapes[i % shapes.length]!(text(), text())}</bv-topic>`;
    const verdict = agrees(html);
    if (!verdict.equal) {
      t.fail(`fast and full paths differ on ${JSON.stringify(html)}`);
      return answered;
    }
    if (verdict.answered) answered++;
  }
  t.log(`${answered} of 3000 answered by the fast path`);
  return answered;
}

function checkCorpus(t: { true(value: boolean, message?: string): void }, name: string, htmls: readonly string[]): number {
  let answered = 0;
  for (const html of htmls) {
    const verdict = agrees(html);
    t.true(verdict.equal, `${name}: fast and full paths differ on\n${html.slice(0, 2000)}`);
    if (verdict.answered) answered++;
  }
  return answered;
}

/** A long chat session, the shape of a held-out session topic: a <ul> of turns. */
function longSession(index: number): string {
  const words = ['alpha', 'budget', 'camera', 'design', 'evening', 'forest', 'garden', 'hiking', 'island', 'journey'];
  let state = index + 1;
  const word = () => words[(state = (state * 1103515245 + 12345) % 2147483648) % words.length]!;
  const items = Array.from(
    { length: 40 },
    (_, t) => `<li>${t % 2 ? 'user' : 'assistant'}: ${Array.from({ length: 125 }, word).join(' ')}.</li>`,
  );
  return `<bv-topic path="sessions/s_${index}" title="Session ${index}" summary="Chat session ${index}">\n<bv-structure>\n<ul>\n${items.join('\n')}\n</ul>\n</bv-structure>\n</bv-topic>\n`;
}

/** Varied content as agents write it: code, tables, links, markdown-special characters, unicode, long lines. */
const VARIED = [
  '<bv-topic path="v/code" title="Code"><bv-examples><pre><code class="language-ts">const a = 1;\n  if (a &lt; 2) { run(); }</code></pre></bv-examples><bv-rule severity="must">Use <code>npm ci</code>, never <code>npm i</code>.</bv-rule></bv-topic>',
  '<bv-topic path="v/table" title="Table"><bv-structure><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>x | y</td></tr></tbody></table></bv-structure></bv-topic>',
  '<bv-topic path="v/links" title="Links"><bv-dependencies><p>See <a href="https://example.com/a_b">docs</a> and www.example.com or https://x.y/z.</p></bv-dependencies></bv-topic>',
  '<bv-topic path="v/special" title="Special * _ # [ ] &lt; &gt; &amp; ` |" summary="# not a heading" tags="a*b,c_d" keywords="[x],&lt;y&gt;"><bv-reason>Stars * and _under_ and # hash [link](x) &lt;tag&gt; &amp;amp; `tick` | pipe ~ tilde</bv-reason><bv-fact subject="s_1" value="[v]">1. not a list</bv-fact><bv-fact subject="x">- not a bullet</bv-fact><bv-fact subject="y">+ plus</bv-fact><bv-fact subject="z">&gt; quote</bv-fact><bv-fact subject="w">Yes! [shares: a photo] and (x) ](y) ![z] R&amp;D &amp; co</bv-fact></bv-topic>',
  '<bv-topic path="v/unicode" title="Ünïcödé — 概要 🚀" summary="Ein Überblick"><bv-highlights><p>Pfade: <code>文档/Überblick</code> → NFC; emoji 😀 and zero‑width\u200b joiner\u200d.</p></bv-highlights><bv-fact subject="größe" value="≤ 64">Höchstens 64 Zeichen.</bv-fact><bv-flow>a → b → c</bv-flow></bv-topic>',
  `<bv-topic path="v/long" title="Long lines"><bv-reason>${'word '.repeat(3000)}end</bv-reason><bv-structure><h2>Heading ##</h2><h3>Sub heading</h3><p>${'x'.repeat(5000)}</p><ol><li>first</li><li>second <code>two</code></li></ol><ul><li>after an ordered list</li></ul></bv-structure></bv-topic>`,
  '<bv-topic path="v/lists" title="Lists"><bv-changes><li>Switched <code>a</code> to <code>b</code></li><li>Second change</li></bv-changes><bv-files><li><code>src/a.ts</code></li><li><code>src/b.ts</code></li></bv-files><bv-fix><ul><li>one</li></ul><ul><li>two</li></ul></bv-fix></bv-topic>',
  '<bv-topic path="v/mixed" title="Mixed"><bv-structure>Intro text <code>x</code> then a list:<ul><li>a</li><li>b</li></ul>and a tail.<p>Para one.</p><p>Para two with   spaces\nand newline.</p></bv-structure><bv-decision id="d1"><p>Use it.</p><p>Because.</p></bv-decision><bv-bug severity="high" id="b1"><p>Broke.</p></bv-bug></bv-topic>',
  '<bv-topic path="v/emphasis" title="Emphasis"><bv-highlights><p>Access tokens live <em>15 minutes</em>; <strong>never</strong> longer.<br>New line.</p></bv-highlights><bv-structure><blockquote>quoted</blockquote><details><summary>More</summary><p>Hidden</p></details></bv-structure></bv-topic>',
  '<bv-topic path="v/pattern" title="Pattern and diagram"><bv-pattern flags="i" description="JWT">^Bearer\\s+([A-Za-z0-9_-]+)$</bv-pattern><bv-diagram type="mermaid" title="Flow">graph TD\n  A--&gt;B\n  B --&gt; C</bv-diagram><bv-timestamp>2024-03-05</bv-timestamp><bv-author>team</bv-author><bv-task>Write <code>it</code></bv-task></bv-topic>',
  '<bv-topic path="v/nbsp" title="No\u00a0break"><bv-reason>a\u00a0b &amp; c</bv-reason><bv-fact subject="x">tab\there  and\n\nblank lines</bv-fact></bv-topic>',
  '<bv-topic path="v/attrs" title="Attributes" data-owner="platform" lang="en"><bv-rule class="hard  rule" data-origin="review" severity="should" id="r1">Rule text.</bv-rule><bv-structure class="overview"><p class="note">Classed paragraph.</p></bv-structure></bv-topic>',
  '<bv-topic path="v/chat" title="Chat"><bv-structure><ul><li>assistant: **Tips**: 1. water * daily ~ weekly; Q&amp;A, a&lt;b, &lt;3, x | y, mail a@b.c or @handle, [see] (this) ](that)</li><li>*Note*: ~~old~~ &amp;#x27; &lt;/li&gt; 2 * 3 = 6</li></ul></bv-structure><bv-fact subject="D1:1">**Bold** start and trailing *</bv-fact><bv-fact subject="D1:2">| pipe start</bv-fact><bv-fact subject="D1:3">~ tilde start &amp; Q&amp;A</bv-fact></bv-topic>',
  '<bv-topic path="v/pre" title="Pre"><bv-examples><pre>\n\n  indented\n\ttab</pre><pre><code class="lang language-sh">npm ci\n```\n</code></pre><pre><code>no language</code></pre></bv-examples><bv-fix id="f"><p>Run:</p><pre><code class="language-ts">a()\n  b()</code></pre></bv-fix></bv-topic>',
  '<bv-topic path="v/empty" title="Empty"><bv-reason></bv-reason><bv-rule>   </bv-rule></bv-topic>',
];

test('fast == full (or bail) on the topic fixtures, raw and canonical', async (t) => {
  const dir = path.join(ROOT, 'fixtures/topics');
  const htmls: string[] = [];
  for (const kind of ['valid', 'invalid']) {
    for (const name of (await readdir(path.join(dir, kind))).filter((n) => n.endsWith('.html'))) {
      const html = await readFile(path.join(dir, kind, name), 'utf8');
      htmls.push(html);
      const validated = validateTopicHtml(html);
      if (validated.ok) htmls.push(validated.topic.canonicalHtml);
    }
  }
  t.true(htmls.length > 50);
  checkCorpus(t, 'fixtures', htmls);
});

test('fast == full on synthetic topics, LoCoMo-style topics, long sessions and varied content; brv-written ones never bail', (t) => {
  const synthetic = Array.from({ length: 300 }, (_, i) => canonical(syntheticTopic(i).html));
  t.is(checkCorpus(t, 'synthetic', synthetic), synthetic.length, 'canonical synthetic topics take the fast path');
  const long = Array.from({ length: 5 }, (_, i) => longSession(i));
  t.is(checkCorpus(t, 'long sessions', [...long, ...long.map(canonical)]), 10, 'long chat sessions take the fast path');
  const { dialogue } = normaliseConversation(tinySample());
  const locomo = [...generateTopics(dialogue, 'session'), ...generateTopics(dialogue, 'turn')].map((topic) => canonical(topic.html));
  checkCorpus(t, 'locomo', locomo);
  const varied = VARIED.flatMap((html) => [html, canonical(html)]);
  const answered = checkCorpus(t, 'varied', varied);
  t.true(answered >= 8, `the fast path answers the common shapes (${answered} of ${varied.length})`);
});

test('fast == full on topics brv import stored (the ByteRover fixture, varied content)', async (t) => {
  const repo = await makeRepo();
  const folder = await tempDir('brv-fast-import-');
  try {
    await mkdir(path.join(folder, 'v'), { recursive: true });
    for (const html of VARIED) {
      const name = /path="v\/([a-z]+)"/.exec(html)![1]!;
      await writeFile(path.join(folder, 'v', `${name}.html`), html);
    }
    for (const source of [path.join(ROOT, 'fixtures/byterover'), folder]) {
      const run = await brvJson(repo, ['import', source]);
      t.is(run.exitCode, 0, run.stdout + run.stderr);
    }
    const listing = await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main');
    const files = listing.split('\n').filter((f) => f.endsWith('.html'));
    t.true(files.length >= 15, listing);
    const htmls = await Promise.all(files.map((file) => git(repo, 'cat-file', 'blob', `refs/brv/heads/main:${file}`)));
    const answered = checkCorpus(t, 'imported', htmls);
    t.log(`${answered} of ${files.length} imported topics take the fast path`);
    t.true(answered > 0);
  } finally {
    await cleanup(repo, folder);
  }
});

test('fast == full (or bail) on every hostile vector, and on hostile payloads in attributes and text', async (t) => {
  const vectors = JSON.parse(await readFile(path.join(ROOT, 'fixtures/hostile-html/vectors.json'), 'utf8')) as Array<{ html: string }>;
  checkCorpus(
    t,
    'hostile',
    vectors.map((v) => v.html),
  );
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  const planted = PAYLOADS.flatMap((payload) => [
    `<bv-topic path="h/x" title="${escape(payload)}" summary="${escape(payload)}" tags="${escape(payload)}"><bv-reason>${escape(payload)}</bv-reason></bv-topic>`,
    `<bv-topic path="h/x" title="T"><bv-fact subject="${escape(payload)}">${escape(payload)}</bv-fact><bv-structure><ul><li>${escape(payload)}</li></ul></bv-structure></bv-topic>`,
    `<bv-topic path="h/x" title="T"><bv-reason>${payload}</bv-reason></bv-topic>`,
  ]);
  checkCorpus(t, 'payloads', planted);
});

/** Deterministic PRNG (mulberry32). */
const random = seededRandom;

const TOKENS = [
  '<', '>', '</', '/>', '&', ';', '"', "'", '=', ' ', '\n', '\r', '\t', '\u00a0', '\u0000', '\u001b', '\u0085', '\ud800',
  '&amp;', '&lt;', '&gt;', '&quot;', '&nbsp;', '&#x27;', '&#0;', '&#13;', '&#x1b;', '&#128;', '&#xD800;', '&#1114112;', '&notin;', '&amp',
  '<p>', '</p>', '<ul>', '</ul>', '<li>', '</li>', '<code>', '</code>', '<b>', '</b>', '<br>', '<br/>', '</br>', '<h3>', '</h3>',
  '<!-- c -->', '<!DOCTYPE html>', '<![CDATA[x]]>', '<script>', '<P>', '<bv-topic path="x/y" title="z">', '</bv-topic>',
  '<bv-rule>', '</bv-rule>', '<bv-unknown>', ' onclick="x"', ' class="a  b"', ' data-x="1"', ' id=x', " title='q'", ' open',
  '*', '_', '#', '[', ']', '(', ')', '`', '|', '~', '@', '!', '-', '+', '1.', 'www.x', 'http://', '\\', ':',
]; // prettier-ignore

function mutate(html: string, next: () => number): string {
  let result = html;
  const edits = 1 + Math.floor(next() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(next() * (result.length + 1));
    const kind = next();
    if (kind < 0.45) result = result.slice(0, at) + TOKENS[Math.floor(next() * TOKENS.length)]! + result.slice(at);
    else if (kind < 0.75) result = result.slice(0, at) + result.slice(at + 1 + Math.floor(next() * 6));
    else result = result.slice(0, at) + String.fromCharCode(Math.floor(next() * 0x110)) + result.slice(at + 1);
  }
  return result;
}

test('seeded fuzz: random byte and token mutations of canonical topics are bailed on or extracted exactly', (t) => {
  const next = random(12);
  const seeds = [
    ...Array.from({ length: 20 }, (_, i) => canonical(syntheticTopic(i).html)),
    ...VARIED.map(canonical),
    canonical(
      '<bv-topic path="f/x" title="X"><bv-fact subject="D1:1">Ann: Hi [shares: a dog]!</bv-fact><bv-timestamp>2023-05-08</bv-timestamp></bv-topic>',
    ),
  ];
  let answered = 0;
  const cases = 3000;
  for (let i = 0; i < cases; i++) {
    const html = mutate(seeds[i % seeds.length]!, next);
    const verdict = agrees(html);
    if (!verdict.equal) {
      t.fail(`fast and full paths differ on case ${i}:\n${JSON.stringify(html)}`);
      return;
    }
    if (verdict.answered) answered++;
  }
  t.log(`${answered} of ${cases} mutated topics answered by the fast path`);
  t.pass();
});

test('bounded on absurd input: 10,000-deep nesting, 200 MB strings, unclosed tags; never throws', (t) => {
  const deep = (tag: string) =>
    `<bv-topic path="d/x" title="D"><bv-structure>${`<${tag}>`.repeat(10_000)}x${`</${tag}>`.repeat(10_000)}</bv-structure></bv-topic>`;
  for (const tag of ['span', 'b', 'ul', 'p', 'bv-rule']) t.is(fastBlobDocument(deep(tag)), undefined, tag);
  const huge = `<bv-topic path="h/x" title="H"><bv-reason>${'a'.repeat(200 * 1024 * 1024)}</bv-reason></bv-topic>`;
  const started = process.hrtime.bigint();
  const verdict = fastBlobDocument(huge);
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 1000, 'refused without scanning');
  t.like(verdict, { problem: 'too-large' });
  t.deepEqual(verdict, fullBlobDocument(huge));
  // Just over the limit in UTF-8 bytes, not in UTF-16 code units: the same verdict as the full path.
  const multibyte = `<bv-topic path="h/x" title="H"><bv-reason>${'é'.repeat(MAX_STORED_TOPIC_BYTES / 2)}</bv-reason></bv-topic>`;
  t.deepEqual(fastBlobDocument(multibyte), fullBlobDocument(multibyte));
  for (const html of [
    '',
    '<',
    '<bv-topic',
    '<bv-topic path="x',
    '<bv-topic><bv-reason>',
    '&',
    '<bv-topic>&#99999999999;</bv-topic>',
    '\u0000'.repeat(1000),
  ]) {
    t.notThrows(() => fastBlobDocument(html));
    t.true(agrees(html).equal, JSON.stringify(html));
  }
});

test('blobDocument takes the fast path first and is unchanged for any blob', (t) => {
  for (const html of [canonical(syntheticTopic(7).html), VARIED[8]!, '<p>not a topic</p>']) {
    t.deepEqual(plain(blobDocument(html)), plain(fullBlobDocument(html)));
  }
});

test('indexing a canonical tree that arrived by fetch loads no HTML code', async (t) => {
  const repo = await makeRepo();
  const folder = await tempDir('brv-fast-index-');
  try {
    for (let i = 0; i < 20; i++) {
      const topic = syntheticTopic(i);
      await mkdir(path.dirname(path.join(folder, `${topic.path}.html`)), { recursive: true });
      await writeFile(path.join(folder, `${topic.path}.html`), topic.html);
    }
    t.is((await brvJson(repo, ['import', folder])).exitCode, 0);
    // As a clone would bring the tree: no index, no per-blob cache.
    const common = (await git(repo, 'rev-parse', '--git-common-dir')).trim();
    await cleanup(path.resolve(repo, common, 'brv/index'), path.resolve(repo, common, 'brv/cache'));
    const run = await brv(repo, ['query', 'token', '--format', 'json'], { env: { BRV_TRACE: '1' } });
    t.is(run.exitCode, 0, run.stderr);
    t.true(run.stderr.includes('index: cache read'), run.stderr);
    t.false(run.stderr.includes('index: HTML code loaded'), run.stderr);
    t.is(JSON.parse(run.stdout).data.metadata.index.parsedTopics, 20);
  } finally {
    await cleanup(repo, folder);
  }
});

/** topicText as it was defined: flatText of the topic and of each registered bv-* element, walked separately. */
function referenceTopicText(topic: Element) {
  const attributes = attributesOf(topic);
  return {
    title: (attributes.get('title') ?? '').trim(),
    summary: (attributes.get('summary') ?? '').trim(),
    tags: splitList(attributes.get('tags')),
    keywords: splitList(attributes.get('keywords')),
    body: flatText(topic),
    elements: [...elementsIn(topic)]
      .filter((e) => e !== topic && isBvTag(e.tagName) && elementSpec(e.tagName) !== undefined)
      .map((e) => ({ tag: e.tagName, attributes: Object.fromEntries(attributesOf(e)), text: flatText(e) })),
  };
}

test('topicText walks once and says exactly what flatText of the topic and of each element says', async (t) => {
  const vectors = JSON.parse(await readFile(path.join(ROOT, 'fixtures/hostile-html/vectors.json'), 'utf8')) as Array<{ html: string }>;
  const htmls = [
    ...vectors.map((v) => v.html),
    ...VARIED,
    ...Array.from({ length: 50 }, (_, i) => syntheticTopic(i).html),
    longSession(1),
    '<bv-topic path="n/x" title="N"> a <bv-reason> b <bv-topic path="i/x" title="I"><bv-rule>c\u00a0 d</bv-rule></bv-topic></bv-reason>\n<p>e</p><!-- f --></bv-topic>',
  ];
  let compared = 0;
  for (const html of htmls) {
    const read = readStoredTopic(html);
    if (!read.ok) continue;
    t.deepEqual(topicText(read.root), referenceTopicText(read.root), html.slice(0, 300));
    compared++;
  }
  // Hast built by hand can hold touching text nodes (a parser merges them), with or without a comment between.
  const touching: Element = {
    type: 'element',
    tagName: 'bv-topic',
    properties: { title: 'T' },
    children: [
      { type: 'text', value: 'ab' },
      { type: 'comment', value: 'c' },
      { type: 'text', value: 'cd ' },
      { type: 'element', tagName: 'bv-reason', properties: {}, children: [{ type: 'text', value: ' e ' }] },
      { type: 'element', tagName: 'span', properties: {}, children: [] },
      { type: 'text', value: 'f' },
      { type: 'text', value: 'g' },
    ],
  };
  t.deepEqual(topicText(touching), referenceTopicText(touching));
  t.is(topicText(touching).body, 'abcd e fg');
  t.true(compared > 100);
});

const TEXT_ALPHABET = [
  '```', '\n\n', 'a', 'b', 'w', 'W', 'p', 's', 'x', '1', '2', ' ', '  ', '\n', '\t', '*', '~', '[', ']', '(', ')', '`', '!', '#', '+', '-', '=',
  '>', ':', '/', '.', ',', '@', '|', '?', '&amp;', '&lt;', '&gt;', '&quot;', "'", '"', 'é', '😀', '\u00a0', '{', '^', '$', '%',
  '1.', '1)', '&amp;#', '&lt;a', '&lt;/', '&lt;!',
  // Character references and tags as text (written &amp; and &lt; where some renderer would read them).
  ';', '&amp;amp;', '&amp;#60;', '&amp;#x3c;', '&amp;#X3C;', '&amp;copy;', '&amp;1a;', '&amp;a', 'R&amp;D', '&amp;#1234567890;',
  '&lt;?', '&lt;b&gt;', '&lt;1', '&lt; ', '&lt;script&gt;', '&lt;![CDATA[', 'x', 'X',
  '_', '__', '\\', '\\\\', 'é', 'ß', '中', '—', '…', '·', '_a', 'a_', 'w.', 'www.', 'http://', 'https://', 'a@b', '.', 'W', '-',
]; // prettier-ignore

test('seeded text fuzz: markdown-special text in every modeled shape is escaped exactly as the serializer does, or bailed on', (t) => {
  const next = random(7);
  const text = () =>
    Array.from({ length: 1 + Math.floor(next() * 12) }, () => TEXT_ALPHABET[Math.floor(next() * TEXT_ALPHABET.length)]!).join('');
  const shapes = [
    (a: string) => `<bv-fact subject="x">${a}</bv-fact>`,
    (a: string, b: string) => `<bv-structure><ul><li>${a}</li><li>${b}</li></ul></bv-structure>`,
    (a: string, b: string) => `<bv-reason><p>${a} <code>${b.replace(/`/g, '')}</code> ${a}</p></bv-reason>`,
    (a: string, b: string) => `<bv-structure><h3>${a}</h3><p>${b}</p></bv-structure>`,
    (a: string, b: string) => `<bv-changes><li>${a}</li><li><code>${b}</code>${a}</li></bv-changes>`,
    (a: string, b: string) => `<bv-structure>${a}<ol><li>${b}</li></ol>${a}</bv-structure>`,
    (a: string, b: string) => `<bv-examples><pre><code class="language-ts">${a}\n${b}</code></pre></bv-examples>`,
    (a: string, b: string) => `<bv-examples><p>${a}</p><pre>${b}\n\n</pre>${a}</bv-examples>`,
    (a: string, b: string) => `<bv-fix><pre>\n${a}</pre><pre><code>\n${b}</code></pre></bv-fix>`,
    (a: string, b: string) =>
      `<bv-examples><pre><code class="x language-${a.replace(/[^a-z+.-]/g, '')}">\`\`\`${b}</code></pre></bv-examples>`,
  ];
  t.true(fuzzShapes(t, shapes, text) > 1000);
});

test('underscores, backslashes, URLs and emails in text, and headings starting like a list item, take the fast path and match the serializer', (t) => {
  const texts = [
    'see my_file.py and snake_case_name, a__b',
    'a _lead and trail_ word, _ alone, x_ _y',
    'C:\\Users\\me and a\\*b and a trailing \\',
    'visit https://example.com/a_b or www.example.com, http://x',
    'mail a@b.co or a@b@c, w.w.w.x, node.js and now.then',
    'é_x, 中_中, a—_b, 😀_x',
    'a@_b, a_@b, w._x',
  ];
  for (const text of texts) {
    for (const html of [
      `<bv-topic path="f/x" title="T"><bv-structure><ul><li>${text}</li><li><code>c</code>${text} </li></ul></bv-structure></bv-topic>`,
      `<bv-topic path="f/x" title="T"><bv-reason><p>${text} <code>x_y</code> ${text}\\</p></bv-reason></bv-topic>`,
      `<bv-topic path="f/x" title="T"><bv-fact subject="s">${text}</bv-fact></bv-topic>`,
    ]) {
      const fast = fastBlobDocument(html);
      t.not(fast, undefined, `the fast path bailed on ${html}`);
      t.deepEqual(plain(fast!), plain(fullBlobDocument(html)), html);
    }
  }
  for (const heading of ['1. Starting', '- x', '+ y', '&gt; q', '2) r', '=== x', '_x_', '\\x']) {
    const html = `<bv-topic path="f/x" title="T"><bv-structure><h3>${heading}</h3><p>body</p></bv-structure></bv-topic>`;
    const fast = fastBlobDocument(html);
    t.not(fast, undefined, `the fast path bailed on ${html}`);
    t.deepEqual(plain(fast!), plain(fullBlobDocument(html)), html);
  }
});

/** Strong and emphasis among the text (a tenth of the texts end with an unclosed or stray tag: the scanner bails). */
const INLINE_ALPHABET = [
  'a', 'b', 'w', ' ', '  ', '\n', '_', '__', '*', '\\', '(', ')', '.', '@', ':', '/', '`', '&amp;', 'é', '—', 'x_y',
  '<b>b</b>', '<i>i</i>', '<strong>s</strong>', '<em>_</em>', '<b>(</b>', '<i> </i>', '<strong>a_b</strong>', '<em>x y</em>',
  '<strong>a\\</strong>', '<em>w.x</em>', '<b>@</b>', '<code>c</code>',
  '&lt;b', '&lt;', '&amp;', '&amp;x;', '&amp;#1;', ';', '<b>&lt;i</b>', '<em>&amp;lt;</em>', '<code>&lt;b</code>',
]; // prettier-ignore

test('seeded inline fuzz: strong and emphasis next to text and code are written as the serializer writes them, or bailed on', (t) => {
  const next = random(11);
  const text = () =>
    Array.from({ length: 1 + Math.floor(next() * 8) }, () => INLINE_ALPHABET[Math.floor(next() * INLINE_ALPHABET.length)]!).join('') +
    (next() < 0.1 ? (next() < 0.5 ? '<strong>' : '</em>') : '');
  const shapes = [
    (a: string, b: string) => `<bv-structure><ul><li>${a}</li><li>${b}</li></ul></bv-structure>`,
    (a: string, b: string) => `<bv-reason><p>${a}</p><h3>${b}</h3></bv-reason>`,
    (a: string) => `<bv-fact subject="x">${a}</bv-fact>`,
  ];
  t.true(fuzzShapes(t, shapes, text) > 400);
});
