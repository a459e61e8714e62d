import test from 'ava';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { DOC_CACHE_VERSION } from '../../src/index/doc-cache.js';
import { brv, brvJson, curateTopic, git, makeRepo, refTip, reply } from '../helpers/repo.js';

// brv processes at once on one repository: writers, first queries (index builds) and maintenance.

const WRITERS = 8;

test(`${WRITERS} processes curating at once all land, none lost`, async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const sessions = await Promise.all(Array.from({ length: WRITERS }, () => brvJson(repo, ['curate', 'parallel'], { process: true })));
  const results = await Promise.all(
    sessions.map((s, i) =>
      brvJson(repo, ['curate', '--session', s.json!.data.sessionId, '--response', reply(`team/topic_${i}`, `Topic ${i}`)], {
        process: true,
      }),
    ),
  );
  for (const result of results) t.is(result.json?.data.status, 'done', result.stdout + result.stderr);
  const files = (await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).split('\n');
  t.is(files.filter((f) => f.startsWith('team/')).length, WRITERS);
  // One linear history: init + one commit per writer.
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), WRITERS + 1);
  t.is((await git(repo, 'fsck', '--no-dangling')).trim(), '');
});

test('writers racing for one path: exactly one adds it, the others get path-exists', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const sessions = await Promise.all(Array.from({ length: WRITERS }, () => brvJson(repo, ['curate', 'race'], { process: true })));
  const results = await Promise.all(
    sessions.map((s, i) =>
      brvJson(repo, ['curate', '--session', s.json!.data.sessionId, '--response', reply('team/shared', `Version ${i}`)], { process: true }),
    ),
  );
  const statuses = results.map((r) => (r.json!.data.status === 'done' ? 'done' : r.json!.data.errors[0].kind));
  t.is(statuses.filter((s) => s === 'done').length, 1);
  t.is(statuses.filter((s) => s === 'path-exists').length, WRITERS - 1);
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), 2);
  t.truthy(await refTip(repo));
});

/** Three topics that "tokens" finds. */
async function seed(repo: string) {
  await curateTopic(repo, reply('security/jwt', 'JWT signing', '<bv-rule severity="must">Sign tokens with RS256.</bv-rule>'));
  await curateTopic(repo, reply('api/errors', 'Error responses', '<bv-rule>Return problem+json bodies for token errors.</bv-rule>'));
  await curateTopic(repo, reply('ops/deploy', 'Deploying', '<bv-highlights><p>Deploy tokens are in the vault.</p></bv-highlights>'));
}

const cacheFile = (repo: string, oid: string) =>
  path.join(repo, '.git', 'brv', 'cache', 'docs', `v${DOC_CACHE_VERSION}`, oid.slice(0, 2), oid.slice(2));

test('parallel first queries, each building the index: all succeed (a damaged index: test/cli/query.test.ts)', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  const first = await Promise.all(Array.from({ length: 4 }, () => brvJson(repo, ['query', 'tokens'], { process: true })));
  for (const run of first) t.is(run.json?.data.matchedDocs.length, 3, run.stdout + run.stderr);
});

test('parallel rebuilds and maintenance runs: all succeed, the cache is written once, every entry whole, no temp file left', async (t) => {
  const repo = await makeRepo();
  await seed(repo);
  await rm(path.join(repo, '.git', 'brv', 'cache'), { recursive: true });
  const runs = await Promise.all(Array.from({ length: 4 }, () => brvJson(repo, ['query', 'tokens'], { process: true })));
  for (const run of runs) t.is(run.json?.data.matchedDocs.length, 3, run.stdout + run.stderr);
  const dir = path.dirname(path.dirname(cacheFile(repo, 'a'.repeat(40))));
  const cacheFiles = async () => (await readdir(dir, { recursive: true }).catch(() => [])).map(String).filter((f) => f.includes(path.sep));
  t.deepEqual(await cacheFiles(), [], 'queries leave the cache to maintenance');
  const maintenance = await Promise.all(Array.from({ length: 4 }, () => brv(repo, ['maintenance'], { process: true })));
  for (const run of maintenance) t.is(run.exitCode, 0, run.stderr);
  const files = await cacheFiles();
  t.deepEqual(
    files.filter((f) => f.endsWith('.tmp')),
    [],
  );
  t.is(files.length, 3);
  await rm(path.join(repo, '.git', 'brv', 'index'), { recursive: true });
  t.like((await brvJson(repo, ['query', 'tokens'])).json!.data.metadata.index, { build: 'full', parsedTopics: 0, cachedTopics: 3 });
});
