// GET /api/tree one folder at a time (levels, counts, pages), GET /api/sources and a source's tree and topics.
import test from 'ava';
import { plantBulk, plantTree } from '../helpers/plant.js';
import { brvJson, cleanup, makeRepo } from '../helpers/repo.js';
import { request, session, startFor } from './http.js';
import type { WebServer } from '../../src/web/server.js';

const topic = (path: string, title: string, body = 'Text.') =>
  `<bv-topic path="${path}" title="${title}"><bv-rule>${body}</bv-rule></bv-topic>`;

const getter = (server: WebServer) => async (p: string) => request(server.port, { path: p, headers: session(server) });

test('the tree one level at a time: sub-folders first with counts at any depth, then topics; the root by default', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const commit = await plantTree(repo, {
    'a/b/c.html': topic('a/b/c', 'Deep C'),
    'a/b/d.html': topic('a/b/d', 'Deep D'),
    'a/z.html': topic('a/z', 'Zed'),
    'a.html': topic('a', 'A itself'),
    'top.html': topic('top', 'Top'),
    'junk/x.html': 'not a topic',
  });
  const server = await startFor(repo);
  t.teardown(() => server.close());
  const get = getter(server);
  const root = await get('/api/tree');
  t.is(root.status, 200, root.body);
  t.deepEqual(root.json, {
    commit,
    folder: '',
    count: 6,
    total: 4,
    folderTotal: 2,
    offset: 0,
    folders: [
      { path: 'a', name: 'a', count: 3 },
      { path: 'junk', name: 'junk', count: 1 },
    ],
    topics: [
      { path: 'a', name: 'a', title: 'A itself' },
      { path: 'top', name: 'top', title: 'Top' },
    ],
  });
  t.deepEqual((await get('/api/tree?folder=')).json, root.json);
  const a = (await get('/api/tree?folder=a')).json;
  t.like(a, { folder: 'a', count: 3, total: 2, folderTotal: 1 });
  t.deepEqual(a.folders, [{ path: 'a/b', name: 'b', count: 2 }]);
  t.deepEqual(a.topics, [{ path: 'a/z', name: 'z', title: 'Zed' }]);
  t.deepEqual(
    (await get('/api/tree?folder=a/b')).json.topics.map((x: { path: string }) => x.path),
    ['a/b/c', 'a/b/d'],
  );
  // A blob that is no topic is listed (untitled), as the search index leaves it out.
  t.deepEqual((await get('/api/tree?folder=junk')).json.topics, [{ path: 'junk/x', name: 'x', title: '' }]);
});

test('a folder of 5,000 topics is answered in pages (offset, limit, total); around picks the page holding a path', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const name = (i: number) => `t${String(i).padStart(5, '0')}`;
  await plantBulk(repo, [
    ...Array.from({ length: 5000 }, (_, i): [string, string] => [`big/${name(i)}.html`, topic(`big/${name(i)}`, `Title ${i}`)]),
    ['big/sub/one.html', topic('big/sub/one', 'One')],
  ]);
  const server = await startFor(repo);
  t.teardown(() => server.close());
  const get = getter(server);
  const first = (await get('/api/tree?folder=big')).json;
  t.like(first, { count: 5001, total: 5001, folderTotal: 1, offset: 0 });
  t.is(first.folders.length + first.topics.length, 500, 'the default page is 500 children');
  t.deepEqual(first.folders, [{ path: 'big/sub', name: 'sub', count: 1 }]);
  t.is(first.topics[0].path, 'big/t00000');
  const last = (await get('/api/tree?folder=big&offset=4990&limit=100')).json;
  t.like(last, { offset: 4990, total: 5001 });
  t.deepEqual(last.folders, []);
  t.deepEqual(
    last.topics.map((x: { name: string }) => x.name),
    Array.from({ length: 11 }, (_, i) => name(4989 + i)),
  );
  const around = (await get('/api/tree?folder=big&around=big/t03000&limit=1000')).json;
  t.is(around.offset, 3000);
  t.is(around.topics.findIndex((x: { name: string }) => x.name === 't03000') + around.offset + around.folders.length, 3001);
  t.is((await get('/api/tree?around=big/sub/one')).json.offset, 0);
  t.deepEqual((await get('/api/tree?folder=big&offset=9000')).json.topics, [], 'past the end: an empty page');
  const tooMany = await get('/api/tree?folder=big&limit=5000');
  t.is(tooMany.status, 400);
  t.is(tooMany.json.error.kind, 'invalid-request');
});

test('path parameters are checked: traversal, absolute, over-long and malformed are 400; a missing folder is 404', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, { 'a/b.html': topic('a/b', 'B') });
  const server = await startFor(repo);
  t.teardown(() => server.close());
  const get = getter(server);
  for (const bad of [
    'folder=..',
    'folder=a/../..',
    'folder=../../etc',
    'folder=%2Fetc',
    'folder=a%5Cb',
    'folder=a/',
    'folder=a//b',
    'folder=.git',
    `folder=${'x'.repeat(5000)}`,
    'folder=a%00',
    'folder=a&folder=b',
    'around=../x',
    'folder=a&around=b/c',
    'offset=-1',
    'offset=x',
    'source=..',
    'source=a/b',
    `source=${'s'.repeat(100)}`,
  ]) {
    const answer = await get(`/api/tree?${bad}`);
    t.is(answer.status, 400, `${bad}: ${answer.body}`);
    t.truthy(answer.json?.error?.kind, bad);
  }
  const missing = await get('/api/tree?folder=nope');
  t.is(missing.status, 404);
  t.is(missing.json.error.kind, 'not-found');
  t.is((await get('/api/tree?folder=a/b')).status, 404, 'a topic is no folder');
  const noSource = await get('/api/tree?source=nope');
  t.is(noSource.status, 404);
  t.is(noSource.json.error.kind, 'source-not-found');
  t.is((await get('/api/topic?path=a/b&source=nope')).json.error.kind, 'source-not-found');
  t.is((await get('/api/topic?path=../x&source=nope')).status, 400);
});

test('a knowledge source: listed by /api/sources, its tree and topics read-only, a hostile blob sanitised like a local one', async (t) => {
  const other = await makeRepo();
  const repo = await makeRepo();
  t.teardown(() => cleanup(other, repo));
  const planted = await plantTree(other, {
    'platform/logging.html': topic('platform/logging', 'Logging', 'Log JSON lines.'),
    'platform/evil.html':
      '<bv-topic path="platform/evil" title="Evil"><bv-reason><a href="javascript:alert(1)">x</a><script>alert(1)</script>' +
      '<img src="https://tracker.example/p.png" alt="t" onerror="alert(1)"></bv-reason></bv-topic>',
  });
  await plantTree(repo, { 'local/one.html': topic('local/one', 'One') });
  const added = await brvJson(repo, ['source', 'add', other, '--alias', 'platform']);
  t.true(added.json?.success, added.stdout + added.stderr);
  const server = await startFor(repo);
  t.teardown(() => server.close());
  const get = getter(server);

  const sources = await get('/api/sources');
  t.is(sources.status, 200, sources.body);
  t.deepEqual(sources.json, { sources: [{ alias: 'platform', location: other, branch: 'main', commit: planted, topics: 2 }] });

  const root = (await get('/api/tree?source=platform')).json;
  t.like(root, { source: 'platform', commit: planted, count: 2, folders: [{ path: 'platform', name: 'platform', count: 2 }] });
  t.deepEqual(
    (await get('/api/tree?source=platform&folder=platform')).json.topics.map((x: { path: string }) => x.path),
    ['platform/evil', 'platform/logging'],
  );
  t.deepEqual(
    (await get('/api/tree')).json.folders.map((f: { path: string }) => f.path),
    ['local'],
    'local knowledge is unchanged',
  );

  const logging = (await get('/api/topic?path=platform/logging&source=platform')).json;
  t.like(logging, { path: 'platform/logging', title: 'Logging', source: 'platform', commit: planted });
  t.regex(logging.html, /Log JSON lines/);
  const evil = (await get('/api/topic?path=platform/evil&source=platform')).json;
  t.notRegex(evil.html, /script|javascript:|onerror|tracker\.example/);
  t.regex(evil.raw, /<script>alert\(1\)<\/script>/, 'raw is the stored text, shown as text');
  const local = await get('/api/topic?path=platform/logging');
  t.is(local.status, 404, 'a source topic is not a local one');
});

test('without sources: an empty list; an uninitialised repository: an empty root', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const server = await startFor(repo);
  t.teardown(() => server.close());
  const get = getter(server);
  t.deepEqual((await get('/api/sources')).json, { sources: [] });
  const root = await get('/api/tree');
  t.is(root.status, 200, root.body);
  t.like(root.json, { commit: null, count: 0, total: 0, folders: [], topics: [] });
});

test('GET /api/tree?around= finds the page of a topic listed by title; GET /api/topic/links: related refs resolved, backlinks', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const linked = (path: string, title: string, related: string) =>
    `<bv-topic path="${path}" title="${title}" related="${related}"><bv-rule>Text.</bv-rule></bv-topic>`;
  await plantTree(repo, {
    'f/a.html': topic('f/a', 'Zulu'),
    'f/b.html': topic('f/b', 'Alpha'),
    'f/c.html': linked('f/c', 'Mike', '@f/a.html, @g, @missing/topic.html, @f/c'),
    'g/d.html': linked('g/d', 'Delta', '@f/a'),
  });
  const server = await startFor(repo);
  t.teardown(() => server.close());
  const get = getter(server);
  const page = await get('/api/tree?folder=f&limit=1&around=f/a');
  t.is(page.json.offset, 2, 'Zulu is listed last');
  t.deepEqual(page.json.topics, [{ path: 'f/a', name: 'a', title: 'Zulu' }]);

  const links = await get('/api/topic/links?path=f/c');
  t.is(links.status, 200, links.body);
  t.deepEqual(links.json.related, [
    { path: 'f/a', kind: 'topic', title: 'Zulu' },
    { path: 'g', kind: 'folder', title: 'g' },
  ]);
  t.deepEqual(links.json.backlinks, []);
  t.deepEqual((await get('/api/topic/links?path=f/a')).json.backlinks, [
    { path: 'f/c', title: 'Mike' },
    { path: 'g/d', title: 'Delta' },
  ]);
  t.is((await get('/api/topic/links?path=f/nope')).status, 404);
  t.is((await get('/api/topic/links?path=../etc')).status, 400);
});
