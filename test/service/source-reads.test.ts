// A knowledge source's topics read through the service (`source` on retrieval.catalog and knowledge.read):
// what the dashboard shows read-only beside local knowledge.
import test from 'ava';
import { put } from '../helpers/knowledge.js';
import { plantTree } from '../helpers/plant.js';
import { brvJson, cleanup, makeRepo, refTip } from '../helpers/repo.js';
import { openBrv } from '../helpers/service.js';

const topic = (path: string, title: string, body: string) =>
  `<bv-topic path="${path}" title="${title}"><bv-rule>${body}</bv-rule></bv-topic>`;

test('catalog, catalogTip and read take a source alias: its fetched topics, never the local ones', async (t) => {
  const other = await makeRepo();
  const repo = await makeRepo();
  t.teardown(() => cleanup(other, repo));
  const planted = await plantTree(other, {
    'platform/logging.html': topic('platform/logging', 'Logging', 'Log as JSON lines.'),
    'platform/deep/metrics.html': topic('platform/deep/metrics', 'Metrics', 'Count requests.'),
  });
  await put(repo, 'auth/tokens', '<bv-rule>Rotate tokens.</bv-rule>', { title: 'Tokens' });
  const added = await brvJson(repo, ['source', 'add', other, '--alias', 'platform']);
  t.true(added.json?.success, added.stdout + added.stderr);
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());

  const catalog = await brv.retrieval.catalog({ source: 'platform' });
  t.is(catalog.commit, planted);
  t.deepEqual(catalog.topics, [
    { path: 'platform/deep/metrics', title: 'Metrics' },
    { path: 'platform/logging', title: 'Logging' },
  ]);
  t.deepEqual(await brv.retrieval.catalogTip({ source: 'platform' }), { commit: planted });
  t.deepEqual(await brv.retrieval.catalogTip(), { commit: await refTip(repo) });
  t.deepEqual(
    (await brv.retrieval.catalog()).topics.map((x) => x.path),
    ['auth/tokens'],
    'without source: the local topics only',
  );

  const read = await brv.knowledge.read({ path: 'platform/logging', raw: true, source: 'platform' });
  t.is(read.commit, planted);
  t.regex(read.content, /Log as JSON lines/);
  const missing = await t.throwsAsync(brv.knowledge.read({ path: 'auth/tokens', source: 'platform' }));
  t.is((missing as { kind?: string }).kind, 'not-found');
  t.regex(missing!.message, /in knowledge source platform/);
});

test('an unknown source is source-not-found (saying how to list them); source with at is a usage error', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await put(repo, 'auth/tokens', '<bv-rule>Rotate tokens.</bv-rule>');
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  for (const call of [
    () => brv.retrieval.catalog({ source: 'nope' }),
    () => brv.retrieval.catalogTip({ source: 'nope' }),
    () => brv.knowledge.read({ path: 'auth/tokens', source: 'nope' }),
  ]) {
    const error = await t.throwsAsync(call());
    t.is((error as { kind?: string }).kind, 'source-not-found');
    t.regex(error!.message, /brv source list/);
  }
  const both = await t.throwsAsync(brv.knowledge.read({ path: 'auth/tokens', source: 'nope', at: 'HEAD' }));
  t.is((both as { kind?: string }).kind, 'usage');
  const both2 = await t.throwsAsync(brv.retrieval.catalog({ source: 'x', at: 'HEAD' }));
  t.is((both2 as { kind?: string }).kind, 'usage');
});
