import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brvJson, CLI, ENV, git, makeRepo, tempDir } from '../helpers/repo.js';

// Who is acting is passed in by the front end (the library reads no environment for it) and recorded
// as the Brv-Agent trailer of the commit.
const lastAgent = async (repo: string) =>
  (await git(repo, 'log', '-1', '--format=%(trailers:key=Brv-Agent,valueonly)', 'refs/brv/heads/main')).trim();

test('the CLI records BRV_AGENT as the acting agent of curate, rm and import', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  const file = path.join(dir, 'topic.html');
  await writeFile(file, '<bv-topic path="team/notes" title="Notes"><bv-rule>Write it down.</bv-rule></bv-topic>');
  const env = { BRV_AGENT: 'claude-code' };
  t.true((await brvJson(repo, ['curate', '--html-file', file], { env })).json?.success);
  t.is(await lastAgent(repo), 'claude-code');
  t.true((await brvJson(repo, ['rm', 'team/notes'], { env: { BRV_AGENT: 'codex' } })).json?.success);
  t.is(await lastAgent(repo), 'codex');
  const tree = path.join(dir, 'tree');
  await mkdir(tree);
  await writeFile(path.join(tree, 'more.html'), '<bv-topic path="team/more" title="More"><bv-rule>Again.</bv-rule></bv-topic>');
  t.true((await brvJson(repo, ['import', tree], { env: { BRV_AGENT: 'cursor' } })).json?.success);
  t.is(await lastAgent(repo), 'cursor');
});

test('the MCP server records the client that named itself at initialize as the acting agent', async (t) => {
  const repo = await makeRepo();
  const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd: repo, env: ENV, stderr: 'pipe' });
  const client = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  const result = await client.callTool({
    name: 'brv-curate',
    arguments: { html: '<bv-topic path="team/mcp" title="MCP"><bv-rule>Named.</bv-rule></bv-topic>' },
  });
  t.falsy(result.isError, JSON.stringify(result));
  t.is(await lastAgent(repo), 'agent-under-test');
});
