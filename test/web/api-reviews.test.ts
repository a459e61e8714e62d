import test from 'ava';
import { conflictedMerge, highImpactReview, plantHostileConflictSide } from '../helpers/merge-review.js';
import { plantTree } from '../helpers/plant.js';
import { put, rule } from '../helpers/knowledge.js';
import { cleanup, makeRepo, refTip, showTopic } from '../helpers/repo.js';
import { request, session, startFor } from './http.js';
import type { WebServer } from '../../src/web/server.js';

// The review inbox's API: a merge review's conflicts (each side also as sanitised display HTML), resolving
// them per section or per topic, approve refused while conflicts remain (unless keepBoth), batch decisions.

function client(server: WebServer) {
  return {
    get: (path: string) => request(server.port, { path, headers: session(server) }),
    post: (path: string, body: unknown) =>
      request(server.port, {
        method: 'POST',
        path,
        headers: session(server, true),
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

test('conflicts of a merge review: each section with ours and theirs, as source and as sanitised display', async (t) => {
  const { repo, id } = await conflictedMerge();
  const server = await startFor(repo);
  const { get } = client(server);
  try {
    const answer = await get(`/api/reviews/conflicts?id=${id}`);
    t.is(answer.status, 200, answer.body);
    t.is(answer.json.taskId, id);
    const [topic] = answer.json.topics;
    t.is(topic.path, 'ops/deploy');
    t.deepEqual(
      topic.conflicts.map((c: { section: string }) => c.section),
      ['bv-rule#r1', 'bv-rule#r2'],
    );
    const [first] = topic.conflicts;
    t.regex(first.reason, /changed differently on both sides/);
    t.regex(first.ours, /<bv-rule id="r1">Ours one\.<\/bv-rule>/);
    t.regex(first.theirs, /Theirs one\./);
    t.regex(first.oursDisplay.html, /^<article class="bv bv-topic">.*Ours one\./s);
    t.notRegex(first.oursDisplay.html, /bv-rule id=|Merge conflict/);
    t.regex(first.theirsDisplay.markdown, /Theirs one\./);
    t.notRegex(first.theirsDisplay.markdown, /^#/, 'no title heading for a side');

    const short = await get(`/api/reviews/conflicts?id=${id.slice(0, 8)}`);
    t.is(short.json.taskId, id, 'a unique prefix is enough');
    t.like((await get('/api/reviews/conflicts')).json.error, { kind: 'invalid-request' });
    const bad = await get('/api/reviews/conflicts?id=not-hex');
    t.is(bad.status, 400);
    t.is(bad.json.error.kind, 'invalid-review-id');
    const missing = await get('/api/reviews/conflicts?id=abcdef123456');
    t.is(missing.status, 404);
    t.is(missing.json.error.kind, 'review-not-found');

    // The inbox says who made each change, and filters by it.
    const listed = await get('/api/reviews');
    t.like(listed.json.tasks[0], { taskId: id, author: { name: 'Ada Author', email: 'ada@example.com' } });
    t.is(listed.json.tasks[0].operations[0].landing, 'diff', "a merge's topic: the diff that approving keeps");
    t.is((await get('/api/reviews?author=ada%40example')).json.tasks.length, 1);
    t.is((await get('/api/reviews?agent=claude-code')).json.tasks.length, 0);
    t.is((await get('/api/reviews?agent=&impact=')).json.tasks.length, 1, 'empty means any');
    const badSince = await get('/api/reviews?since=2026-13-45');
    t.is(badSince.status, 400);
    t.is(badSince.json.error.kind, 'invalid-date');
    t.is((await get('/api/reviews?agent=a&agent=b')).json.error.kind, 'invalid-request');
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('resolve one section ours, another theirs: approve is refused until then, and nothing is written when refused', async (t) => {
  const { repo, id } = await conflictedMerge();
  const server = await startFor(repo);
  const { get, post } = client(server);
  try {
    let tip = await refTip(repo);
    const refused = await post('/api/reviews/approve', { id });
    t.is(refused.status, 400);
    t.is(refused.json.error.kind, 'unresolved-conflicts');
    t.is(await refTip(repo), tip, 'nothing recorded');

    // Bad requests, typed, and nothing written.
    const cases: Array<[unknown, number, string]> = [
      [{ id, topic: 'ops/deploy', side: 'mine' }, 400, 'invalid-request'],
      [{ id, topic: 'ops/deploy', side: 'edit' }, 400, 'invalid-request'],
      [{ id, topic: 'ops/deploy' }, 400, 'invalid-request'],
      [{ id, topic: 'ops/deploy', side: 'ours', extra: 1 }, 400, 'invalid-request'],
      [{ id, topic: 'ops/deploy', side: 'ours', section: 'bv-rule#nope' }, 400, 'no-conflict'],
      [{ id, topic: 'ops/other', side: 'ours' }, 400, 'file-not-in-review'],
      [{ id, topic: '../../etc/passwd', side: 'ours' }, 400, ''],
      [{ id: 'abcdef123456', topic: 'ops/deploy', side: 'ours' }, 404, 'review-not-found'],
      [{ id: 'zz', topic: 'ops/deploy', side: 'ours' }, 400, 'invalid-review-id'],
      ['[1,2', 400, 'invalid-request'],
    ];
    for (const [body, status, kind] of cases) {
      const answer = await post('/api/reviews/resolve', body);
      t.is(answer.status, status, `${JSON.stringify(body)}: ${answer.body}`);
      if (kind) t.is(answer.json.error.kind, kind, JSON.stringify(body));
      else t.truthy(answer.json.error.kind);
    }
    t.is(await refTip(repo), tip, 'no refused request wrote anything');

    const first = await post('/api/reviews/resolve', { id, topic: 'ops/deploy', side: 'ours', section: 'bv-rule#r1' });
    t.is(first.status, 200, first.body);
    t.like(first.json, { taskId: id, path: 'ops/deploy', side: 'ours', resolved: ['bv-rule#r1'], remaining: ['bv-rule#r2'] });
    t.not(await refTip(repo), tip);
    t.regex(await get(`/api/reviews/conflicts?id=${id}`).then((a) => a.body), /bv-rule#r2/);
    t.deepEqual(
      (await get(`/api/reviews/conflicts?id=${id}`)).json.topics[0].conflicts.map((c: { section: string }) => c.section),
      ['bv-rule#r2'],
      'the answer is read fresh after a change made through the server',
    );
    t.is((await post('/api/reviews/approve', { id })).json.error.kind, 'unresolved-conflicts');

    const second = await post('/api/reviews/resolve', { id, topic: 'ops/deploy', side: 'theirs', section: 'bv-rule#r2' });
    t.like(second.json, { resolved: ['bv-rule#r2'], remaining: [] });
    t.deepEqual((await get(`/api/reviews/conflicts?id=${id}`)).json.topics[0].conflicts, []);
    tip = await refTip(repo);
    const approved = await post('/api/reviews/approve', { id });
    t.is(approved.status, 200, approved.body);
    t.like(approved.json, { decision: 'approved', taskId: id, remaining: [] });
    const html = (await showTopic(repo, 'ops/deploy.html'))!;
    t.regex(html, /<bv-rule id="r1">Ours one\.<\/bv-rule>/);
    t.regex(html, /<bv-rule id="r2">Theirs two\.<\/bv-rule>/);
    t.notRegex(html, /Theirs one|Ours two|Merge conflict/);
    t.deepEqual((await get('/api/reviews')).json.tasks, []);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('resolve a whole topic "both"; approve keepBoth keeps the marked versions; keepBoth is for approve only', async (t) => {
  const { repo, id } = await conflictedMerge();
  const other = await conflictedMerge(undefined, 'ops/release');
  const server = await startFor(repo);
  const { post } = client(server);
  const second = await startFor(other.repo);
  const post2 = client(second).post;
  try {
    const both = await post('/api/reviews/resolve', { id, topic: 'ops/deploy', side: 'both' });
    t.like(both.json, { side: 'both', resolved: ['bv-rule#r1', 'bv-rule#r2'], remaining: [] });
    const html = (await showTopic(repo, 'ops/deploy.html'))!;
    t.regex(html, /Ours one\.[\s\S]*Theirs one\./);
    t.notRegex(html, /Merge conflict/);
    t.like((await post('/api/reviews/approve', { id })).json, { decision: 'approved' });

    const tip = await refTip(other.repo);
    t.is((await post2('/api/reviews/approve', { id: other.id, keepBoth: 'yes' })).json.error.kind, 'invalid-request');
    t.is((await post2('/api/reviews/reject', { id: other.id, keepBoth: true })).json.error.kind, 'invalid-request');
    t.is((await post2('/api/reviews/approve', { id: other.id, keepBoth: false })).json.error.kind, 'unresolved-conflicts');
    t.is(await refTip(other.repo), tip, 'nothing written');
    const kept = await post2('/api/reviews/approve', { id: other.id, keepBoth: true });
    t.is(kept.status, 200, kept.body);
    t.like(kept.json, { decision: 'approved', taskId: other.id });
    t.regex((await showTopic(other.repo, 'ops/release.html'))!, /Merge conflict/, 'both versions stay, marked, as asked');
  } finally {
    await server.close();
    await second.close();
    await cleanup(repo, other.repo);
  }
});

test('batch: decisions applied in order, each on its own; a failing one is reported in its place', async (t) => {
  const { repo, id: merge } = await conflictedMerge();
  const a = await highImpactReview(repo, 'team/a', 'Alpha.');
  const b = await highImpactReview(repo, 'team/b', 'Beta.');
  const server = await startFor(repo);
  const { get, post } = client(server);
  try {
    const answer = await post('/api/reviews/batch', {
      decisions: [
        { id: a, decision: 'reject' },
        { id: merge, decision: 'approve' },
        { id: 'abcdef123456', decision: 'reject' },
        { id: b, decision: 'reject', topics: ['team/b'] },
      ],
    });
    t.is(answer.status, 200, answer.body);
    const { results } = answer.json;
    t.is(results.length, 4);
    t.like(results[0], { id: a, decision: 'reject', ok: true, result: { decision: 'rejected', taskId: a } });
    t.like(results[1], { id: merge, decision: 'approve', ok: false, error: { kind: 'unresolved-conflicts' } });
    t.like(results[2], { ok: false, error: { kind: 'review-not-found' } });
    t.like(results[3], { id: b, ok: true, result: { decision: 'rejected', remaining: [] } });
    t.is(await showTopic(repo, 'team/a.html'), undefined);
    t.is(await showTopic(repo, 'team/b.html'), undefined);
    t.deepEqual(
      (await get('/api/reviews')).json.tasks.map((task: { taskId: string }) => task.taskId),
      [merge],
      'only the refused one is left',
    );

    const kept = await post('/api/reviews/batch', { decisions: [{ id: merge, decision: 'approve', keepBoth: true }] });
    t.like(kept.json.results[0], { ok: true, result: { decision: 'approved' } });
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('batch: a malformed body is refused whole (400) and nothing is applied', async (t) => {
  const { repo, id } = await conflictedMerge();
  const a = await highImpactReview(repo, 'team/a', 'Alpha.');
  const server = await startFor(repo);
  const { post } = client(server);
  try {
    const tip = await refTip(repo);
    const many = Array.from({ length: 101 }, () => ({ id: a, decision: 'reject' }));
    const bodies: unknown[] = [
      {},
      { decisions: [] },
      { decisions: many },
      { decisions: 'all' },
      {
        decisions: [
          { id: a, decision: 'reject' },
          { id, decision: 'maybe' },
        ],
      },
      {
        decisions: [
          { id: a, decision: 'reject' },
          { id, decision: 'reject', keepBoth: true },
        ],
      },
      {
        decisions: [
          { id: a, decision: 'reject' },
          { id, decision: 'approve', topics: [] },
        ],
      },
      { decisions: [{ id: a, decision: 'reject' }, null] },
      { decisions: [{ id: a, decision: 'reject', extra: true }] },
      { decisions: [{ id: a, decision: 'reject' }], more: 1 },
      '{"decisions": [',
    ];
    for (const body of bodies) {
      const answer = await post('/api/reviews/batch', body);
      t.is(answer.status, 400, JSON.stringify(body).slice(0, 120));
      t.is(answer.json.error.kind, 'invalid-request');
    }
    t.regex(
      (
        await post('/api/reviews/batch', {
          decisions: [
            { id: a, decision: 'reject' },
            { id, decision: 'maybe' },
          ],
        })
      ).json.error.message,
      /decisions\[1\]/,
    );
    t.is(await refTip(repo), tip, 'nothing applied');
    t.truthy(await showTopic(repo, 'team/a.html'));
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('a hostile conflict side (planted) is given as inert display HTML; its source only as text', async (t) => {
  const { repo, id } = await conflictedMerge();
  await plantHostileConflictSide(repo);
  const server = await startFor(repo);
  try {
    const answer = await request(server.port, { path: `/api/reviews/conflicts?id=${id}`, headers: session(server) });
    t.is(answer.status, 200, answer.body);
    const [first] = answer.json.topics[0].conflicts;
    t.regex(first.ours, /Ours one\. &lt;img src=x onerror=alert\(1\)>/, 'the source, to show as text');
    const display: string = first.oursDisplay.html;
    // Markup outside attribute values (an escaped quote cannot end one): no element or handler came alive.
    const outsideValues = display.replace(/"[^"]*"/g, '""');
    t.notRegex(outsideValues, /<(img|script)\b/i);
    t.notRegex(outsideValues, /<[^>]*\son\w+=/i);
    t.regex(display, /title="&#x22;><img src=x onerror=alert\(2\)>"/, 'the breakout stays inside its value');
    t.regex(display, /&#x3C;img src=x onerror=alert\(1\)>|&lt;img src=x onerror=alert\(1\)&gt;/);
    t.regex(display, /<a href="https:\/\/example.invalid\/x" rel="noopener noreferrer nofollow">link<\/a>/);
    t.regex(first.oursDisplay.markdown, /Ours one\./);
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('a conflicted topic planted with a script and a handler in one side: its conflicts are listed (sanitised) and still block approval', async (t) => {
  const { repo, id } = await conflictedMerge();
  const html = (await showTopic(repo, 'ops/deploy.html'))!;
  // Not valid topic HTML (the validator refuses script and handlers): a push can still carry it.
  const hostile = html.replace('Theirs one.', 'Theirs one.<script>alert(1)</script><img src=x onerror=alert(2)>');
  await plantTree(repo, { 'ops/deploy.html': hostile });
  const server = await startFor(repo);
  const { get, post } = client(server);
  try {
    const answer = await get(`/api/reviews/conflicts?id=${id}`);
    t.is(answer.status, 200, answer.body);
    const conflicts = answer.json.topics[0].conflicts;
    t.deepEqual(
      conflicts.map((c: { section: string }) => c.section),
      ['bv-rule#r1', 'bv-rule#r2'],
    );
    t.regex(conflicts[0].theirs, /Theirs one\./);
    t.notRegex(answer.body, /<script|onerror=/i, 'neither the source nor the display carries them');

    const tip = await refTip(repo);
    t.is((await post('/api/reviews/approve', { id })).json.error.kind, 'unresolved-conflicts', 'not approved unseen');
    t.is(await refTip(repo), tip);
    const resolved = await post('/api/reviews/resolve', { id, topic: 'ops/deploy', side: 'ours' });
    t.is(resolved.status, 200, resolved.body);
    const written = (await showTopic(repo, 'ops/deploy.html'))!;
    t.notRegex(written, /script|onerror|Theirs|Merge conflict/);
    t.regex(written, /Ours one\.[\s\S]*Ours two\./);
    t.like((await post('/api/reviews/approve', { id })).json, { decision: 'approved' });
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('a reject that conflicts with a later edit answers 409 reject-conflict naming the merge review, alone and in a batch', async (t) => {
  const repo = await makeRepo();
  await put(repo, 'ops/deploy', rule('Base deploy.'));
  await put(repo, 'ops/other', rule('Base other.'));
  const first = await highImpactReview(repo, 'ops/deploy', 'Risky deploy.');
  const second = await highImpactReview(repo, 'ops/other', 'Risky other.');
  await put(repo, 'ops/deploy', rule('Later deploy.'));
  await put(repo, 'ops/other', rule('Later other.'));
  const server = await startFor(repo);
  const { post } = client(server);
  try {
    const alone = await post('/api/reviews/reject', { id: first });
    t.is(alone.status, 409, alone.body);
    t.is(alone.json.error.kind, 'reject-conflict');
    t.regex(alone.json.error.message, /could not be undone cleanly: ops\/deploy\. .*merge review \w+/);
    t.deepEqual(alone.json.error.conflicts, ['ops/deploy']);
    t.regex(alone.json.error.review, /^[0-9a-f]+$/);

    const batch = await post('/api/reviews/batch', { decisions: [{ id: second, decision: 'reject' }] });
    t.is(batch.status, 200, batch.body);
    t.like(batch.json.results[0], { id: second, decision: 'reject', ok: false, error: { kind: 'reject-conflict' } });
  } finally {
    await server.close();
    await cleanup(repo);
  }
});
