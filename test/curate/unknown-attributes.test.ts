/**
 * Issue 35, point 12: curate keeps an unknown attribute of a bv-* element (`owner="…"`: it only
 * describes, it cannot execute) as `data-owner`, as `brv import` does, and says so in a warning that
 * the CLI (text, JSON) and MCP `brv-curate` show. What could execute is still refused.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createMcpServer } from '../../src/mcp/server.js';
import { textOf } from '../helpers/mcp.js';
import { brv, brvJson, cleanup, makeRepo, showTopic, tempDir } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';

const OWNED =
  '<bv-topic path="team/owners" title="Owners" owner="alice"><bv-rule severity="must" owner="bob">Ask the owner first.</bv-rule></bv-topic>';

test('curate --html-file keeps owner="…" as data-owner with a warning (text and JSON); an event handler is still refused', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  t.teardown(() => cleanup(repo, dir));
  const file = path.join(dir, 'topic.html');
  await writeFile(file, OWNED);
  const json = await brvJson(repo, ['curate', '--html-file', file]);
  t.true(json.json?.success, json.stdout);
  t.deepEqual(json.json!.data.warnings, [
    '<bv-topic> owner="alice" is not a bv-topic attribute; kept as data-owner.',
    '<bv-rule> owner="bob" is not a bv-rule attribute; kept as data-owner.',
  ]);
  const stored = await showTopic(repo, 'team/owners.html');
  t.regex(stored ?? '', /<bv-topic path="team\/owners" title="Owners" data-owner="alice">/);
  t.regex(stored ?? '', /<bv-rule severity="must" data-owner="bob">|<bv-rule data-owner="bob" severity="must">/);

  await writeFile(file, OWNED.replace('Ask the owner first.', 'Ask the owner first, always.'));
  const text = await brv(repo, ['curate', '--html-file', file, '--overwrite']);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout + text.stderr, /warning: <bv-rule> owner="bob" is not a bv-rule attribute; kept as data-owner\./);

  await writeFile(file, '<bv-topic path="team/x" title="X"><bv-rule onclick="alert(1)">x</bv-rule></bv-topic>');
  const unsafe = await brvJson(repo, ['curate', '--html-file', file]);
  t.false(unsafe.json?.success, unsafe.stdout);
  // A data-owner already there: the second owner is not silently dropped, it is an error to fix.
  await writeFile(file, '<bv-topic path="team/y" title="Y"><bv-rule owner="a" data-owner="b">x</bv-rule></bv-topic>');
  const both = await brvJson(repo, ['curate', '--html-file', file]);
  t.false(both.json?.success, both.stdout);
  t.regex(both.stdout, /unknown attribute \\"owner\\"/);
});

test('MCP brv-curate shows the same warning', async (t) => {
  const repo = await makeRepo();
  const { server, pool } = createMcpServer({ service: testService, launchDir: repo, version: '0.0.0-test', maintenance: false });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'curate-test', version: '1.0.0' });
  await client.connect(clientSide);
  t.teardown(async () => {
    await client.close();
    await pool.close();
    await cleanup(repo);
  });
  const result = await client.callTool({ name: 'brv-curate', arguments: { html: OWNED } });
  t.falsy(result.isError, textOf(result));
  t.regex(textOf(result), /⚠ <bv-topic> owner="alice" is not a bv-topic attribute; kept as data-owner\./);
});
