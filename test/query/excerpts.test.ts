/**
 * Issue 35, point 1: search excerpts are the topic's plain text, identifiers whole (`rate_limit`,
 * `access_token_ttl`, `migrations/0001_init.sql`, `*.test.ts`, `?cursor=…&limit=50`), no Markdown
 * escapes: in `brv search` (JSON, and text, which is Markdown and escapes only what would be markup),
 * MCP `brv-search`, the TUI's results and the dashboard's `/api/search`. All in this process.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import test from 'ava';
import { createMcpServer } from '../../src/mcp/server.js';
import { textOf } from '../helpers/mcp.js';
import { brv, brvJson, cleanup, curateTopic, makeRepo } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';
import { mountApp } from '../helpers/tui-app.js';
import { request, session, startFor } from '../web/http.js';

const TOPIC = `<bv-topic path="api/limits" title="API limits" summary="Limits of the public API">
<bv-fact subject="rate_limit" value="100/min">The <code>rate_limit</code> applies per token; <code>access_token_ttl</code> is 15 minutes.</bv-fact>
<bv-rule severity="must">Paginate with <code>?cursor=…&amp;limit=50</code>, never offsets.</bv-rule>
<bv-files><li>migrations/0001_init.sql</li><li>*.test.ts</li></bv-files>
</bv-topic>`;

/** Two searches, each with what its excerpt (160 characters around the first matched word) must show as written. */
const SEARCHES: ReadonlyArray<[string, string[]]> = [
  ['rate_limit', ['Fact (subject=rate_limit, value=100/min): The rate_limit applies per token; access_token_ttl is 15 minutes.']],
  ['offsets', ['Paginate with ?cursor=…&limit=50, never offsets.', 'Files: migrations/0001_init.sql *.test.ts']],
];

async function repoWithTopic(): Promise<string> {
  const repo = await makeRepo();
  await curateTopic(repo, JSON.stringify({ html: TOPIC }));
  return repo;
}

type Checks = { true(v: boolean, m?: string): void; false(v: boolean, m?: string): void };

function plainExcerpt(t: Checks, excerpt: string, whole: readonly string[], where: string) {
  for (const identifier of whole) t.true(excerpt.includes(identifier), `${where}: ${identifier} in ${excerpt}`);
  t.false(/[\\`]/.test(excerpt), `${where}: no escapes or markup in ${excerpt}`);
}

test('brv search: the JSON excerpt is plain text with identifiers whole; the text view escapes only markup', async (t) => {
  const repo = await repoWithTopic();
  t.teardown(() => cleanup(repo));
  for (const [question, whole] of SEARCHES) {
    const json = await brvJson(repo, ['search', question]);
    t.true(json.json?.success, json.stdout);
    plainExcerpt(t, json.json!.data.results[0].excerpt, whole, 'brv search --format json');
    // Text is Markdown: `*` is written `\*` (what every renderer reads as `*`), nothing else is escaped here.
    const text = await brv(repo, ['search', question]);
    t.is(text.exitCode, 0, text.stderr);
    for (const identifier of whole) t.true(text.stdout.includes(identifier.replace('*', '\\*')), `${identifier} in\n${text.stdout}`);
    t.false(/\\[^*]/.test(text.stdout), text.stdout);
  }
});

test('MCP brv-search shows the same excerpt (Markdown-escaped only where needed)', async (t) => {
  const repo = await repoWithTopic();
  const { server, pool } = createMcpServer({ service: testService, launchDir: repo, version: '0.0.0-test', maintenance: false });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'excerpt-test', version: '1.0.0' });
  await client.connect(clientSide);
  t.teardown(async () => {
    await client.close();
    await pool.close();
    await cleanup(repo);
  });
  for (const [question, whole] of SEARCHES) {
    const found = textOf(await client.callTool({ name: 'brv-search', arguments: { query: question } }));
    for (const identifier of whole) t.true(found.includes(identifier.replace('*', '\\*')), `${identifier} in\n${found}`);
    t.false(/\\[^*]/.test(found), found);
  }
});

test('the TUI lists results with the plain excerpt', async (t) => {
  const repo = await repoWithTopic();
  const ui = mountApp(t, repo, { noColor: true });
  await ui.type('/search rate_limit\r');
  const screen = await ui.see(/API limits/);
  t.true(screen.includes('Fact (subject=rate_limit, value=100/min): The rate_limit applies per'), screen);
  t.false(/ratelimit|accesstokenttl|\\/.test(screen), screen);
});

test('the dashboard API answers the plain excerpt', async (t) => {
  const repo = await repoWithTopic();
  const server = await startFor(repo);
  t.teardown(async () => {
    await server.close();
    await cleanup(repo);
  });
  for (const [question, whole] of SEARCHES) {
    const answer = await request(server.port, { path: `/api/search?q=${encodeURIComponent(question)}`, headers: session(server) });
    t.is(answer.status, 200, answer.body);
    plainExcerpt(t, answer.json.results[0].excerpt, whole, '/api/search');
  }
});
