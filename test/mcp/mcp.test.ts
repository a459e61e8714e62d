import test from 'ava';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, brvJson, git, makeRepo, refTip, showTopic, tempDir } from '../helpers/repo.js';
import { put } from '../helpers/knowledge.js';

const connect = connectMcp;

const topic = (p: string, rule: string) => `<bv-topic path="${p}" title="${p}"><bv-rule severity="must">${rule}</bv-rule></bv-topic>`;

test('tools: ByteRover names and schemas plus search/read/list, all annotated, names valid', async (t) => {
  const repo = await makeRepo();
  const client = await connect(t, repo);
  const { tools } = await client.listTools();
  t.deepEqual(tools.map((tool) => tool.name).sort(), ['brv-curate', 'brv-list', 'brv-query', 'brv-read', 'brv-search']);
  for (const tool of tools) {
    t.regex(tool.name, /^[a-zA-Z0-9_-]{1,64}$/);
    t.is(typeof tool.annotations?.readOnlyHint, 'boolean', `${tool.name} readOnlyHint`);
    t.is(typeof tool.annotations?.destructiveHint, 'boolean', `${tool.name} destructiveHint`);
    t.is(typeof tool.annotations?.idempotentHint, 'boolean', `${tool.name} idempotentHint`);
    t.false((tool.inputSchema as { additionalProperties?: boolean }).additionalProperties ?? true, `${tool.name} is strict`);
  }
  const curate = tools.find((tool) => tool.name === 'brv-curate')!;
  t.deepEqual(Object.keys(curate.inputSchema.properties ?? {}).sort(), ['confirmOverwrite', 'cwd', 'html', 'meta']);
  t.deepEqual(curate.inputSchema.required, ['html']);
  t.regex(curate.description ?? '', /bv-rule/);
  const query = tools.find((tool) => tool.name === 'brv-query')!;
  t.deepEqual(Object.keys(query.inputSchema.properties ?? {}).sort(), ['answer', 'cwd', 'limit', 'query']);
  t.true(query.annotations?.readOnlyHint);
  t.false(curate.annotations?.readOnlyHint);
});

test('curate then query through a real client; changes by other processes are seen on the next call', async (t) => {
  const repo = await makeRepo();
  const client = await connect(t, repo);
  const written = await client.callTool({
    name: 'brv-curate',
    arguments: { html: topic('security/jwt', 'Sign JWTs with RS256.'), meta: { impact: 'low' } },
  });
  t.falsy(written.isError, textOf(written));
  t.regex(textOf(written), /✓ Wrote topic to security\/jwt\.html/);
  t.regex((await showTopic(repo, 'security/jwt.html'))!, /RS256/);

  const found = await client.callTool({ name: 'brv-query', arguments: { query: 'how are JWTs signed', limit: 5 } });
  t.regex(textOf(found), /## security\/jwt[\s\S]*RS256[\s\S]*_Matched 1 of 1 topic/);
  const none = await client.callTool({ name: 'brv-query', arguments: { query: 'kubernetes autoscaling' } });
  t.falsy(none.isError);
  t.regex(textOf(none), /No topics matched/);

  // Another process curates, then git moves the ref from outside: both are visible next call.
  await put(repo, 'ops/deploy', '<bv-rule id="r1">Deploy on Tuesdays.</bv-rule>');
  t.regex(textOf(await client.callTool({ name: 'brv-query', arguments: { query: 'when do we deploy' } })), /Tuesdays/);
  const before = await refTip(repo);
  await git(repo, 'update-ref', 'refs/brv/heads/main', `${before}~1`, before!);
  t.notRegex(textOf(await client.callTool({ name: 'brv-list', arguments: {} })), /ops\/deploy/);
  await git(repo, 'update-ref', 'refs/brv/heads/main', before!);
  t.regex(textOf(await client.callTool({ name: 'brv-list', arguments: { prefix: 'ops/' } })), /ops\/deploy/);
  t.regex(textOf(await client.callTool({ name: 'brv-read', arguments: { path: 'ops/deploy' } })), /Deploy on Tuesdays/);
  t.regex(textOf(await client.callTool({ name: 'brv-search', arguments: { query: 'deploy' } })), /ops\/deploy/);

  const exists = await client.callTool({ name: 'brv-curate', arguments: { html: topic('security/jwt', 'Use ES256.') } });
  t.true(exists.isError);
  t.regex(textOf(exists), /✗ path-exists[\s\S]*RS256[\s\S]*Topic vocabulary/);
  // in the tool's own parameters: an MCP client has no --overwrite to pass
  t.regex(textOf(exists), /^✗ path-exists: .*call brv-curate again with confirmOverwrite: true/m);
  t.notRegex(textOf(exists), /--overwrite/);
  const replaced = await client.callTool({
    name: 'brv-curate',
    arguments: { html: topic('security/jwt', 'Use ES256.'), confirmOverwrite: true },
  });
  t.regex(textOf(replaced), /✓ Replaced topic at security\/jwt\.html/);
  // What the replacement took out is said, counted and named.
  t.regex(textOf(replaced), /\n {2}Removed from security\/jwt: 1 rule \([^)]*RS256/);
  const high = await client.callTool({
    name: 'brv-curate',
    arguments: { html: topic('security/keys', 'Rotate monthly.'), meta: { impact: 'high' } },
  });
  t.regex(textOf(high), /review [0-9a-f]{12} opened/);
  // The CLI sees what MCP wrote.
  t.deepEqual((await brvJson(repo, ['ls'])).json?.data.topics, ['ops/deploy', 'security/jwt', 'security/keys']);
});

test('hostile and malformed arguments: typed errors, nothing written, nothing outside the repository', async (t) => {
  const repo = await makeRepo();
  const other = await makeRepo();
  const client = await connect(t, repo);
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const tip = await refTip(repo);

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['brv-curate', { html: topic('a/b', 'x'), files: ['x'] }, /unrecognized|Unrecognized|invalid/i],
    ['brv-curate', { html: 42 }, /invalid|expected string/i],
    // Values are checked by the service, so they name the kinds the CLI names.
    ['brv-curate', { html: '' }, /✗ missing-bv-topic:/],
    ['brv-curate', { html: 'x'.repeat(1024 * 1024 + 1) }, /✗ too-large:/],
    ['brv-curate', { html: '<bv-topic path="../../etc/passwd" title="x"></bv-topic>' }, /unsafe-path/],
    ['brv-curate', { html: '<bv-topic path="a/b" title="x"><script>alert(1)</script></bv-topic>' }, /unsafe-html/],
    ['brv-curate', { html: topic('a/b', 'x'), meta: { impact: 'extreme' } }, /✗ invalid-response-format:/],
    ['brv-curate', { html: topic('a/b', 'x'), cwd: other }, /outside-repository/],
    ['brv-curate', { html: topic('a/b', 'x'), cwd: 'relative/dir' }, /invalid-cwd/],
    ['brv-query', { query: 'x'.repeat(5000) }, /✗ too-large:/],
    ['brv-query', { query: 'jwt', limit: 1000 }, /too_big|less than or equal|invalid/i],
    ['brv-read', { path: '../../etc/passwd' }, /unsafe-path/],
    ['brv-read', { path: '/etc/passwd' }, /unsafe-path/],
    ['brv-list', { prefix: '../..' }, /unsafe-path/],
    ['brv-read', { path: 'a/b', cwd: path.join(other, 'src') }, /outside-repository/],
  ];
  for (const [name, args, expected] of cases) {
    const result = await call(name, args);
    t.true(result.isError, `${name} ${JSON.stringify(args).slice(0, 80)} is an error`);
    t.regex(textOf(result), expected, `${name} ${JSON.stringify(args).slice(0, 80)}`);
  }
  t.is(await refTip(repo), tip, 'nothing was written');
  t.is(await refTip(other), undefined, 'the other repository was not touched');
  // The server is still healthy after all that.
  t.falsy((await call('brv-list', {})).isError);
});

test('brv connectors install claude-code, then the MCP server it configured curates and queries', async (t) => {
  const repo = await makeRepo();
  const install = await brvJson(repo, ['connectors', 'install', 'claude-code']);
  t.is(install.exitCode, 0, install.stdout + install.stderr);
  const config = JSON.parse(await readFile(path.join(repo, '.mcp.json'), 'utf8'));
  const server = config.mcpServers.brv as { command: string; args: string[]; type: string };
  t.like(server, { type: 'stdio', command: 'brv', args: ['mcp'] });
  // Start the server exactly as Claude Code would: the configured command, found on PATH.
  const bin = await tempDir('brv-bin-');
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec node ${JSON.stringify(CLI)} "$@"\n`);
  await chmod(path.join(bin, 'brv'), 0o755);
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    cwd: repo,
    env: { ...ENV, PATH: `${bin}:${ENV.PATH}` },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'claude-code-like', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  const written = await client.callTool({ name: 'brv-curate', arguments: { html: topic('build/ci', 'CI runs npm ci then npm test.') } });
  t.falsy(written.isError, textOf(written));
  // the commit names the client that wrote it, as it introduced itself (clientInfo.name)
  const message = await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main');
  t.regex(message, /^Brv-Agent: claude-code-like$/m);
  t.regex(message, /^Brv-Op: curate$/m);
  t.regex(textOf(await client.callTool({ name: 'brv-query', arguments: { query: 'what does CI run' } })), /npm ci then npm test/);
});

test('the CLI and the MCP server name the same kind for the same failure', async (t) => {
  const repo = await makeRepo();
  const client = await connect(t, repo);
  await put(repo, 'security/jwt', '<bv-rule id="r1">Sign JWTs with RS256.</bv-rule>');
  const mcpKind = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    t.true(result.isError, `${name} ${JSON.stringify(args).slice(0, 60)} is an error`);
    return /^✗ ([a-z-]+):/m.exec(textOf(result))?.[1];
  };
  const cliKind = async (args: string[]) => {
    const run = await brvJson(repo, args);
    return (run.json?.data.error?.kind ?? run.json?.data.errors?.[0]?.kind) as string | undefined;
  };
  const htmlFile = async (html: string) => {
    const file = path.join(await tempDir('brv-html-'), 'topic.html');
    await writeFile(file, html);
    return file;
  };
  const unsafe = '<bv-topic path="a/b" title="x"><script>alert(1)</script></bv-topic>';
  const existing = topic('security/jwt', 'Use ES256.');
  const cases: Array<[string, string[], string, Record<string, unknown>]> = [
    ['unsafe-path', ['read', '../../etc/passwd'], 'brv-read', { path: '../../etc/passwd' }],
    ['not-found', ['read', 'no/such'], 'brv-read', { path: 'no/such' }],
    ['unsafe-path', ['ls', '../..'], 'brv-list', { prefix: '../..' }],
    ['missing-query', ['query', '   '], 'brv-query', { query: '   ' }],
    ['missing-query', ['query', ''], 'brv-query', { query: '' }],
    ['missing-query', ['search', ''], 'brv-search', { query: '' }],
    ['unsafe-path', ['search', 'jwt', '--scope', '../..'], 'brv-search', { query: 'jwt', scope: '../..' }],
    ['too-large', ['query', 'x'.repeat(4001)], 'brv-query', { query: 'x'.repeat(4001) }],
    ['unsafe-path', ['read', 'a/'.repeat(300) + 'b'], 'brv-read', { path: 'a/'.repeat(300) + 'b' }],
    [
      'invalid-response-format',
      ['curate', '--html-file', await htmlFile(topic('x/y', 'Fine.')), '--meta', '{"impact":"huge"}'],
      'brv-curate',
      { html: topic('x/y', 'Fine.'), meta: { impact: 'huge' } },
    ],
    [
      'invalid-response-format',
      ['curate', '--html-file', await htmlFile(topic('x/y', 'Fine.')), '--meta', '{"colour":"red"}'],
      'brv-curate',
      { html: topic('x/y', 'Fine.'), meta: { colour: 'red' } },
    ],
    [
      'too-large',
      ['curate', '--html-file', await htmlFile(topic('x/z', 'y'.repeat(1100 * 1024)))],
      'brv-curate',
      { html: topic('x/z', 'y'.repeat(1100 * 1024)) },
    ],
    ['unsafe-html', ['curate', '--html-file', await htmlFile(unsafe)], 'brv-curate', { html: unsafe }],
    ['path-exists', ['curate', '--html-file', await htmlFile(existing)], 'brv-curate', { html: existing }],
    // A bad command line and arguments outside a tool's input schema are both `usage`.
    ['usage', ['query', 'jwt', '--limit', 'many'], 'brv-query', { query: 'jwt', limit: 'many' }],
  ];
  for (const [kind, args, tool, toolArgs] of cases) {
    t.is(await cliKind(args), kind, `brv ${args.join(' ')}`);
    t.is(await mcpKind(tool, toolArgs), kind, `${tool} ${JSON.stringify(toolArgs)}`);
  }
});

test("MCP errors say what to do next in the tools' own terms, not the command line's", async (t) => {
  const repo = await makeRepo();
  const client = await connect(t, repo);
  const said = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    t.true(result.isError);
    return textOf(result);
  };
  t.regex(await said('brv-query', { query: '  ' }), /^✗ missing-query: Say what to look for: pass a non-empty query\.$/m);
  t.regex(await said('brv-search', { query: '' }), /^✗ missing-query: .*pass a non-empty query/m);
  t.regex(await said('brv-read', { path: 'no/such' }), /^✗ not-found: No topic at that path\. List topics with brv-list/m);
  // the CLI keeps its own wording
  t.regex((await brvJson(repo, ['read', 'no/such'])).json!.data.error.message, /brv ls/);
});
