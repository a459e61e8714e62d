import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, brvJson, CLI, ENV, git, makeRepo, refTip, tempDir } from '../helpers/repo.js';

const topic = (p: string, rule: string) => `<bv-topic path="${p}" title="${p}"><bv-rule severity="must">${rule}</bv-rule></bv-topic>`;

async function topicFile(html: string): Promise<string> {
  const file = path.join(await tempDir('brv-topic-'), 'topic.html');
  await writeFile(file, html);
  return file;
}

async function gatedRepo(): Promise<string> {
  const repo = await makeRepo();
  await git(repo, 'config', 'brv.review.gate', 'true');
  await brvJson(repo, ['init']);
  return repo;
}

test('a held curate says it is held and names the review (text and JSON); resending it while held is unchanged', async (t) => {
  const repo = await gatedRepo();
  const file = await topicFile(topic('ops/drop', 'Drop the cache table on deploy.'));
  const args = ['curate', '--html-file', file, '--meta', '{"impact":"high","reason":"drops data"}'];
  const text = await brv(repo, args);
  t.is(text.exitCode, 0, text.stderr);
  const id = /^Held for review ([0-9a-f]+): ops\/drop is not on the branch until a person approves it \(brv review approve \1\)\.$/m.exec(
    text.stdout,
  )?.[1];
  t.truthy(id, text.stdout);
  const tip = await refTip(repo);

  const again = await brvJson(repo, args);
  t.like(again.json?.data, { status: 'done', unchanged: true, held: true, review: { id, gated: true } });
  t.is(again.json?.data.commit, undefined);
  const againText = await brv(repo, args);
  t.regex(againText.stdout, new RegExp(`^Held \\(unchanged\\): ops/drop .* waits for review ${id}`, 'm'));
  const pending = (await brvJson(repo, ['review', 'pending'])).json!.data;
  t.is(pending.tasks.length, 1, 'no second review');
  t.is(await refTip(repo), tip);

  // A different topic is a new held change with its own review, flagged in JSON.
  const other = await brvJson(repo, [
    'curate',
    '--html-file',
    await topicFile(topic('ops/other', 'Other.')),
    '--meta',
    '{"impact":"high"}',
  ]);
  t.like(other.json?.data, { status: 'done', held: true, review: { gated: true } });
  t.not(other.json?.data.review.id, id);
});

test('MCP brv-curate says a change is held and names the review; resending is unchanged', async (t) => {
  const repo = await gatedRepo();
  const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd: repo, env: ENV, stderr: 'pipe' });
  const client = new Client({ name: 'brv-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  const call = () =>
    client.callTool({ name: 'brv-curate', arguments: { html: topic('ops/drop', 'Drop it.'), meta: { impact: 'high', reason: 'risky' } } });
  const textOf = (result: any) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
  const first = textOf(await call());
  const id = /^Held for review ([0-9a-f]+): ops\/drop is not on the branch/.exec(first)?.[1];
  t.truthy(id, first);
  t.regex(textOf(await call()), new RegExp(`^Held \\(unchanged\\): ops/drop .* review ${id}`));
  t.is((await brvJson(repo, ['review', 'pending'])).json!.data.tasks.length, 1);
});

test('brv review lists reviews by time, newest last', async (t) => {
  const repo = await makeRepo();
  const dates = ['2026-03-03T00:00:00Z', '2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z', '2026-03-05T00:00:00Z', '2026-03-04T00:00:00Z'];
  const made: Array<{ time: string; id: string }> = [];
  for (const [i, date] of dates.entries()) {
    const run = await brvJson(
      repo,
      ['curate', '--html-file', await topicFile(topic(`ops/t${i}`, `Rule ${i}.`)), '--meta', '{"impact":"high"}'],
      {
        env: { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date },
      },
    );
    made.push({ time: new Date(date).toISOString(), id: run.json!.data.review.id });
  }
  const expected = [...made].sort((a, b) => a.time.localeCompare(b.time));
  t.notDeepEqual(
    expected.map((r) => r.id),
    [...made].sort((a, b) => a.id.localeCompare(b.id)).map((r) => r.id),
    'the test is meaningful: id order is not time order',
  );
  const list = (await brvJson(repo, ['review'])).json!.data;
  t.deepEqual(
    list.tasks.map((task: { taskId: string; time: string }) => ({ id: task.taskId, time: task.time })),
    expected.map((r) => ({ id: r.id, time: r.time })),
  );
  const text = (await brv(repo, ['review'])).stdout;
  const order = expected.map((r) => text.indexOf(r.id));
  t.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
    'text lists newest last too',
  );
});
