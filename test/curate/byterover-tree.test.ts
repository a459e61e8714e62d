import test from 'ava';
import { BYTEROVER_MARKDOWN_TOPICS } from '../helpers/byterover.js';
import { execa } from 'execa';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDerivedFile, planByteRoverImport, readByteRoverTopic, resolveContextTree, scanByteRoverTree } from '../../src/byterover/tree.js';
import { repairByteRoverTopic } from '../../src/byterover/repair.js';
import { isBrvError } from '../../src/base/errors.js';
import { MAX_TOPIC_BYTES } from '../../src/topic/validate.js';
import { tempDir } from '../helpers/repo.js';

const PROJECT = fileURLToPath(new URL('../../fixtures/byterover/', import.meta.url)).replace(/\/$/, '');
const TREE = path.join(PROJECT, '.brv', 'context-tree');
const BAD = fileURLToPath(new URL('../../fixtures/byterover-bad/', import.meta.url)).replace(/\/$/, '');

async function tree(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await tempDir('brv-byterover-');
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

const topic = (p: string) => `<bv-topic path="${p}" title="${p}"><bv-rule>A rule.</bv-rule></bv-topic>`;

test('scan of a ByteRover project: topics, and every other file skipped with its reason', async (t) => {
  const scan = await scanByteRoverTree(PROJECT);
  t.is(scan.root, TREE);
  t.deepEqual(
    scan.topics.map((e) => [e.relative, e.format]),
    [
      ['api/errors.html', 'html'],
      ['api/rate_limits.html', 'html'],
      ['architecture/index.html', 'html'],
      ['auth/jwt/token_refresh.md', 'markdown'],
      ['auth/sessions/logout.md', 'markdown'],
      ['build/ci.html', 'html'],
      ['build/release.html', 'html'],
      ['database/postgres/connection_pool.md', 'markdown'],
      ['database/postgres/migrations.md', 'markdown'],
      ['database/schema.html', 'html'],
      ['frontend/components.html', 'html'],
      ['frontend/state.html', 'html'],
      ['observability/logging.html', 'html'],
      ['observability/metrics.html', 'html'],
      ['ops/deploy.html', 'html'],
      ['ops/incidents/2026_03_outage.html', 'html'],
      ['ops/runbooks/rollback.md', 'markdown'],
      ['payments/refunds.html', 'html'],
      ['security/auth.html', 'html'],
      ['security/cookies.html', 'html'],
      ['security/secrets.html', 'html'],
      ['team/ownership.html', 'html'],
    ],
  );
  t.deepEqual(
    scan.skipped.map((s) => [s.relative, s.reason]),
    [
      ['.snapshot.json', 'hidden'],
      ['.trash/', 'hidden'],
      ['_archived/', 'archived'],
      ['_index.md', 'derived'],
      ['_manifest.json', 'derived'],
      ['auth/context.md', 'derived'],
      ['auth/jwt/token_refresh.abstract.md', 'derived'],
      ['auth/jwt/token_refresh.overview.md', 'derived'],
      ['index.html', 'derived'],
      ['notes/todo.txt', 'not-a-topic'],
      ['notes/whiteboard.png', 'not-a-topic'],
      ['ops/_index.md', 'derived'],
      ['ops/context.md', 'derived'],
      ['security/_index.md', 'derived'],
    ],
  );
  t.deepEqual(scan.problems, []);
  for (const entry of [...scan.topics, ...scan.skipped]) t.true(entry.file.startsWith(`${TREE}${path.sep}`), entry.file);
  for (const skipped of scan.skipped) t.true(skipped.message.length > 20);
});

test('the project, its .brv folder and the context-tree folder itself all name the same tree', async (t) => {
  t.is(await resolveContextTree(PROJECT), TREE);
  t.is(await resolveContextTree(path.join(PROJECT, '.brv')), TREE);
  t.is(await resolveContextTree(TREE), TREE);
  t.is(await resolveContextTree(BAD), BAD);
  const fromTree = await scanByteRoverTree(TREE);
  t.deepEqual(
    fromTree.topics.map((e) => e.relative),
    (await scanByteRoverTree(PROJECT)).topics.map((e) => e.relative),
  );
});

test('derived files follow ByteRover: index.html only at the root, the others anywhere', (t) => {
  for (const derived of [
    'index.html',
    '_index.html',
    '_index.md',
    'a/_index.md',
    '_manifest.json',
    'a/b/_manifest.json',
    'x.abstract.md',
    'a/x.overview.md',
  ]) {
    t.true(isDerivedFile(derived), derived);
  }
  for (const topicFile of ['architecture/index.html', 'a/_index.html', 'index.md', 'a/abstract.md', 'overview.html', 'a/manifest.json']) {
    t.false(isDerivedFile(topicFile), topicFile);
  }
});

test('symlinks, special files, nested _archived and oversized topics', async (t) => {
  const outside = await tree({ 'secret.html': topic('stolen/secret'), 'dir/x.html': topic('stolen/x') });
  const dir = await tree({
    'a/ok.html': topic('a/ok'),
    'a/_archived/old.md': '---\ntitle: Old\n---\nOld.',
    'big/huge.md': `---\ntitle: Huge\n---\n${'x'.repeat(MAX_TOPIC_BYTES)}`,
    'a/README': 'not a topic',
    'a/page.HTML': 'upper-case extension: not a topic',
  });
  await symlink(path.join(outside, 'secret.html'), path.join(dir, 'a', 'link.html'));
  await symlink(path.join(outside, 'dir'), path.join(dir, 'linked-dir'));
  const fifo = await execa('mkfifo', [path.join(dir, 'a', 'pipe.md')], { reject: false });
  const scan = await scanByteRoverTree(dir);
  t.deepEqual(
    scan.topics.map((e) => e.relative),
    ['a/ok.html'],
  );
  t.deepEqual(
    scan.skipped.map((s) => [s.relative, s.reason]),
    [
      ['a/README', 'not-a-topic'],
      ['a/_archived/', 'archived'],
      ['a/link.html', 'symlink'],
      ['a/page.HTML', 'not-a-topic'],
      ...(fifo.exitCode === 0 ? [['a/pipe.md', 'not-regular-file']] : []),
      ['linked-dir', 'symlink'],
    ],
  );
  t.deepEqual(
    scan.problems.map((p) => [path.relative(dir, p.file), p.errors[0]?.kind]),
    [['big/huge.md', 'too-large']],
  );
});

test('missing folders and files are typed errors', async (t) => {
  const missing = await t.throwsAsync(scanByteRoverTree('/nonexistent/byterover'));
  t.true(isBrvError(missing) && missing.kind === 'import-read-error');
  const file = await t.throwsAsync(scanByteRoverTree(path.join(TREE, 'security', 'auth.html')));
  t.true(isBrvError(file) && file.kind === 'import-read-error');
});

test('an HTML topic is read canonically, its stamped attributes kept as data-*', async (t) => {
  const read = await readByteRoverTopic({
    file: path.join(TREE, 'security/cookies.html'),
    relative: 'security/cookies.html',
    format: 'html',
  });
  if (!read.ok) return t.fail(JSON.stringify(read.errors));
  t.is(read.path, 'security/cookies');
  t.is(read.blobPath, 'security/cookies.html');
  t.false(/ (createdat|updatedat)=/.test(read.html));
  t.regex(read.html, / data-createdat="2026-05-03T11:00:00.000Z"/);
  t.true(read.html.startsWith('<bv-topic path="security/cookies" title="Session cookies"'));
  t.deepEqual(read.notes, []);
  t.deepEqual(
    read.repairs.map((r) => r.repair),
    ['stamp-kept'],
  );
  t.true(read.repairs[0]!.message.includes('createdat="2026-05-03T11:00:00.000Z"'), 'the kept values are in the report');
});

test('an HTML topic whose path attribute differs from its file location says so', async (t) => {
  const dir = await tree({ 'x/y.html': topic('other/place') });
  const read = await readByteRoverTopic({ file: path.join(dir, 'x/y.html'), relative: 'x/y.html', format: 'html' });
  t.true(read.ok && read.path === 'other/place' && read.notes.some((n) => n.includes('imported as other/place')));
});

test('planning the bad tree: a typed error per file, nothing else is hidden', async (t) => {
  const plan = await planByteRoverImport(BAD);
  t.deepEqual(
    plan.problems.map((p) => [path.relative(BAD, p.file), [...new Set(p.errors.map((e) => e.kind))]]),
    [
      ['binary/blob.md', ['invalid-encoding']],
      ['binary/latin1.html', ['invalid-encoding']],
      ['broken/frontmatter.md', ['invalid-frontmatter']],
      ['broken/not_a_mapping.md', ['invalid-frontmatter']],
      ['broken/unclosed.md', ['invalid-frontmatter']],
      ['unsafe/onclick.html', ['unsafe-html']],
      ['unsafe/script.html', ['unsafe-html']],
      ['weird/has space.md', ['unsafe-path']],
    ],
  );
  t.deepEqual([...plan.topics.keys()], ['ok/fine.html', 'unsafe/raw_script.html']);
  t.deepEqual(
    plan.converted.map((c) => c.path),
    ['ok/fine', 'unsafe/raw_script'],
  );
  t.deepEqual(plan.imported, []);
  t.false(plan.topics.get('unsafe/raw_script.html')!.html!.includes('<script'));
});

test('planning the good tree: HTML imported as is, Markdown converted, all valid', async (t) => {
  const plan = await planByteRoverImport(PROJECT);
  t.deepEqual(plan.problems, []);
  t.is(plan.imported.length, 17);
  t.deepEqual(
    plan.converted.map((c) => c.path),
    BYTEROVER_MARKDOWN_TOPICS,
  );
  t.is(plan.topics.size, 22);
  t.is(plan.skipped.length, 14);
});

test('with keep, each topic goes to it as it is read and the plan holds no topic text (an import of 100,000 topics held them all)', async (t) => {
  const dir = await tree({ 'a/one.html': topic('a/one'), 'a/two.md': '---\ntitle: Two\n---\nText.', 'b/three.html': topic('b/three') });
  const kept: string[] = [];
  const plan = await planByteRoverImport(dir, undefined, async (html) => {
    kept.push(html);
    return String(kept.length).padStart(40, '0');
  });
  t.is(kept.length, 3);
  t.true(kept.every((html) => html.startsWith('<bv-topic')));
  t.deepEqual(
    [...plan.topics].map(([blobPath, planned]) => [blobPath, planned]),
    [
      ['a/one.html', { file: path.join(dir, 'a/one.html'), oid: '1'.padStart(40, '0') }],
      ['a/two.html', { file: path.join(dir, 'a/two.md'), oid: '2'.padStart(40, '0') }],
      ['b/three.html', { file: path.join(dir, 'b/three.html'), oid: '3'.padStart(40, '0') }],
    ],
  );
  // Without keep, the HTML stays in the plan, with its SHA-1 blob id.
  const kept2 = await planByteRoverImport(dir);
  t.is(kept2.topics.get('a/one.html')!.html, kept[0]);
});

test('a Markdown and an HTML topic with the same path: the second is a duplicate-path problem', async (t) => {
  const dir = await tree({ 'a/b.html': topic('a/b'), 'a/b.md': '---\ntitle: B\n---\nText.' });
  const plan = await planByteRoverImport(dir);
  t.deepEqual([...plan.topics.keys()], ['a/b.html']);
  t.deepEqual(
    plan.problems.map((p) => [path.relative(dir, p.file), p.errors[0]?.kind]),
    [['a/b.md', 'duplicate-path']],
  );
});

const kinds = (html: string) => repairByteRoverTopic(html).repairs.map((r) => r.repair);

test('repairs: each quirk ByteRover accepts gets its repair, and the result validates', (t) => {
  const cases: Array<[string, string[]]> = [
    [
      'before <bv-topic path="a/b" title="T"><bv-rule>R</bv-rule></bv-topic> after',
      ['content-around-topic-kept', 'content-around-topic-kept'],
    ],
    ['<div><p>x</p><bv-topic path="a/b" title="T"><bv-rule>R</bv-rule></bv-topic></div>', ['wrapper-removed', 'content-around-topic-kept']],
    ['<bv-topic path="a/b" title="T"><!-- c --><bv-rule>R</bv-rule></bv-topic>', ['comment-dropped']],
    ['<bv-topic path="a/b" title="T">loose<bv-rule>R</bv-rule></bv-topic>', ['loose-content-wrapped']],
    ['<bv-topic path="a/b" title="T"><bv-structure><p>x</p><bv-rule>R</bv-rule></bv-structure></bv-topic>', ['section-moved-up']],
    ['<bv-topic path="a/b" title="T"><bv-pattern><code>^a$</code></bv-pattern></bv-topic>', ['markup-flattened']],
    ['<bv-topic path="a/b" title="T"><bv-rule><p>R</p></bv-rule></bv-topic>', ['markup-flattened']],
    ['<bv-topic path="a/b" title="T"><bv-highlights><li>x</li></bv-highlights></bv-topic>', ['list-item-wrapped']],
    ['<bv-topic path="a/b" title="T" createdat="2026-01-01T00:00:00Z"><bv-rule>R</bv-rule></bv-topic>', ['stamp-kept']],
    // Its data-* name taken: the stamp is dropped, and the report says so.
    [
      '<bv-topic path="a/b" title="T" createdat="2026-01-01T00:00:00Z" data-createdat="x"><bv-rule>R</bv-rule></bv-topic>',
      ['stamp-dropped'],
    ],
  ];
  for (const [html, expected] of cases) {
    const { validation, repairs } = repairByteRoverTopic(html);
    t.true(validation.ok, `${html}: ${JSON.stringify(validation.ok ? '' : validation.errors)}`);
    t.deepEqual(
      repairs.map((r) => r.repair),
      expected,
      html,
    );
    for (const repair of repairs) t.true(repair.message.length > 20);
  }
  // Unknown attributes: kept as data-* where brv stores them, else as a <bv-fact>; never dropped.
  const owner = repairByteRoverTopic('<bv-topic path="a/b" title="T" owner="x"><bv-rule owner="y">R</bv-rule></bv-topic>');
  if (!owner.validation.ok) return t.fail(JSON.stringify(owner.validation.errors));
  t.is(owner.repairs.length, 2);
  for (const r of owner.repairs) t.regex(r.repair, /^attribute-kept-as-(data|fact)$/);
  t.regex(owner.validation.topic.canonicalHtml, /data-owner="x"|subject="owner" value="x"/);
  t.regex(owner.validation.topic.canonicalHtml, /data-owner="y"|subject="owner" value="y"/);
});

test('repairs: a valid topic is untouched, and a repaired topic needs no second repair', (t) => {
  const clean = '<bv-topic path="a/b" title="T"><bv-rule>R</bv-rule></bv-topic>';
  t.deepEqual(kinds(clean), []);
  const messy =
    'x <bv-topic path="a/b" title="T" owner="o"><!-- c -->loose<bv-structure><bv-rule><p>R</p></bv-rule><li>i</li></bv-structure></bv-topic>';
  const first = repairByteRoverTopic(messy);
  if (!first.validation.ok) return t.fail(JSON.stringify(first.validation.errors));
  const second = repairByteRoverTopic(first.validation.topic.canonicalHtml);
  t.deepEqual(second.repairs, []);
  t.true(second.validation.ok && second.validation.topic.canonicalHtml === first.validation.topic.canonicalHtml);
});

test("repairs never let danger through: what stays refused is the validator's own verdict", (t) => {
  for (const html of [
    '<script>alert(1)</script><bv-topic path="a/b" title="T"><bv-rule>R</bv-rule></bv-topic>',
    '<bv-topic path="a/b" title="T"><!-- x --><bv-rule onclick="alert(1)" owner="o">R</bv-rule></bv-topic>',
    '<bv-topic path="a/b" title="T">text<iframe src="https://x"></iframe></bv-topic>',
    '<bv-topic path="a/b" title="T"><bv-diagram><a href="javascript:alert(1)">x</a></bv-diagram><bv-structure><bv-rule><img src=x onerror=alert(1)></bv-rule></bv-structure></bv-topic>',
    '<div onmouseover="alert(1)"><bv-topic path="a/b" title="T"><bv-rule>R</bv-rule></bv-topic></div>',
    '<bv-topic path="a/b" title="T"></bv-topic><bv-topic path="a/c" title="U"></bv-topic>',
  ]) {
    const { validation } = repairByteRoverTopic(html);
    if (validation.ok) {
      // A repair may only keep the dangerous part as inert text (markup inside a plain-text section).
      t.false(
        /<script|<iframe|onclick|onerror|onmouseover|javascript:/i.test(validation.topic.canonicalHtml.replace(/&lt;[^]*?>/g, '')),
        html,
      );
      t.false(/<(script|iframe)|\son\w+=|href="javascript:/i.test(validation.topic.canonicalHtml), html);
    } else t.true(validation.errors.length > 0, html);
  }
});

test('repairs stay linear: thousands of unknown attributes and loose nodes in well under a second each', (t) => {
  const many = Array.from({ length: 800 }, (_, i) => `<bv-rule owner="o${i}">R${i}</bv-rule>loose ${i}`).join('');
  const started = performance.now();
  const { validation, repairs } = repairByteRoverTopic(`<bv-topic path="a/b" title="T">${many}</bv-topic>`);
  const elapsed = performance.now() - started;
  t.true(validation.ok, validation.ok ? '' : JSON.stringify(validation.errors.slice(0, 3)));
  t.true(repairs.length >= 1600);
  t.true(elapsed < 5000, `${Math.round(elapsed)} ms`);
});

test('repairs: a topic that only outgrows the size limit through its repairs says so', (t) => {
  // Each owner="…" becomes data-owner="…" (5 bytes more): 2,000 of them take a topic just under the limit over it.
  const many = Array.from({ length: 2000 }, (_, i) => `<bv-rule owner="o${i}">R${i}</bv-rule>`).join('');
  const shell = (padding: string) => `<bv-topic path="a/b" title="T"><bv-reason>${padding}</bv-reason>${many}</bv-topic>`;
  const html = shell('x'.repeat(256 * 1024 - 2000 - Buffer.byteLength(shell(''))));
  t.true(Buffer.byteLength(html) < 256 * 1024, 'the file itself is within the limit');
  const { validation } = repairByteRoverTopic(html);
  if (validation.ok) return t.fail('expected too-large');
  t.is(validation.errors[0]!.kind, 'too-large');
  t.regex(validation.errors[0]!.message, /^After \d+ repair\(s\): /);
});

test('repair messages carry no control or bidi-override characters from the file', (t) => {
  const { validation, repairs } = repairByteRoverTopic(
    '<bv-topic path="a/b" title="T"><!-- evil \u202e txt.exe --><bv-rule>R</bv-rule></bv-topic>',
  );
  t.true(validation.ok);
  t.is(repairs[0]!.repair, 'comment-dropped');
  t.false(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(repairs[0]!.message), repairs[0]!.message);
});

test('repairs never walk what the validator refused as too deep or too large: 10,000 nested elements are a too-large problem, not a stack overflow', (t) => {
  const deep = `<bv-topic path="a/deep" title="D" owner="x">text around<bv-structure>${'<div>'.repeat(10_000)}x${'</div>'.repeat(10_000)}</bv-structure></bv-topic>`;
  const { validation, repairs } = repairByteRoverTopic(deep);
  t.false(validation.ok);
  if (!validation.ok) t.is(validation.errors[0]!.kind, 'too-large');
  t.deepEqual(repairs, []);
});

test("a folder's generated context.md (no frontmatter) is skipped as derived; a topic named context.md is imported", async (t) => {
  const dir = await tree({
    'a/context.md': '---\ntitle: Context\n---\nA topic about context.',
    'b/context.md': '# B\n\nWhat the b folder holds.',
    'b/x.md': '---\ntitle: X\n---\nText.',
  });
  const scan = await scanByteRoverTree(dir);
  t.deepEqual(
    scan.topics.map((e) => e.relative),
    ['a/context.md', 'b/x.md'],
  );
  t.deepEqual(
    scan.skipped.map((s) => [s.relative, s.reason]),
    [['b/context.md', 'derived']],
  );
  t.regex(scan.skipped[0]!.message, /generated description of the folder b\//);
});
