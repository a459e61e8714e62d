import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isBrvError } from '../../src/base/errors.js';
import { sinceInstant } from '../../src/vc/review.js';
import { homedir } from 'node:os';
import { BrvService } from '../../src/service/service.js';
import { makeRepo } from '../helpers/repo.js';
import { openBrv } from '../helpers/service.js';

// Who made a reviewed change (git author, Brv-Agent, impact, time) as brv.review.pending() lists it, and its filter
// (review pending --agent/--author/--impact/--since, GET /api/reviews?…), in-process against a real repository.

/** A high-impact one-shot curate of `topic` by `agent`, authored and committed as `who` at `date` (a service of its own). */
async function write(repo: string, topic: string, agent: string, who: [string, string], date: string): Promise<void> {
  const env = { ...process.env, GIT_AUTHOR_NAME: who[0], GIT_AUTHOR_EMAIL: who[1], GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  const brv = await new BrvService({ env, home: homedir(), platform: process.platform }).open(repo);
  try {
    const file = path.join(repo, `${topic.replace(/\W/g, '-')}.html`);
    await writeFile(file, `<bv-topic path="${topic}" title="${topic}"><bv-rule severity="must">Rule of ${topic}.</bv-rule></bv-topic>\n`);
    const done = await brv.knowledge.curate({ htmlFile: file, meta: JSON.stringify({ impact: 'high', reason: `by ${agent}` }) }, { agent });
    if (!done.ok) throw new Error(JSON.stringify(done));
  } finally {
    await brv.close();
  }
}

test.serial('reviews name their author, agent and impact; pending filters by each, and by since', async (t) => {
  const repo = await makeRepo();
  await write(repo, 'ops/deploy', 'claude-code', ['Ada Author', 'ada@example.com'], '2026-01-01T00:00:00Z');
  await write(repo, 'security/jwt', 'codex', ['Bob Builder', 'bob@example.org'], '2026-03-01T12:00:00Z');
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  const all = await brv.review.pending();
  t.is(all.tasks.length, 2);
  t.like(all.tasks[0], { agent: 'claude-code', impact: 'high', author: { name: 'Ada Author', email: 'ada@example.com' } });
  t.like(all.tasks[1], { agent: 'codex', impact: 'high', author: { name: 'Bob Builder', email: 'bob@example.org' } });
  t.is(all.tasks[1]!.time, '2026-03-01T12:00:00.000Z');

  const ids = async (filter: Parameters<typeof brv.review.pending>[0]) =>
    (await brv.review.pending(filter)).tasks.map((task) => task.agent);
  t.deepEqual(await ids({ agent: 'claude-code' }), ['claude-code']);
  t.deepEqual(await ids({ agent: 'CODEX' }), ['codex'], 'case ignored');
  t.deepEqual(await ids({ agent: 'claude' }), [], 'an agent matches whole');
  t.deepEqual(await ids({ author: 'bob@' }), ['codex'], 'part of the email');
  t.deepEqual(await ids({ author: 'ada author' }), ['claude-code'], 'part of the name');
  t.deepEqual(await ids({ impact: 'high' }), ['claude-code', 'codex']);
  t.deepEqual(await ids({ impact: 'low' }), []);
  t.deepEqual(await ids({ since: '2026-02-01' }), ['codex']);
  t.deepEqual(await ids({ since: '2026-03-01T12:00:00Z' }), ['codex'], 'on or after');
  t.deepEqual(await ids({ since: '2026-03-01T12:00:01Z' }), []);
  t.deepEqual(await ids({ agent: 'codex', since: '2026-01-01' }), ['codex'], 'every field must match');
  t.is((await brv.review.pending({ agent: 'codex' })).pendingCount, 1);
  const listed = await brv.review.pendingWithDiffs({ author: 'Ada' });
  t.deepEqual(
    listed.tasks.map((task) => task.agent),
    ['claude-code'],
  );
  t.regex(listed.tasks[0]!.operations[0]!.diff ?? '', /Rule of ops\/deploy/);
  const bad = await t.throwsAsync(brv.review.pending({ since: '2026-13-45' }));
  t.true(isBrvError(bad) && bad.kind === 'invalid-date', String(bad));
});

test('since: a day, a time, or how long ago; a day that does not exist is refused', (t) => {
  const now = Date.parse('2026-12-06T08:00:00Z');
  t.is(sinceInstant('2026-12-01', now), Date.parse('2026-12-01T00:00:00Z'));
  t.is(sinceInstant('2026-12-06T07:00:00Z', now), Date.parse('2026-12-06T07:00:00Z'));
  t.is(sinceInstant('12h', now), Date.parse('2026-12-05T20:00:00Z'));
  t.is(sinceInstant('2w', now), Date.parse('2026-11-22T08:00:00Z'));
  t.is(sinceInstant('30m', now), Date.parse('2026-12-06T07:30:00Z'));
  for (const bad of ['2026-13-45', '2026-02-30', 'yesterday', '12', '-1d', 'Dec 1 2026'])
    t.throws(() => sinceInstant(bad, now), { message: /--since takes a day/ }, bad);
});
