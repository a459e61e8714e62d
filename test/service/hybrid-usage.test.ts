import test from 'ava';
import { startLlmServer } from '../helpers/llm-server.js';
import { cleanup, curateTopic, git, makeRepo, reply } from '../helpers/repo.js';
import { openBrv } from '../helpers/service.js';

// A long-lived process (MCP, the web UI) answers many hybrid queries with one model client: each
// result's usage is that query's, not the process's running tally.
test('each hybrid query reports its own usage when one process answers many', async (t) => {
  const [repo, server] = await Promise.all([makeRepo(), startLlmServer()]);
  t.teardown(() => server.close());
  t.teardown(() => cleanup(repo));
  await curateTopic(repo, reply('security/auth', 'Auth tokens', '<bv-rule severity="must">Sign session tokens with RS256.</bv-rule>'));
  await curateTopic(repo, reply('ops/deploy', 'Deploys', '<bv-rule severity="must">Deploy with blue-green switches.</bv-rule>'));
  await git(repo, 'config', 'brv.retrieval.hybrid', 'on');
  Object.assign(process.env, {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_MODEL: 'test-model',
    BRV_LLM_API_KEY: 'sk-test-secret-0000',
    BRV_LLM_EMBEDDING_MODEL: 'test-embedding',
  });
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  const first = await brv.retrieval.query({ question: 'session tokens' });
  t.like(first.metadata.hybrid, { ran: true, embeddedTopics: 2, requests: 2 });
  t.is(first.usage?.requests, 2);
  const second = await brv.retrieval.query({ question: 'deploy switches' });
  t.like(second.metadata.hybrid, { ran: true, embeddedTopics: 0, requests: 1 });
  t.is(second.usage?.requests, 1);
  t.is(second.usage?.embeddingTokens, 2);
  const lexical = await brv.retrieval.query({ question: 'deploy switches', hybrid: false });
  t.is(lexical.usage, undefined);
  t.is(lexical.metadata.hybrid, undefined);
});
