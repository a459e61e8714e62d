import test, { type ExecutionContext } from 'ava';
import { hashedEmbedding, startLlmServer, type RecordedRequest } from '../helpers/llm-server.js';
import { cleanup, curateTopic, git, makeRepo, reply } from '../helpers/repo.js';
import { openBrv } from '../helpers/service.js';

/** Two topics, hybrid on, this process's environment pointed at a fresh scripted server; all closed at the end. */
async function hybridRepository(t: ExecutionContext) {
  const [repo, server] = await Promise.all([makeRepo(), startLlmServer()]);
  t.teardown(() => server.close());
  t.teardown(() => cleanup(repo));
  await curateTopic(repo, reply('security/auth', 'Auth tokens', '<bv-rule severity="must">Sign session tokens with RS256.</bv-rule>'));
  await curateTopic(repo, reply('ops/deploy', 'Deploys', '<bv-rule severity="must">Deploy with blue-green switches.</bv-rule>'));
  await git(repo, 'config', 'brv.retrieval.hybrid', 'on');
  await git(repo, 'config', 'brv.llm.retries', '0');
  Object.assign(process.env, {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_MODEL: 'test-model',
    BRV_LLM_API_KEY: 'sk-test-secret-0000',
    BRV_LLM_EMBEDDING_MODEL: 'test-embedding',
  });
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  return { repo, server, brv };
}

// Serial: the tests point this process's environment at their own server.
// A long-lived process (MCP, the web UI) answers many hybrid queries with one model client: each
// result's usage is that query's, not the process's running tally.
test.serial('each hybrid query reports its own usage when one process answers many', async (t) => {
  const { brv } = await hybridRepository(t);
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

test.serial(
  'a model whose dimensions changed under the same name: the cached vectors are embedded again; a reply of mixed dimensions answers lexically',
  async (t) => {
    const { brv, server, repo } = await hybridRepository(t);
    t.like((await brv.retrieval.query({ question: 'session tokens' })).metadata.hybrid, { ran: true, embeddedTopics: 2 });
    const inputs = (r: RecordedRequest): string[] => (Array.isArray(r.body.input) ? r.body.input : [r.body.input]);
    const narrow = (r: RecordedRequest) => ({ embeddings: inputs(r).map((text) => hashedEmbedding(text, 32)) });
    server.replyEmbeddings(narrow, narrow);
    const changed = await brv.retrieval.query({ question: 'deploy switches' });
    t.like(changed.metadata.hybrid, { ran: true, embeddedTopics: 2, cachedTopics: 0 });
    t.is(changed.matchedDocs[0]!.topicPath, 'ops/deploy');
    // Cached at 32 dimensions now: the next query embeds only the question.
    server.replyEmbeddings(narrow);
    t.like((await brv.retrieval.query({ question: 'deploy' })).metadata.hybrid, { ran: true, embeddedTopics: 0, cachedTopics: 2 });
    // A reply whose vectors disagree in length is refused, and the query answers lexically.
    server.replyEmbeddings(
      { embeddings: [[1, 0, 0]] },
      {
        embeddings: [
          [1, 0],
          [0, 1, 0],
        ],
      },
    );
    await curateTopic(repo, reply('ops/rollback', 'Rollbacks', '<bv-rule>Roll back with the previous image.</bv-rule>'));
    await curateTopic(repo, reply('ops/alerts', 'Alerts', '<bv-rule>Page on error budgets.</bv-rule>'));
    const mixed = await brv.retrieval.query({ question: 'roll back' });
    t.like(mixed.metadata.hybrid, { ran: false, fallback: { error: 'llm-bad-reply' } });
    t.is(mixed.matchedDocs[0]!.topicPath, 'ops/rollback');
  },
);
