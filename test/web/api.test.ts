import test from 'ava';
import { cleanup, refTip, showTopic } from '../helpers/repo.js';
import { knowledgeRepo, request, session, startFor } from './http.js';

test('the JSON API answers for a small repository: status, tree, topic, history, search, changes, reviews', async (t) => {
  const { repo, review } = await knowledgeRepo();
  const server = await startFor(repo);
  const get = async (p: string) => {
    const answer = await request(server.port, { path: p, headers: session(server) });
    t.is(answer.status, 200, `${p}: ${answer.body}`);
    t.regex(String(answer.headers['content-type']), /^application\/json/);
    return answer.json;
  };
  try {
    const tip = await refTip(repo);
    t.like(await get('/api/status'), { branch: 'main', head: tip, topics: 3, pendingReviews: 1 });
    t.regex((await get('/api/status')).version, /^\d+\.\d+\.\d+/);
    t.like(await get('/api/tree'), {
      commit: tip,
      count: 3,
      folders: [
        { path: 'ops', name: 'ops', count: 2 },
        { path: 'security', name: 'security', count: 1 },
      ],
      topics: [],
    });
    t.deepEqual((await get('/api/tree?folder=ops')).topics, [
      { path: 'ops/cache', name: 'cache', title: 'Cache' },
      { path: 'ops/deploy', name: 'deploy', title: 'Deploying' },
    ]);
    const topic = await get('/api/topic?path=security/auth');
    t.like(topic, { path: 'security/auth', title: 'Auth keys', commit: tip });
    t.regex(topic.html, /<section class="bv bv-rule"><h3 class="bv-label">Rule/);
    t.regex(topic.raw, /^<bv-topic path="security\/auth"/);
    t.regex(topic.markdown, /^# Auth keys/);
    t.is((await get('/api/topic?path=security/auth.html')).path, 'security/auth');

    const history = (await get('/api/topic/history?path=security/auth')).entries;
    t.is(history.length, 1);
    t.regex(history[0].subject, /security\/auth/);

    const search = (await get('/api/search?q=Zebra%20caches&limit=5')).results;
    t.is(search[0].path, 'ops/cache');
    t.is(search[0].title, 'Cache');
    t.true(search[0].terms.includes('Zebra'), JSON.stringify(search[0].terms));
    t.regex(search[0].excerpt, /zebra/);
    t.deepEqual((await get('/api/search?q=')).results, []);
    // Filters, as brv search takes them: a folder narrows the answer; a bad value is the service's error.
    t.deepEqual(
      (await get('/api/search?q=Zebra%20caches%20auth%20keys&scope=security')).results.map((r: { path: string }) => r.path),
      ['security/auth'],
    );
    t.deepEqual((await get('/api/search?q=caches&kind=decision')).results, []);
    const badDate = await request(server.port, { path: '/api/search?q=caches&since=yesterday-ish', headers: session(server) });
    t.is(badDate.status, 400);
    t.is(badDate.json.error.kind, 'invalid-date');

    const changes = (await get('/api/changes?limit=2')).entries;
    t.is(changes.length, 2);
    t.is(changes[0].commit, tip);

    const reviews = await get('/api/reviews');
    t.is(reviews.tasks.length, 1);
    t.is(reviews.tasks[0].taskId, review);
    t.is(reviews.tasks[0].operations[0].path, 'ops/cache');
    t.regex(reviews.tasks[0].operations[0].diff, /^\+# Cache\n(\+.*\n?)*\+- \*\*Rule:\*\* Flush the zebra cache/);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('reject through the API undoes the change and closes the review; approve keeps it', async (t) => {
  const { repo, review } = await knowledgeRepo();
  const server = await startFor(repo);
  const post = (p: string, body: unknown) =>
    request(server.port, { method: 'POST', path: p, headers: session(server, true), body: JSON.stringify(body) });
  try {
    t.truthy(await showTopic(repo, 'ops/cache.html'));
    const rejected = await post('/api/reviews/reject', { id: review, topics: ['ops/cache'] });
    t.is(rejected.status, 200, rejected.body);
    t.like(rejected.json, { decision: 'rejected', taskId: review, remaining: [] });
    t.is(await showTopic(repo, 'ops/cache.html'), undefined, 'the rejected topic is gone from the branch');
    const pending = await request(server.port, { path: '/api/reviews', headers: session(server) });
    t.is(pending.json.tasks.length, 0);
    const again = await post('/api/reviews/reject', { id: review });
    t.is(again.status, 404);

    // A high-impact change of an existing topic (its diff shown), approved.
    const { put } = await import('../helpers/knowledge.js');
    const data = await put(repo, 'ops/deploy', '<bv-reason>Deploys go through the canary first.</bv-reason>', {
      title: 'Deploying',
      meta: { impact: 'high' },
    });
    const id = data.review?.id ?? data.reviewId;
    const shown = await request(server.port, { path: '/api/reviews', headers: session(server) });
    const diff = shown.json.tasks[0].operations[0].diff;
    t.regex(diff, /^-.*blue green switch/m);
    t.regex(diff, /^\+.*canary first/m);
    const approved = await post('/api/reviews/approve', { id });
    t.is(approved.status, 200, approved.body);
    t.like(approved.json, { decision: 'approved', taskId: id });
    t.regex((await showTopic(repo, 'ops/deploy.html')) ?? '', /canary/);
    t.is((await request(server.port, { path: '/api/status', headers: session(server) })).json.pendingReviews, 0);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('outside a git repository the server does not start: the typed error', async (t) => {
  const { tempDir } = await import('../helpers/repo.js');
  const dir = await tempDir();
  try {
    const error = await t.throwsAsync(startFor(dir));
    t.is((error as { kind?: string }).kind, 'not-a-git-repository');
  } finally {
    await cleanup(dir);
  }
});

test('planted blobs (no validator on the way): the tree lists them, a hostile topic is served inert, a non-topic as a notice', async (t) => {
  const { makeRepo } = await import('../helpers/repo.js');
  const { plantTree } = await import('../helpers/plant.js');
  const repo = await makeRepo();
  await plantTree(repo, {
    'p/a.html':
      '<bv-topic path="p/a" title="Hostile"><bv-reason><a href="javascript:alert(1)">x</a><script>alert(1)</script>' +
      '<img src="https://tracker.example/p.png" alt="t" onerror="alert(1)"></bv-reason></bv-topic>',
    'p/junk.html': 'not a topic at all',
  });
  const server = await startFor(repo);
  try {
    const tree = await request(server.port, { path: '/api/tree?folder=p', headers: session(server) });
    t.deepEqual(tree.json.topics, [
      { path: 'p/a', name: 'a', title: 'Hostile' },
      { path: 'p/junk', name: 'junk', title: '' },
    ]);
    const topic = (await request(server.port, { path: '/api/topic?path=p/a', headers: session(server) })).json;
    t.is(topic.title, 'Hostile');
    t.notRegex(topic.html, /script|javascript:|onerror|tracker\.example/);
    t.regex(topic.raw, /<script>alert\(1\)<\/script>/, 'raw is the stored text, for display as text');
    const junk = (await request(server.port, { path: '/api/topic?path=p/junk', headers: session(server) })).json;
    t.regex(junk.html, /cannot be shown as a topic/);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('the tree follows changes through the incremental index: a retitled topic shows its new title, a removed one is gone', async (t) => {
  const { makeRepo, brvJson } = await import('../helpers/repo.js');
  const { put } = await import('../helpers/knowledge.js');
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  await put(repo, 'a/one', '<bv-rule>One.</bv-rule>', { title: 'First title' });
  await put(repo, 'a/two', '<bv-rule>Two.</bv-rule>', { title: 'Two' });
  const server = await startFor(repo);
  const tree = async () =>
    ((await request(server.port, { path: '/api/tree?folder=a', headers: session(server) })).json.topics ?? []).map(
      ({ path, title }: { path: string; title: string }) => ({ path, title }),
    );
  // Answers are shared until the change's ref event arrives (or for a second): poll until the change shows.
  const eventually = async (expected: unknown) => {
    for (let i = 0; i < 60 && JSON.stringify(await tree()) !== JSON.stringify(expected); i++) await new Promise((r) => setTimeout(r, 50));
    t.deepEqual(await tree(), expected);
  };
  try {
    t.deepEqual(await tree(), [
      { path: 'a/one', title: 'First title' },
      { path: 'a/two', title: 'Two' },
    ]);
    await put(repo, 'a/one', '<bv-rule>One, again.</bv-rule>', { title: 'Second title' });
    await eventually([
      { path: 'a/one', title: 'Second title' },
      { path: 'a/two', title: 'Two' },
    ]);
    await brvJson(repo, ['rm', 'a/two']);
    await eventually([{ path: 'a/one', title: 'Second title' }]);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});
