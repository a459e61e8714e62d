import test from 'ava';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CITED_CACHE_HEADER,
  bvFilesFragments,
  citedCacheFile,
  citedPathsIn,
  ensureCitedCache,
  normalizeCitedPath,
  parseCitedCache,
  serializeCitedCache,
  staleTopics,
} from '../../src/setup/hooks/cited.js';
import { hooksDirectory, stagedPaths } from '../../src/git/hooks.js';
import type { Brv } from '../../src/service/brv.js';
import { internals, openBrv } from '../helpers/service.js';
import { parseTopicHtml } from '../../src/topic/parse.js';
import { plantTree } from '../helpers/plant.js';
import { ROOT, cleanup, git, makeRepo, tempDir } from '../helpers/repo.js';

const cited = (files: string) => citedPathsIn(parseTopicHtml(`<bv-topic path="a/b" title="t">${files}</bv-topic>`));

test('normalizeCitedPath makes cited paths comparable with git diff --name-only', (t) => {
  t.is(normalizeCitedPath(' ./src/app.ts '), 'src/app.ts');
  t.is(normalizeCitedPath('`src/app.ts`'), 'src/app.ts');
  t.is(normalizeCitedPath('src/app.ts:42'), 'src/app.ts');
  t.is(normalizeCitedPath('src/app.ts:42:7'), 'src/app.ts');
  t.is(normalizeCitedPath('src/app.ts#L3-L9'), 'src/app.ts');
  t.is(normalizeCitedPath('src/auth/'), 'src/auth');
  t.is(normalizeCitedPath('src/auth/**'), 'src/auth');
  t.is(normalizeCitedPath('src\\win\\path.cs'), 'src/win/path.cs');
  t.is(normalizeCitedPath('Makefile,'), 'Makefile');
  for (const bad of ['', '/etc/passwd', '../outside', 'a/../b', 'https://example.com/x', '~/notes', 'src/*.ts', 'a\tb', 'C:/x'])
    t.is(normalizeCitedPath(bad), undefined, bad);
});

test('citedPathsIn reads <code> in <li>, bare <li> words and path-like words', (t) => {
  t.deepEqual(cited('<bv-files><li><code>src/app.ts</code></li><li><code>lib/</code> and <code>lib/x.ts:3</code></li></bv-files>'), [
    'src/app.ts',
    'lib',
    'lib/x.ts',
  ]);
  t.deepEqual(cited('<bv-files><li>src/b.ts — the b module</li><li><code>src/c.ts</code> (c)</li></bv-files>'), ['src/b.ts', 'src/c.ts']);
  t.deepEqual(cited('<bv-files><ul><li><code>src/d.ts</code></li></ul></bv-files>'), ['src/d.ts']);
  t.deepEqual(cited('<bv-files>src/e.ts, src/f.ts and docs</bv-files>'), ['src/e.ts', 'src/f.ts']);
  t.deepEqual(cited('<bv-rule severity="must"><code>not/cited.ts</code></bv-rule>'), []);
});

test('the full-vocabulary fixture cites its two files; only <bv-files> is parsed', async (t) => {
  const html = await readFile(path.join(ROOT, 'fixtures/topics/valid/full-vocabulary.html'), 'utf8');
  const fragment = bvFilesFragments(html);
  t.true(fragment.startsWith('<bv-files>') && fragment.endsWith('</bv-files>'));
  t.deepEqual(citedPathsIn(parseTopicHtml(fragment)), ['src/auth/jwt.ts', 'src/auth/refresh.ts']);
  t.deepEqual(citedPathsIn(parseTopicHtml(html)), ['src/auth/jwt.ts', 'src/auth/refresh.ts']);
});

test('staleTopics matches files and cited folders, in cache order, each topic once', (t) => {
  const entries = [
    { file: 'lib', topic: 'code/lib' },
    { file: 'src/app.ts', topic: 'code/app' },
    { file: 'src/app.ts', topic: 'ops/deploy' },
    { file: 'src/auth', topic: 'code/app' },
    { file: 'src/other.ts', topic: 'code/other' },
  ];
  t.deepEqual(staleTopics(entries, ['src/app.ts', 'src/auth/jwt.ts', 'lib/deep/x.ts', 'README.md']), [
    { topic: 'code/lib', files: ['lib'] },
    { topic: 'code/app', files: ['src/app.ts', 'src/auth'] },
    { topic: 'ops/deploy', files: ['src/app.ts'] },
  ]);
  t.deepEqual(staleTopics(entries, ['src/app.tsx', 'libx/a']), []);
  t.deepEqual(parseCitedCache(serializeCitedCache(entries)), entries);
  t.is(parseCitedCache('# some other format\nsrc\ta'), undefined);
  // a truncated file, one of the previous format, a line without a tab, a wrong count: rebuilt
  const whole = serializeCitedCache(entries);
  t.is(parseCitedCache(whole.slice(0, -1)), undefined);
  t.is(parseCitedCache(whole.slice(0, whole.indexOf('# end'))), undefined);
  t.is(parseCitedCache('# brv cited-files v1\nsrc\ta\n'), undefined);
  t.is(parseCitedCache(`${CITED_CACHE_HEADER}\nno tab\n# end 1\n`), undefined);
  t.is(parseCitedCache(`${CITED_CACHE_HEADER}\nsrc\ta\n# end 2\n`), undefined);
  t.deepEqual(parseCitedCache(`${CITED_CACHE_HEADER}\n# end 0\n`), []);
});

async function writeTopic(brv: Brv, dir: string, topicPath: string, files: string[]): Promise<void> {
  const file = path.join(dir, `${topicPath.replace(/\//g, '-')}.html`);
  const items = files.map((f) => `<li><code>${f}</code></li>`).join('');
  await writeFile(
    file,
    `<bv-topic path="${topicPath}" title="T"><bv-files>${items}</bv-files><bv-rule severity="must">R.</bv-rule></bv-topic>`,
  );
  const envelope = await brv.knowledge.curate({ htmlFile: file, overwrite: true }, {});
  if (!envelope.ok) throw new Error(JSON.stringify(envelope));
}

test('the cited-files cache is built per tree, then reused, then updated from the previous tree', async (t) => {
  const repo = await makeRepo();
  const scratch = await tempDir();
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  t.is(await ensureCitedCache(internals(brv).store, await internals(brv).store.snapshot(brv.branch)), undefined, 'no brv branch yet');

  await writeTopic(brv, scratch, 'code/app', ['src/app.ts', 'src/util/']);
  await writeTopic(brv, scratch, 'code/none', []);
  const first = (await ensureCitedCache(internals(brv).store, await internals(brv).store.snapshot(brv.branch)))!;
  t.is(first.source, 'full');
  t.is(first.file, citedCacheFile(path.join(repo, '.git'), first.tree));
  t.is(first.tree, await git(repo, 'rev-parse', 'refs/brv/heads/main^{tree}'));
  t.is(await readFile(first.file, 'utf8'), `${CITED_CACHE_HEADER}\nsrc/app.ts\tcode/app\nsrc/util\tcode/app\n# end 2\n`);
  t.is((await ensureCitedCache(internals(brv).store, await internals(brv).store.snapshot(brv.branch)))!.source, 'cache');

  await writeTopic(brv, scratch, 'code/app', ['src/main.ts']);
  await writeTopic(brv, scratch, 'api/errors', ['src/errors.ts', 'src/main.ts']);
  const second = (await ensureCitedCache(internals(brv).store, await internals(brv).store.snapshot(brv.branch)))!;
  t.is(second.source, 'incremental');
  t.deepEqual(second.entries, [
    { file: 'src/errors.ts', topic: 'api/errors' },
    { file: 'src/main.ts', topic: 'api/errors' },
    { file: 'src/main.ts', topic: 'code/app' },
  ]);
  t.deepEqual((await readdir(path.dirname(second.file))).sort(), [first.tree, second.tree].sort());
});

test('hooksDirectory honours core.hooksPath; stagedPaths reads the index git hands the hook', async (t) => {
  const repo = await makeRepo();
  const brv = await openBrv(path.join(repo, 'src'));
  t.teardown(() => brv.close());
  t.deepEqual(await hooksDirectory(internals(brv).repo), { directory: path.join(repo, '.git', 'hooks'), hooksPath: undefined });
  await git(repo, 'config', 'core.hooksPath', '.husky');
  t.deepEqual(await hooksDirectory(internals(brv).repo), { directory: path.join(repo, '.husky'), hooksPath: '.husky' });

  await writeFile(path.join(repo, 'README.md'), 'changed\n');
  await writeFile(path.join(repo, 'new file.txt'), 'new\n');
  t.deepEqual(await stagedPaths(internals(brv).repo), []);
  await git(repo, 'add', 'README.md', 'new file.txt');
  await git(repo, 'mv', 'src/deep/a.txt', 'src/deep/b.txt');
  t.deepEqual((await stagedPaths(internals(brv).repo)).sort(), ['README.md', 'new file.txt', 'src/deep/a.txt', 'src/deep/b.txt']);
  // a temporary index (git commit -a / git commit <paths>) wins over the main one
  await git(repo, 'read-tree', `--index-output=${path.join(repo, '.git', 'other-index')}`, 'HEAD');
  t.deepEqual(await stagedPaths(internals(brv).repo, { indexFile: '.git/other-index' }), []);
});

test('hostile blobs (too large, too deep) cite nothing and never break the cache, full or incremental', async (t) => {
  const repo = await makeRepo();
  const brv = await openBrv(repo);
  t.teardown(async () => {
    brv.close();
    await cleanup(repo);
  });
  const good = '<bv-topic path="code/app" title="App"><bv-files><li><code>src/app.ts</code></li></bv-files></bv-topic>';
  const deep = `<bv-topic path="x/deep" title="Deep"><bv-files>${'<span>'.repeat(3000)}<code>src/deep.ts</code></bv-files></bv-topic>`;
  const huge = `<bv-topic path="x/huge" title="Huge"><bv-files><code>src/huge.ts</code></bv-files>${'x'.repeat(300_000)}</bv-topic>`;
  await plantTree(repo, { 'code/app.html': good, 'x/deep.html': deep });
  const first = (await ensureCitedCache(internals(brv).store, await internals(brv).store.snapshot(brv.branch)))!;
  t.is(first.source, 'full');
  t.deepEqual(first.entries, [{ file: 'src/app.ts', topic: 'code/app' }]);
  await plantTree(repo, { 'code/app.html': good, 'x/deep.html': deep, 'x/huge.html': huge });
  const second = (await ensureCitedCache(internals(brv).store, await internals(brv).store.snapshot(brv.branch)))!;
  t.is(second.source, 'incremental');
  t.deepEqual(second.entries, [{ file: 'src/app.ts', topic: 'code/app' }]);
});
