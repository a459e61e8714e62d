import test from 'ava';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DOC_CACHE_VERSION } from '../../src/index/doc-cache.js';
import { brv, brvJson, curateTopic, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

const cacheFile = (repo: string, oid: string) =>
  path.join(repo, '.git', 'brv', 'cache', 'docs', `v${DOC_CACHE_VERSION}`, oid.slice(0, 2), oid.slice(2));
const blobOf = (repo: string, topic: string) => git(repo, 'rev-parse', `refs/brv/heads/main:${topic}.html`);

/**
 * A preload that lists the bundle chunks a brv process loads (through NODE_OPTIONS), whether they
 * are read by brv's launcher (dist/app, through fs.readFileSync) or imported as ES modules.
 */
async function chunkLogger(): Promise<string> {
  const file = path.join(await tempDir(), 'log-chunks.cjs');
  const log = `(f) => { if (/[\\/]dist[\\/].*\\.js$/.test(String(f))) process.stderr.write('CHUNK ' + String(f).split(/[\\/]/).pop() + '\\n'); }`;
  const hook = `const log = ${log}; export async function load(url, context, next) { log(url); return next(url, context); }`;
  await writeFile(
    file,
    [
      `const fs = require('node:fs'); const log = ${log};`,
      'const readFileSync = fs.readFileSync;',
      'fs.readFileSync = function (f, ...rest) { log(f); return readFileSync.call(this, f, ...rest); };',
      `require('node:module').register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`,
    ].join('\n'),
  );
  return file;
}

/** Runs a query, with BRV_TRACE and the chunk log: its index metadata and whether HTML code was loaded. */
async function tracedQuery(repo: string, question: string, logger: string) {
  const run = await brv(repo, ['query', question, '--format', 'json'], { env: { BRV_TRACE: '1', NODE_OPTIONS: `--require=${logger}` } });
  const data = JSON.parse(run.stdout).data;
  const chunks = [...run.stderr.matchAll(/^CHUNK (\S+)$/gm)].map((m) => m[1]!);
  return {
    data,
    index: data.metadata.index,
    chunks,
    htmlLoaded: run.stderr.includes('index: HTML code loaded') || chunks.some((c) => /^(document|stored|render|parse)-/.test(c)),
  };
}

async function seed(repo: string) {
  await curateTopic(repo, reply('security/jwt', 'JWT signing', '<bv-rule severity="must">Sign tokens with RS256.</bv-rule>'));
  await curateTopic(repo, reply('api/errors', 'Error responses', '<bv-rule>Return problem+json bodies for token errors.</bv-rule>'));
  await curateTopic(repo, reply('ops/deploy', 'Deploying', '<bv-highlights><p>Deploy tokens are in the vault.</p></bv-highlights>'));
}

test('curate stores the index cache entry of its blob; the queries after it parse nothing and load no HTML code', async (t) => {
  const repo = await makeRepo();
  const logger = await chunkLogger();
  await curateTopic(repo, reply('security/jwt', 'JWT signing', '<bv-rule severity="must">Sign tokens with RS256.</bv-rule>'));
  const entry = await readFile(cacheFile(repo, await blobOf(repo, 'security/jwt')), 'utf8');
  t.regex(entry, new RegExp(`^brv-doc ${DOC_CACHE_VERSION} [0-9a-f]{40}\\n\\{`));
  t.regex(entry, /Sign tokens with RS256/);

  const first = await tracedQuery(repo, 'how are tokens signed', logger);
  t.true(
    first.chunks.some((c) => c.startsWith('tree-index-')),
    'the chunk log works',
  );
  t.like(first.index, { build: 'full', parsedTopics: 0, cachedTopics: 1 });
  t.false(first.htmlLoaded, first.chunks.join(' '));
  t.is(first.data.matchedDocs[0].topicPath, 'security/jwt');
  t.regex(first.data.matchedDocs[0].rendered_md, /^# JWT signing\n/);

  await curateTopic(repo, reply('security/cookies', 'Cookies', '<bv-rule>Session tokens live in HttpOnly cookies.</bv-rule>'));
  const after = await tracedQuery(repo, 'httponly cookies', logger);
  t.like(after.index, { build: 'incremental', changedTopics: 1, parsedTopics: 0, cachedTopics: 1 });
  t.false(after.htmlLoaded, after.chunks.join(' '));
  t.is(after.data.matchedDocs[0].topicPath, 'security/cookies');

  await curateTopic(repo, reply('security/cookies', 'Cookies', '<bv-rule>Cookies are SameSite=strict.</bv-rule>'), ['--overwrite']);
  const overwritten = await tracedQuery(repo, 'samesite cookies', logger);
  t.like(overwritten.index, { build: 'incremental', changedTopics: 1, parsedTopics: 0, cachedTopics: 1 });
  t.false(overwritten.htmlLoaded);
});

test('import stores the cache entries of its topics: the first query builds the index without parsing', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  for (const [name, text] of [
    ['alpha', 'Alpacas are fluffy.'],
    ['beta', 'Beavers build dams.'],
    ['gamma', 'Geese honk loudly.'],
  ]) {
    await mkdir(path.join(dir, 'zoo'), { recursive: true });
    await writeFile(
      path.join(dir, 'zoo', `${name}.html`),
      `<bv-topic path="zoo/${name}" title="${name}"><bv-fact>${text}</bv-fact></bv-topic>`,
    );
  }
  t.is((await brvJson(repo, ['import', dir])).exitCode, 0);
  const query = await tracedQuery(repo, 'beavers', await chunkLogger());
  t.like(query.index, { build: 'full', parsedTopics: 0, cachedTopics: 3 });
  t.false(query.htmlLoaded);
  t.is(query.data.matchedDocs[0].topicPath, 'zoo/beta');
});

test('a damaged or missing cache entry is parsed again; answers are the same with and without the cache', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  const indexDir = path.join(repo, '.git', 'brv', 'index');
  const ask = async () => {
    const run = await brvJson(repo, ['query', 'tokens', '--limit', '50']);
    const { matchedDocs, metadata } = run.json!.data;
    return { matchedDocs, index: metadata.index };
  };
  const cached = await ask();
  t.like(cached.index, { build: 'full', parsedTopics: 0, cachedTopics: 3 });
  t.is(cached.matchedDocs.length, 3);

  const damaged = cacheFile(repo, await blobOf(repo, 'security/jwt'));
  const good = await readFile(damaged, 'utf8');
  await writeFile(damaged, good.replace('RS256', 'HS256'));
  await rm(cacheFile(repo, await blobOf(repo, 'ops/deploy')));
  await rm(indexDir, { recursive: true });
  const repaired = await ask();
  // Two small topics are not worth a background process: maintenance is not due for them.
  t.like(repaired.index, { build: 'full', parsedTopics: 2, cachedTopics: 1, compaction: 'none' });
  t.deepEqual(repaired.matchedDocs, cached.matchedDocs);
  // The query leaves the cache to the next maintenance.
  t.is(await readFile(damaged, 'utf8'), good.replace('RS256', 'HS256'));
  t.regex((await brv(repo, ['maintenance'])).stdout, /cached 2 topics/);
  t.is(await readFile(damaged, 'utf8'), good, 'the damaged entry is rewritten');

  // No cache at all: every topic is parsed, and the answers do not change.
  await rm(path.join(repo, '.git', 'brv', 'cache'), { recursive: true });
  await rm(indexDir, { recursive: true });
  const uncached = await ask();
  t.like(uncached.index, { build: 'full', parsedTopics: 3, cachedTopics: 0 });
  t.deepEqual(uncached.matchedDocs, cached.matchedDocs);
  // Maintenance caches what that build parsed.
  t.is((await brv(repo, ['maintenance'])).exitCode, 0);
  await rm(indexDir, { recursive: true });
  t.like((await ask()).index, { build: 'full', parsedTopics: 0, cachedTopics: 3 });
});

test('a cache that cannot be written fails neither curate nor query', async (t) => {
  const repo = await makeRepo();
  await mkdir(path.join(repo, '.git', 'brv'), { recursive: true });
  // A file where the cache folder should be: every write to the cache fails.
  await writeFile(path.join(repo, '.git', 'brv', 'cache'), 'not a folder');
  const done = await curateTopic(repo, reply('a/b', 'Zebras', '<bv-rule>Zebras are striped.</bv-rule>'));
  t.is(done.status, 'done');
  const logger = await chunkLogger();
  const query = await tracedQuery(repo, 'zebras', logger);
  t.like(query.index, { build: 'full', parsedTopics: 1, cachedTopics: 0 });
  // A miss is extracted again; a blob in canonical form (all curate writes) on the fast path, without HTML code.
  t.false(query.htmlLoaded, query.chunks.join(' '));
  t.true(
    query.chunks.some((c) => c.startsWith('fast-extract-')),
    query.chunks.join(' '),
  );
  t.is(query.data.matchedDocs[0].topicPath, 'a/b');
  const again = await tracedQuery(repo, 'zebras', logger);
  t.false(
    again.chunks.some((c) => c.startsWith('fast-extract-')),
    'a query answered from the index loads no extraction code',
  );
  t.true((await stat(path.join(repo, '.git', 'brv', 'cache'))).isFile());
});
