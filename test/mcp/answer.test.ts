import test from 'ava';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { ENV, git, makeRepo } from '../helpers/repo.js';
import { put } from '../helpers/knowledge.js';
import { startLlmServer } from '../helpers/llm-server.js';

const KEY = 'sk-test-secret-0000';

async function setup(t: import('ava').ExecutionContext, connected = true) {
  const [repo, server] = await Promise.all([makeRepo(), startLlmServer()]);
  t.teardown(() => server.close());
  await put(repo, 'security/jwt', '<bv-rule severity="must">Sign tokens with RS256; keys rotate monthly.</bv-rule>', {
    title: 'JWT signing',
  });
  await git(repo, 'config', 'brv.llm.retries', '0');
  const env = connected
    ? { ...ENV, BRV_LLM_PROVIDER: 'openai-compatible', BRV_LLM_BASE_URL: server.url, BRV_LLM_MODEL: 'test-model', BRV_LLM_API_KEY: KEY }
    : ENV;
  return { repo, server, client: await connectMcp(t, repo, env) };
}

test('brv-query with answer: the checked answer and its sources; an invented citation removed', async (t) => {
  const { server, client } = await setup(t);
  server.reply({ text: 'Tokens are signed with RS256 [security/jwt] and the key is in [secrets/vault].' });
  const result = await client.callTool({ name: 'brv-query', arguments: { query: 'how are tokens signed', answer: true } });
  t.falsy(result.isError, textOf(result));
  const text = textOf(result);
  t.regex(text, /\*\*Answer\*\*\n\nTokens are signed with RS256 \[security\/jwt\] and the key is in\./);
  t.regex(text, /\*\*Sources\*\*\n\n- security\/jwt — JWT signing/);
  t.regex(text, /Removed citations of topics the model was not shown: secrets\/vault/);
  t.is(server.requests.length, 1);
  t.regex(server.requests[0]!.prompt, /<topic path="security\/jwt"/);
  // Without answer, the tool is as before: topics, no model call.
  const plain = await client.callTool({ name: 'brv-query', arguments: { query: 'how are tokens signed' } });
  t.regex(textOf(plain), /^## JWT signing/);
  t.is(server.requests.length, 1);
});

test('brv-query with answer: not in the knowledge, with no model call when nothing is relevant', async (t) => {
  const { server, client } = await setup(t);
  const result = await client.callTool({ name: 'brv-query', arguments: { query: 'what is the capital of france', answer: true } });
  t.falsy(result.isError);
  t.regex(textOf(result), /Not in the knowledge/);
  t.is(server.requests.length, 0);
});

test('brv-query with answer: a 401 is an llm-auth tool error without the key; no provider is no-provider', async (t) => {
  const { server, client } = await setup(t);
  server.reply({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
  const refused = await client.callTool({ name: 'brv-query', arguments: { query: 'how are tokens signed', answer: true } });
  t.true(refused.isError);
  t.regex(textOf(refused), /llm-auth/);
  t.false(textOf(refused).includes(KEY));

  const unconnected = await setup(t, false);
  const none = await unconnected.client.callTool({ name: 'brv-query', arguments: { query: 'how are tokens signed', answer: true } });
  t.true(none.isError);
  t.regex(textOf(none), /no-provider/);
  t.regex(textOf(none), /brv providers connect/);
});

test('brv-query with answer and the model failing (500): an llm-unavailable tool error, then the topics retrieval found', async (t) => {
  const { server, client } = await setup(t);
  server.fallback = { status: 500, body: { error: { message: 'the model crashed' } } };
  const result = await client.callTool({ name: 'brv-query', arguments: { query: 'how are tokens signed', answer: true } });
  t.true(result.isError);
  const text = textOf(result);
  t.regex(
    text,
    /^✗ llm-unavailable: No answer: openai-compatible \(test-model\) failed \(500\): the model crashed\. Try again later, or point brv at another server \(BRV_LLM_BASE_URL/,
  );
  t.regex(text, /## JWT signing/);
  t.regex(text, /Sign tokens with RS256/);
  t.is(server.requests.length, 1);
});
