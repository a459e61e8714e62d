import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brvJson, git, makeRepo, refTip, showTopic, tempDir } from '../helpers/repo.js';

// End to end through the built CLI: `brv import` of a ByteRover tree (src/curate/byterover-tree.ts,
// wired into Brv.importFolder) and `brv export` (src/curate/export.ts, src/cli/commands/export.ts).

const PROJECT = fileURLToPath(new URL('../../fixtures/byterover/', import.meta.url)).replace(/\/$/, '');
const TREE = path.join(PROJECT, '.brv', 'context-tree');
const BAD = fileURLToPath(new URL('../../fixtures/byterover-bad/', import.meta.url)).replace(/\/$/, '');

const HTML_TOPICS = ['api/errors', 'architecture/index', 'security/auth', 'security/cookies'];
const MARKDOWN_TOPICS = ['auth/context', 'auth/jwt/token_refresh', 'database/postgres/connection_pool', 'database/postgres/migrations'];
const ALL = [...HTML_TOPICS, ...MARKDOWN_TOPICS].sort();

const paths = (entries: Array<{ path: string }>) => entries.map((e) => e.path).sort();

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

test('brv import <ByteRover project>: HTML as is, Markdown converted, derived files skipped, one commit', async (t) => {
  const repo = await makeRepo();
  const run = await brvJson(repo, ['import', PROJECT]);
  t.is(run.exitCode, 0, run.stdout + run.stderr);
  const data = run.json!.data;
  t.like(data, { ok: true, unchanged: 0, updated: [], problems: [], source: TREE });
  t.deepEqual([...data.added].sort(), ALL);
  t.deepEqual(paths(data.imported), HTML_TOPICS);
  t.deepEqual(paths(data.converted), MARKDOWN_TOPICS);
  for (const entry of [...data.imported, ...data.converted]) {
    t.true(path.isAbsolute(entry.file) && typeof entry.relative === 'string' && Array.isArray(entry.notes), JSON.stringify(entry));
  }
  t.deepEqual(
    data.skipped.map((s: { relative: string; reason: string }) => `${s.relative} ${s.reason}`),
    [
      '.snapshot.json hidden',
      '.trash/ hidden',
      '_archived/ archived',
      '_index.md derived',
      '_manifest.json derived',
      'auth/jwt/token_refresh.abstract.md derived',
      'auth/jwt/token_refresh.overview.md derived',
      'index.html derived',
      'notes/todo.txt not-a-topic',
      'notes/whiteboard.png not-a-topic',
      'security/_index.md derived',
    ],
  );
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), 1);
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /^import: 8 added, 0 updated/);
  const converted = await showTopic(repo, 'auth/jwt/token_refresh.html');
  t.true(converted?.includes('<bv-pattern description="JWT in the Authorization header" flags="i">'));
  t.false(/createdat|updatedat/.test((await showTopic(repo, 'security/auth.html')) ?? 'missing'));
  // The converted topics are readable like any other.
  const read = await brvJson(repo, ['read', 'database/postgres/connection_pool']);
  t.true(read.json!.data.content.includes('**Task:** Keep connection counts under the Postgres limit'));
});

test('export → import is lossless: byte-identical topic blobs in a fresh repository', async (t) => {
  const first = await makeRepo();
  t.is((await brvJson(first, ['import', PROJECT])).exitCode, 0);
  const out = path.join(await tempDir('brv-export-'), 'project');
  const exported = await brvJson(first, ['export', out]);
  t.is(exported.exitCode, 0, exported.stdout + exported.stderr);
  t.like(exported.json!.data, { directory: path.join(out, '.brv', 'context-tree'), replaced: false });
  t.deepEqual(exported.json!.data.topics, ALL);
  t.deepEqual(
    await files(out),
    ALL.map((p) => `.brv/context-tree/${p}.html`),
  );
  for (const topic of ALL) {
    // showTopic (git show through execa) drops the blob's final newline.
    const blob = `${(await showTopic(first, `${topic}.html`)) ?? 'missing'}\n`;
    t.is(await readFile(path.join(out, '.brv', 'context-tree', `${topic}.html`), 'utf8'), blob, topic);
  }

  const second = await makeRepo();
  const again = await brvJson(second, ['import', out]);
  t.is(again.exitCode, 0, again.stdout + again.stderr);
  t.deepEqual(paths(again.json!.data.imported), ALL, 'exported topics are all HTML');
  t.deepEqual(again.json!.data.converted, []);
  t.deepEqual(again.json!.data.skipped, []);
  t.is(await git(second, 'ls-tree', '-r', 'refs/brv/heads/main'), await git(first, 'ls-tree', '-r', 'refs/brv/heads/main'));

  // Importing the export back into the first repository changes nothing.
  const tip = await refTip(first);
  const back = await brvJson(first, ['import', out]);
  t.like(back.json!.data, { ok: true, unchanged: 8, added: [], updated: [] });
  t.is(await refTip(first), tip);
});

test('brv export refuses a non-empty target unless --force', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['import', PROJECT]);
  const out = await tempDir('brv-export-');
  t.is((await brvJson(repo, ['export', out])).exitCode, 0);
  const refused = await brvJson(repo, ['export', out]);
  t.is(refused.exitCode, 1);
  t.is(refused.json!.data.error.kind, 'export-target-exists');
  const forced = await brvJson(repo, ['export', out, '--force']);
  t.is(forced.exitCode, 0);
  t.like(forced.json!.data, { replaced: true });
});

test('a bad ByteRover tree: typed errors per file and nothing written; --skip-invalid imports the rest', async (t) => {
  const repo = await makeRepo();
  const run = await brvJson(repo, ['import', BAD]);
  t.is(run.exitCode, 1);
  t.false(run.json!.data.ok);
  t.deepEqual(
    run.json!.data.problems.map(
      (p: { file: string; errors: Array<{ kind: string }> }) => `${path.relative(BAD, p.file)} ${p.errors[0]!.kind}`,
    ),
    [
      'binary/blob.md invalid-encoding',
      'binary/latin1.html invalid-encoding',
      'broken/frontmatter.md invalid-frontmatter',
      'broken/not_a_mapping.md invalid-frontmatter',
      'broken/unclosed.md invalid-frontmatter',
      'unsafe/onclick.html unsafe-html',
      'unsafe/script.html unsafe-html',
      'weird/has space.md unsafe-path',
    ],
  );
  t.is(await refTip(repo), undefined, 'nothing half-written');

  const partial = await brvJson(repo, ['import', BAD, '--skip-invalid']);
  t.is(partial.exitCode, 0);
  t.like(partial.json!.data, { ok: true });
  t.deepEqual([...partial.json!.data.added].sort(), ['ok/fine', 'unsafe/raw_script']);
  t.is(partial.json!.data.problems.length, 8);
  t.false((await showTopic(repo, 'unsafe/raw_script.html'))?.includes('<script'));
});
