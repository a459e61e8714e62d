import test from 'ava';
import { brvJson, cleanup, git, makeRepo, refTip } from '../helpers/repo.js';
import { put } from '../helpers/knowledge.js';
import { fsckProblems } from './lib/processes.js';
import { answerOf, concurrentCalls, hostileToolCalls, RawMcp } from './lib/mcp.js';

// Issue 9, campaign 5 (1,000 concurrent calls: bench/attack/mcp.ts). test/mcp/mcp.test.ts already sends
// a set of hostile arguments through the SDK client; these go below it, as raw JSON-RPC lines.

async function serve(t: import('ava').ExecutionContext) {
  const repo = await makeRepo();
  const outside = await makeRepo();
  await brvJson(repo, ['init']);
  await put(repo, 'team/known', '<bv-rule id="r1">A known rule about JWT.</bv-rule>');
  const mcp = await RawMcp.start(repo);
  t.teardown(async () => {
    await mcp.close();
    await cleanup(repo, outside);
  });
  return { repo, outside, mcp };
}

test('malformed JSON-RPC, unknown methods and unknown tools: errors, the server keeps serving', async (t) => {
  const { mcp } = await serve(t);
  for (const line of [
    'not json',
    '{',
    '{}',
    '[]',
    '[{"jsonrpc":"2.0","id":9001,"method":"tools/list"}]',
    '{"jsonrpc":"2.0","id":9002}',
    '{"jsonrpc":"1.0","id":9003,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
    '{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":1}}',
    '{"jsonrpc":"2.0","id":9004,"method":"tools/call","params":null}',
    '{"jsonrpc":"2.0","id":9005,"method":"tools/call","params":[1,2]}',
    '{"jsonrpc":"2.0","id":9006,"method":"tools/call","params":{"arguments":{}}}',
    '\u0000\u0001\u001b[31m garbage',
    `{"jsonrpc":"2.0","id":9007,"method":"tools/list","junk":"${'y'.repeat(2 * 1024 * 1024)}"}`,
    'z'.repeat(2 * 1024 * 1024),
  ]) {
    mcp.send(line);
  }
  for (const method of [
    'nope',
    'tools/nope',
    'resources/read',
    'prompts/get',
    'sampling/createMessage',
    'completion/complete',
    '__proto__',
    'constructor',
  ]) {
    const response = await mcp.request(method, {});
    t.is(response.error?.code, -32601, `${method}: ${JSON.stringify(response).slice(0, 200)}`);
  }
  for (const name of ['brv-nope', '', '__proto__', 'BRV-QUERY']) {
    t.true(answerOf(await mcp.callTool(name, { query: 'x' })).isError, `tool ${JSON.stringify(name)}`);
  }
  const again = await mcp.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
  });
  t.truthy(again.result ?? again.error, 'a second initialize is answered');
  const tools = await mcp.request('tools/list');
  t.true((tools.result?.tools?.length ?? 0) >= 5, JSON.stringify(tools).slice(0, 300));
  t.true(mcp.alive, mcp.stderr);
  t.deepEqual(
    mcp.unmatched.filter((m) => m.error?.code === 0),
    [],
    'nothing but JSON-RPC on stdout',
  );
});

test('hostile arguments to every tool and field (wrong types, 1 MiB+ values, unknown fields, escaping cwd and paths): errors, nothing written', async (t) => {
  const { repo, outside, mcp } = await serve(t);
  const tip = await refTip(repo);
  const calls = hostileToolCalls(outside);
  t.true(calls.length > 100);
  for (const call of calls) {
    const { isError, text } = answerOf(await mcp.callTool(call.name, call.args));
    const label = `${call.name} ${JSON.stringify(call.args).slice(0, 100)}`;
    t.true(isError, label);
    t.regex(text, call.expect, label);
  }
  t.is(await refTip(repo), tip, 'nothing was written');
  t.is(await refTip(outside), undefined, 'the other repository was not touched');
  t.true(mcp.alive, mcp.stderr);
  t.false(answerOf(await mcp.callTool('brv-list', {})).isError);
});

test('200 calls at once, valid and hostile, 20 of them curates: every call answered as it should be, every curate recorded', async (t) => {
  const { repo, outside, mcp } = await serve(t);
  const report = await concurrentCalls(mcp, 200, outside);
  t.deepEqual(report.wrong, []);
  t.is(report.answered, 200);
  t.true(mcp.alive, mcp.stderr);
  const files = (await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).split('\n');
  t.deepEqual(
    report.written.filter((topic) => !files.includes(`${topic}.html`)),
    [],
    'every curate is on the branch',
  );
  t.is(await fsckProblems(repo), '');
});
