import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { listTopics, PAYLOADS, PLANTED_BLOBS, renderProblems, topicWithEveryAttribute } from '../helpers/hostile.js';
import { plantTree } from '../helpers/plant.js';
import { brv, brvJson, cleanup, CLI, ENV, makeRepo, tempDir } from '../helpers/repo.js';

/** Every hostile blob, each findable by "zebra", keyed by its topic path. */
function hostileTree(): Record<string, string> {
  const zebra = '<bv-reason>zebra</bv-reason>';
  const files: Record<string, string> = {};
  PAYLOADS.forEach(
    (payload, i) => (files[`hostile/attributes_${i}.html`] = topicWithEveryAttribute(`hostile/attributes_${i}`, payload, zebra)),
  );
  listTopics()
    .filter((_, i) => i % 9 === 0)
    .forEach((html, i) => (files[`hostile/lists_${i}.html`] = html.replace('</bv-topic>', `${zebra}</bv-topic>`)));
  PLANTED_BLOBS.forEach((html, i) => (files[`hostile/planted_${i}.html`] = html.replace('</bv-topic>', `${zebra}</bv-topic>`)));
  return files;
}

function check(t: import('ava').ExecutionContext, where: string, markdown: string): void {
  const problems = renderProblems(markdown);
  t.deepEqual(problems, [], `${where}:\n${markdown}`);
}

function textOf(result: any): string {
  return (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
}

test('hostile blobs planted on the brv ref render harmless through read, query and MCP', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const files = hostileTree();
  await plantTree(repo, files);
  const paths = Object.keys(files).map((file) => file.replace(/\.html$/, ''));
  t.true(paths.length >= 40);

  // brv read: a sample through the CLI (one process each), every topic through MCP below.
  for (const topic of paths.filter((_, i) => i % 8 === 0)) {
    const read = await brvJson(repo, ['read', topic]);
    t.true(read.json?.success, read.stdout + read.stderr);
    check(t, `brv read ${topic}`, read.json?.data.content ?? '');
  }

  const query = await brvJson(repo, ['query', 'zebra', '--limit', '50']);
  t.true(query.json?.success, query.stdout + query.stderr);
  const docs = query.json?.data.matchedDocs as Array<{ path: string; title: string; topicPath: string; rendered_md: string }>;
  t.true(docs.length >= 40, `${docs.length} matched`);
  for (const doc of docs) check(t, `brv query: ${doc.path}`, doc.rendered_md);

  const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd: repo, env: ENV, stderr: 'pipe' });
  const client = new Client({ name: 'brv-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  for (const topic of paths) {
    const result = await client.callTool({ name: 'brv-read', arguments: { path: topic } });
    t.falsy(result.isError, textOf(result));
    check(t, `MCP brv-read ${topic}`, textOf(result));
  }
  // brv-query's rendered_md is what `brv query` returned above; the page around it is checked below.
  const found = await client.callTool({ name: 'brv-query', arguments: { query: 'zebra', limit: 50 } });
  t.falsy(found.isError, textOf(found));
  t.regex(textOf(found), /hostile\/planted_0/);
  check(t, 'MCP brv-query page', textOf(found));
  const searched = await client.callTool({ name: 'brv-search', arguments: { query: 'zebra', limit: 50 } });
  check(t, 'MCP brv-search page', textOf(searched));
});

test('the pages around rendered markdown (MCP brv-query, brv query and brv search text) escape titles and paths too', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, {
    'hostile/title.html': topicWithEveryAttribute('hostile/title', '<img src=x onerror=alert(1)>', '<bv-reason>zebra</bv-reason>'),
  });
  const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd: repo, env: ENV, stderr: 'pipe' });
  const client = new Client({ name: 'brv-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  const found = await client.callTool({ name: 'brv-query', arguments: { query: 'zebra' } });
  t.regex(textOf(found), /hostile\/title/);
  check(t, 'MCP brv-query', textOf(found));
  // A question that matches nothing is echoed back: escaped too.
  const question = 'qqqzzz <svg onload=qqq> [q](vbscript:zzz)';
  for (const name of ['brv-query', 'brv-search']) {
    const none = await client.callTool({ name, arguments: { query: question } });
    t.regex(textOf(none), /No topics matched/);
    check(t, `MCP ${name}, no match`, textOf(none));
  }
  for (const command of ['query', 'search']) {
    const run = await brv(repo, [command, 'zebra']);
    t.is(run.exitCode, 0, run.stderr);
    t.regex(run.stdout, /hostile\/title/);
    check(t, `brv ${command} text`, run.stdout);
  }
});

test('control characters written as references are refused at curate; what is stored re-validates as read back', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  t.teardown(() => cleanup(repo, dir));
  const file = path.join(dir, 'topic.html');
  await writeFile(file, '<bv-topic path="term/esc" title="T"><bv-reason>a&#x1b;]0;PWNED&#x7;b</bv-reason></bv-topic>');
  const refused = await brvJson(repo, ['curate', '--html-file', file]);
  t.false(refused.json?.success, refused.stdout);
  t.regex(refused.stdout, /unsafe-html/);

  await writeFile(
    file,
    '<bv-topic path="term/ok" title="T&#x9;&amp;" summary="a &lt;b&gt;"><bv-reason>tab&#x9;nl&#xa;&lt;x&gt; &amp; &#x2028;</bv-reason></bv-topic>',
  );
  const written = await brvJson(repo, ['curate', '--html-file', file]);
  t.true(written.json?.success, written.stdout + written.stderr);
  const raw = await brvJson(repo, ['read', 'term/ok', '--raw']);
  const stored = raw.json?.data.content as string;
  const again = validateTopicHtml(stored);
  t.true(again.ok, stored);
  if (again.ok) t.is(again.topic.canonicalHtml, stored);
});
