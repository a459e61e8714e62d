import test from 'ava';
import { BYTEROVER_MARKDOWN_TOPICS } from '../helpers/byterover.js';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { brv, brvJson, CLI, ENV, git, makeRepo, refTip, showTopic, tempDir } from '../helpers/repo.js';

// End to end through the built CLI: `brv import` of a ByteRover tree (src/byterover/tree.ts,
// wired into Brv.importFolder) and `brv export` (src/byterover/export.ts, src/cli/commands/export.ts).

const PROJECT = fileURLToPath(new URL('../../fixtures/byterover/', import.meta.url)).replace(/\/$/, '');
const TREE = path.join(PROJECT, '.brv', 'context-tree');
const BAD = fileURLToPath(new URL('../../fixtures/byterover-bad/', import.meta.url)).replace(/\/$/, '');

const HTML_TOPICS = [
  'api/errors',
  'api/rate_limits',
  'architecture/index',
  'build/ci',
  'build/release',
  'database/schema',
  'frontend/components',
  'frontend/state',
  'observability/logging',
  'observability/metrics',
  'ops/deploy',
  'ops/incidents/2026_03_outage',
  'payments/refunds',
  'security/auth',
  'security/cookies',
  'security/secrets',
  'team/ownership',
];
const MARKDOWN_TOPICS = BYTEROVER_MARKDOWN_TOPICS;
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
      'auth/context.md derived',
      'auth/jwt/token_refresh.abstract.md derived',
      'auth/jwt/token_refresh.overview.md derived',
      'index.html derived',
      'notes/todo.txt not-a-topic',
      'notes/whiteboard.png not-a-topic',
      'ops/_index.md derived',
      'ops/context.md derived',
      'security/_index.md derived',
    ],
  );
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), 1);
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /^import: 22 added, 0 updated/);
  const converted = await showTopic(repo, 'auth/jwt/token_refresh.html');
  t.true(converted?.includes('<bv-pattern description="JWT in the Authorization header" flags="i">'));
  // ByteRover's file times, kept as data-* (never as its bare stamps).
  const auth = (await showTopic(repo, 'security/auth.html')) ?? 'missing';
  t.false(/ (createdat|updatedat)=/.test(auth));
  t.regex(auth, / data-createdat="2026-05-01T10:00:00.000Z" data-updatedat="2026-05-02T09:00:00.000Z"/);
  t.regex(converted ?? '', / data-createdat="2026-03-01T10:00:00.000Z" data-updatedat="2026-04-02T08:30:00.000Z"/);
  t.regex(converted ?? '', / related="[^"]*@auth"/, 'a relation to auth/context.md names the folder');
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
  t.deepEqual(again.json!.data.repaired, [], 'what brv exported needs no repair');
  t.is(await git(second, 'ls-tree', '-r', 'refs/brv/heads/main'), await git(first, 'ls-tree', '-r', 'refs/brv/heads/main'));

  // Importing the export back into the first repository changes nothing.
  const tip = await refTip(first);
  const back = await brvJson(first, ['import', out]);
  t.like(back.json!.data, { ok: true, unchanged: 22, added: [], updated: [], repaired: [] });
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

type Repaired = { relative: string; path: string; repairs: Array<{ repair: string; message: string }> };
const repairKinds = (data: { repaired: Repaired[] }) =>
  Object.fromEntries(data.repaired.map((r) => [r.relative, r.repairs.map((x) => x.repair).filter((k) => k !== 'stamp-kept')]));

test('ByteRover quirks import: repaired, listed per file, nothing lost', async (t) => {
  const repo = await makeRepo();
  const run = await brvJson(repo, ['import', PROJECT]);
  t.is(run.exitCode, 0, run.stdout + run.stderr);
  const data = run.json!.data;
  t.deepEqual(data.problems, []);
  const kinds = repairKinds(data);
  t.deepEqual(kinds['api/rate_limits.html'], ['content-around-topic-kept', 'content-around-topic-kept']);
  t.deepEqual(kinds['security/secrets.html'], ['wrapper-removed', 'content-around-topic-kept']);
  t.deepEqual(kinds['ops/deploy.html'], ['comment-dropped', 'comment-dropped']);
  t.deepEqual(kinds['frontend/state.html'], ['loose-content-wrapped']);
  t.deepEqual(kinds['ops/incidents/2026_03_outage.html'], ['section-moved-up', 'section-moved-up']);
  t.deepEqual(kinds['build/ci.html'], ['markup-flattened']);
  t.true(kinds['frontend/components.html']!.includes('list-item-wrapped'));
  for (const k of kinds['team/ownership.html']!) t.regex(k, /^attribute-kept-as-(data|fact)$/);
  t.is(kinds['team/ownership.html']!.length, 3);
  // Stamped dates are listed with their values, per file.
  const auth = data.repaired.find((r: Repaired) => r.relative === 'security/auth.html');
  t.true(
    auth.repairs.some(
      (r: { repair: string; message: string }) => r.repair === 'stamp-kept' && r.message.includes('2026-05-01T10:00:00.000Z'),
    ),
  );
  // The same repairs are on each topic entry.
  const deploy = data.imported.find((e: { relative: string }) => e.relative === 'ops/deploy.html');
  t.is(deploy.repairs.length, 3);
  t.true(deploy.repairs[0].message.includes('generated by brv curate, reviewed by ops'));

  // Nothing is lost: text around the root, unknown attributes, nested sections are in the stored topics.
  const rate = (await showTopic(repo, 'api/rate_limits.html'))!;
  t.true(rate.includes('limits were agreed with the mobile team') && rate.includes('Trailing text the agent left'));
  const owners = (await showTopic(repo, 'team/ownership.html'))!;
  for (const value of ['platform-team', 'sre', 'confidence', 'high']) t.true(owners.includes(value), value);
  t.regex(owners, /(data-owner="platform-team"|subject="owner" value="platform-team")/);
  const outage = (await showTopic(repo, 'ops/incidents/2026_03_outage.html'))!;
  t.true(outage.includes('Config pushes go through the canary') && outage.includes('Each pod opens at most 10 client connections'));
  const secrets = (await showTopic(repo, 'security/secrets.html'))!;
  t.regex(secrets, /^<bv-topic path="security\/secrets"/);
  t.true(secrets.includes('<h2>Secrets handling</h2>'));
  const ci = (await showTopic(repo, 'build/ci.html'))!;
  t.true(ci.includes('<bv-pattern description="Release branch names">^release/\\d+\\.\\d+$</bv-pattern>'));
  const state = (await showTopic(repo, 'frontend/state.html'))!;
  t.true(state.includes('Decided in the February architecture review.') && state.includes('Redux was removed in <strong>v4.2</strong>.'));
});

test('brv import (text): one line per repair, per file', async (t) => {
  const repo = await makeRepo();
  const run = await brv(repo, ['import', PROJECT]);
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stdout, /^Imported 22 new and 0 updated topics \(0 unchanged\) in commit [0-9a-f]+\.$/m);
  t.regex(run.stdout, /^Repaired \d+ topics that ByteRover accepts but brv stores differently:$/m);
  t.regex(run.stdout, /^ {2}ops\/deploy\.html: comment-dropped: Dropped the comment <!--TODO: document the manual override-->/m);
  t.regex(run.stdout, /^ {2}api\/rate_limits\.html: content-around-topic-kept: Content after <bv-topic>/m);
  t.regex(run.stdout, /^ {2}team\/ownership\.html: attribute-kept-as-(data|fact): <bv-topic> owner="platform-team"/m);
  // ByteRover's generated folder descriptions are named as left out.
  t.regex(run.stderr, /^not imported: auth\/context\.md, ops\/context\.md \(folder descriptions ByteRover generated, not topics\)$/m);
});

test('brv import --dry-run: the full report, and nothing written (no ref, no object)', async (t) => {
  const repo = await makeRepo();
  const objects = async () => (await git(repo, 'count-objects', '-v')).replace(/size.*$/gm, '');
  const before = await objects();
  const dry = await brvJson(repo, ['import', '--dry-run', PROJECT]);
  t.is(dry.exitCode, 0, dry.stdout + dry.stderr);
  t.like(dry.json!.data, { ok: true, dryRun: true, unchanged: 0, updated: [], problems: [] });
  t.is(dry.json!.data.commit, undefined);
  t.deepEqual([...dry.json!.data.added].sort(), ALL);
  t.true(dry.json!.data.repaired.length > 5);
  t.is(await refTip(repo), undefined);
  t.is(await objects(), before, 'no object written');

  // The dry run's report is what the real import then does.
  const real = await brvJson(repo, ['import', PROJECT]);
  t.deepEqual(real.json!.data.added, dry.json!.data.added);
  t.deepEqual(real.json!.data.repaired, dry.json!.data.repaired);
  const tip = await refTip(repo);

  // Against existing topics: unchanged, updated (with --overwrite), refused conflicts — all without writing.
  const changed = path.join(await tempDir('brv-import-dry-'), 'tree');
  await mkdir(path.join(changed, 'payments'), { recursive: true });
  await mkdir(path.join(changed, 'new'), { recursive: true });
  await writeFile(
    path.join(changed, 'payments', 'refunds.html'),
    '<bv-topic path="payments/refunds" title="Refunds"><bv-rule>Changed.</bv-rule></bv-topic>',
  );
  await writeFile(path.join(changed, 'new', 'one.html'), '<bv-topic path="new/one" title="One"><bv-rule>New.</bv-rule></bv-topic>');
  await writeFile(path.join(changed, 'api-errors.html'), `${(await showTopic(repo, 'api/errors.html'))!}\n`);
  const conflict = await brvJson(repo, ['import', '--dry-run', changed]);
  t.is(conflict.exitCode, 1);
  t.like(conflict.json!.data, { ok: false, dryRun: true });
  t.is(conflict.json!.data.problems[0].errors[0].kind, 'path-exists');
  const overwrite = await brvJson(repo, ['import', '--dry-run', '--overwrite', changed]);
  t.like(overwrite.json!.data, { ok: true, dryRun: true, added: ['new/one'], updated: ['payments/refunds'], unchanged: 1 });
  const text = await brv(repo, ['import', '--dry-run', '--overwrite', changed]);
  t.regex(text.stdout, /^Dry run: would import 1 new and 1 updated topics \(1 unchanged\); nothing was written\.$/m);
  t.regex(text.stdout, /^ {2}would update payments\/refunds$/m);
  t.is(await refTip(repo), tip, 'refs unchanged');
});

test('progress on stderr for large trees: a count line every 500 topics, never with --format json', async (t) => {
  const dir = await tempDir('brv-import-many-');
  await mkdir(path.join(dir, 'bulk'));
  const total = 520;
  await Promise.all(
    Array.from({ length: total }, (_, i) =>
      writeFile(
        path.join(dir, 'bulk', `t${i}.html`),
        `<bv-topic path="bulk/t${i}" title="Topic ${i}"><bv-rule>Rule ${i}.</bv-rule></bv-topic>`,
      ),
    ),
  );
  const repo = await makeRepo();
  const dry = await brv(repo, ['import', '--dry-run', dir]);
  t.is(dry.exitCode, 0, dry.stderr);
  t.regex(dry.stderr, /^Validated 500\/520 topics…$/m);
  t.regex(dry.stderr, /^Validated 520\/520 topics…$/m);
  const json = await brvJson(repo, ['import', '--dry-run', dir]);
  t.false(json.stderr.includes('Validated'), json.stderr);
  t.is(json.json!.data.added.length, total);
  const small = await brv(repo, ['import', '--dry-run', path.join(PROJECT)]);
  t.false(small.stderr.includes('Validated '), 'no progress for a small tree');
});

test('README and --help agree with what import does: Markdown is converted, --dry-run exists', async (t) => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  t.false(/Markdown topics are not read/i.test(readme), 'README must not say legacy Markdown is not imported');
  const row = readme.split('\n').find((line) => line.startsWith('| `brv import'));
  t.truthy(row);
  t.regex(row!, /--dry-run/);
  t.regex(row!, /legacy Markdown topics converted/);
  const repo = await makeRepo();
  const help = await brv(repo, ['import', '--help']);
  t.regex(help.stdout, /--dry-run/);
  t.regex(help.stdout, /legacy Markdown converted/);
});

test('progress on a terminal: one line rewritten in place', async (t) => {
  const script = await execa('script', ['--version'], { reject: false });
  if (script.exitCode !== 0) return t.pass('no script(1) to give the CLI a terminal');
  const dir = await tempDir('brv-import-tty-');
  await mkdir(path.join(dir, 'bulk'));
  await Promise.all(
    Array.from({ length: 120 }, (_, i) =>
      writeFile(
        path.join(dir, 'bulk', `t${i}.html`),
        `<bv-topic path="bulk/t${i}" title="Topic ${i}"><bv-rule>Rule ${i}.</bv-rule></bv-topic>`,
      ),
    ),
  );
  const repo = await makeRepo();
  const run = await execa('script', ['-qec', `node ${CLI} import --dry-run ${dir}`, '/dev/null'], {
    cwd: repo,
    env: ENV,
    extendEnv: false,
    reject: false,
  });
  t.is(run.exitCode, 0, run.stdout);
  t.regex(run.stdout, /\rValidated 25\/120 topics…/);
  t.regex(run.stdout, /\rValidated 120\/120 topics…\r?\n/);
  t.regex(run.stdout, /Dry run: would import 120 new/);
});

test('brv import (text): what a Markdown conversion dropped or moved is listed under the file', async (t) => {
  const repo = await makeRepo();
  const run = await brv(repo, ['import', '--dry-run', PROJECT]);
  t.is(run.exitCode, 0, run.stderr);
  t.regex(
    run.stderr,
    /^converted from Markdown: database\/postgres\/connection_pool\.md → database\/postgres\/connection_pool\n {2}Dropped frontmatter field\(s\) importance/m,
  );
});

test('a 10,000-deep ByteRover topic is a too-large problem (no stack overflow); with --skip-invalid the rest imports', async (t) => {
  const dir = await tempDir('brv-deep-');
  await mkdir(path.join(dir, '.brv/context-tree/a'), { recursive: true });
  await writeFile(
    path.join(dir, '.brv/context-tree/a/deep.html'),
    `<bv-topic path="a/deep" title="D" owner="x">around<bv-structure>${'<div>'.repeat(10_000)}x${'</div>'.repeat(10_000)}</bv-structure></bv-topic>`,
  );
  await writeFile(
    path.join(dir, '.brv/context-tree/a/ok.html'),
    '<bv-topic path="a/ok" title="OK" owner="me"><bv-rule>fine</bv-rule></bv-topic>',
  );
  const repo = await makeRepo();
  const strict = await brvJson(repo, ['import', dir]);
  t.is(strict.exitCode, 1, strict.stdout + strict.stderr);
  t.is(strict.json?.data.problems?.[0]?.errors?.[0]?.kind, 'too-large', strict.stdout);
  t.is(await refTip(repo), undefined, 'nothing written');
  const lenient = await brvJson(repo, ['import', dir, '--skip-invalid']);
  t.is(lenient.exitCode, 0, lenient.stdout + lenient.stderr);
  t.deepEqual((await brvJson(repo, ['ls'])).json?.data.topics, ['a/ok']);
});
