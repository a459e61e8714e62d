import test from 'ava';
import { APICallError } from 'ai';
import { MockEmbeddingModelV3, MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { LlmClient } from '../../src/models/llm/client.js';
import type { CallPolicy } from '../../src/models/llm/policy.js';
import { BrvError } from '../../src/base/errors.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { activeConnection } from '../../src/models/llm/active.js';
import { openClient } from '../../src/models/llm/resolve.js';
import { ProviderConfigFile } from '../../src/models/llm/config.js';
import { KeyStore } from '../../src/models/llm/keys.js';

const POLICY: CallPolicy = { timeoutMs: 2_000, maxRetries: 0, maxReplyChars: 1_000 };
const IDENTITY = { provider: 'openai', model: 'gpt-5-mini' };
const SECRET = 'sk-test-secret-0000';

/** A mock model whose stream sends `text` in pieces, then finishes with usage. */
function streaming(text: string, pieces = 3): MockLanguageModelV3 {
  const size = Math.ceil(text.length / pieces);
  const chunks: any[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
  ];
  for (let i = 0; i < text.length; i += size) chunks.push({ type: 'text-delta', id: 't', delta: text.slice(i, i + size) });
  chunks.push({ type: 'text-end', id: 't' });
  chunks.push({
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 1_000_000, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 500_000, text: undefined, reasoning: undefined },
    },
  });
  return new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks }) }) });
}

function failing(error: unknown): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async () => {
      throw error;
    },
  });
}

async function kindOf(promise: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof BrvError)) throw new Error(`expected a BrvError, got ${String(error)}`);
  return { kind: error.kind, message: error.message };
}

test('generate streams the text, reports progress and counts tokens and cost', async (t) => {
  const client = new LlmClient(IDENTITY, { language: streaming('hello from the model') }, POLICY, [], { input: 0.25, output: 2 });
  const seen: number[] = [];
  t.is(await client.generate({ prompt: 'hi', onText: (n) => seen.push(n) }), 'hello from the model');
  t.true(seen.length >= 2);
  t.is(seen.at(-1), 'hello from the model'.length);
  const usage = client.usage();
  t.like(usage, {
    provider: 'openai',
    model: 'gpt-5-mini',
    requests: 1,
    inputTokens: 1_000_000,
    outputTokens: 500_000,
    totalTokens: 1_500_000,
  });
  t.is(usage.costUsd, 1.25);
});

test('an unknown price is null, not zero', async (t) => {
  const client = new LlmClient(IDENTITY, { language: streaming('ok') }, POLICY);
  await client.generate({ prompt: 'hi' });
  t.is(client.usage().costUsd, null);
});

test('a refused key is llm-auth and the message never carries the key', async (t) => {
  const error = new APICallError({
    message: `Incorrect API key provided: ${SECRET}`,
    url: 'https://api.openai.com/v1/responses',
    requestBodyValues: {},
    statusCode: 401,
    responseBody: JSON.stringify({ error: { message: `Incorrect API key provided: ${SECRET}` } }),
  });
  const client = new LlmClient(IDENTITY, { language: failing(error) }, POLICY, [SECRET]);
  const { kind, message } = await kindOf(client.generate({ prompt: 'hi' }));
  t.is(kind, 'llm-auth');
  t.false(message.includes(SECRET));
  t.false(message.includes('sk-test'));
  t.regex(message, /401/);
});

test('status codes map to kinds: 429 rate limit, 5xx unavailable, 404 rejected', async (t) => {
  const make = (statusCode: number) =>
    new APICallError({ message: `status ${statusCode}`, url: 'u', requestBodyValues: {}, statusCode, isRetryable: false });
  for (const [status, kind] of [
    [429, 'llm-rate-limited'],
    [503, 'llm-unavailable'],
    [404, 'llm-rejected'],
    [400, 'llm-rejected'],
    [403, 'llm-auth'],
  ] as const) {
    const client = new LlmClient(IDENTITY, { language: failing(make(status)) }, POLICY);
    t.is((await kindOf(client.generate({ prompt: 'x' }))).kind, kind, String(status));
  }
});

test('a reply over the cap is refused (llm-bad-reply), an empty one too', async (t) => {
  const big = new LlmClient(IDENTITY, { language: streaming('x'.repeat(5_000), 10) }, POLICY);
  t.is((await kindOf(big.generate({ prompt: 'x' }))).kind, 'llm-bad-reply');
  const empty = new LlmClient(IDENTITY, { language: streaming('   ', 1) }, POLICY);
  t.is((await kindOf(empty.generate({ prompt: 'x' }))).kind, 'llm-bad-reply');
});

test('cancelling is llm-cancelled', async (t) => {
  const controller = new AbortController();
  const slow = new MockLanguageModelV3({
    doStream: async ({ abortSignal }) =>
      new Promise((_, reject) => abortSignal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
  });
  const client = new LlmClient(IDENTITY, { language: slow }, POLICY);
  const pending = kindOf(client.generate({ prompt: 'x', signal: controller.signal }));
  setTimeout(() => controller.abort(), 20);
  t.is((await pending).kind, 'llm-cancelled');
});

test('embeddings come back in order; a wrong count or a non-number is llm-bad-reply', async (t) => {
  const good = new MockEmbeddingModelV3({
    maxEmbeddingsPerCall: 100,
    doEmbed: async ({ values }) => ({ embeddings: values.map((v) => [v.charCodeAt(0) - 97, 1]), warnings: [] }),
  });
  const client = new LlmClient(IDENTITY, { language: streaming('x'), embedding: async () => good }, POLICY);
  t.true(client.hasEmbeddings);
  t.deepEqual(await client.embed(['a', 'b', 'c']), [
    [0, 1],
    [1, 1],
    [2, 1],
  ]);
  const short = new MockEmbeddingModelV3({ maxEmbeddingsPerCall: 100, doEmbed: async () => ({ embeddings: [[1]], warnings: [] }) });
  const bad = new LlmClient(IDENTITY, { language: streaming('x'), embedding: async () => short }, POLICY);
  t.is((await kindOf(bad.embed(['a', 'b']))).kind, 'llm-bad-reply');
  const nan = new MockEmbeddingModelV3({ maxEmbeddingsPerCall: 100, doEmbed: async () => ({ embeddings: [[Number.NaN]], warnings: [] }) });
  t.is(
    (await kindOf(new LlmClient(IDENTITY, { language: streaming('x'), embedding: async () => nan }, POLICY).embed(['a']))).kind,
    'llm-bad-reply',
  );
  const none = new LlmClient(IDENTITY, { language: streaming('x') }, POLICY);
  t.false(none.hasEmbeddings);
  t.is((await kindOf(none.embed(['a']))).kind, 'no-provider');
});

// Through the real provider package and HTTP, against the scripted loopback server.
async function serverClient(policy: Partial<CallPolicy> = {}) {
  const server = await startLlmServer();
  const env = { BRV_LLM_PROVIDER: 'openai-compatible', BRV_LLM_BASE_URL: server.url, BRV_LLM_MODEL: 'test-model', BRV_LLM_API_KEY: SECRET };
  const active = await activeConnection(env, new ProviderConfigFile('/nonexistent/brv'));
  const client = await openClient(active!, new KeyStore('/nonexistent/brv', env, undefined), { ...POLICY, ...policy });
  return { server, client };
}

test.serial('over HTTP: a streamed reply, the key only in the Authorization header', async (t) => {
  const { server, client } = await serverClient();
  t.teardown(() => server.close());
  server.reply({ text: 'streamed answer', chunks: 5 });
  t.is(await client.generate({ system: 'be brief', prompt: 'question?' }), 'streamed answer');
  const [request] = server.requests;
  t.is(request!.headers.authorization, `Bearer ${SECRET}`);
  t.false(JSON.stringify(request!.body).includes(SECRET));
  t.regex(request!.prompt, /question\?/);
  t.is(client.usage().requests, 1);
  t.true(client.usage().outputTokens > 0);
});

test.serial('over HTTP: 429 is retried (Retry-After honoured) and then succeeds; exhausted retries are llm-rate-limited', async (t) => {
  const { server, client } = await serverClient({ maxRetries: 2 });
  t.teardown(() => server.close());
  server.reply({ status: 429, headers: { 'retry-after': '0' } }, { text: 'after the retry' });
  t.is(await client.generate({ prompt: 'x' }), 'after the retry');
  server.reply(...[1, 2, 3].map(() => ({ status: 429, headers: { 'retry-after': '0' } })));
  const { kind, message } = await kindOf(client.generate({ prompt: 'x' }));
  t.is(kind, 'llm-rate-limited');
  t.regex(message, /after 3 attempts/);
});

test.serial('over HTTP: a server that stops sending is llm-timeout; one that is gone is llm-unavailable', async (t) => {
  const { server, client } = await serverClient({ timeoutMs: 300 });
  server.reply({ hang: true });
  const started = Date.now();
  t.is((await kindOf(client.generate({ prompt: 'x' }))).kind, 'llm-timeout');
  t.true(Date.now() - started < 2_000);
  await server.close();
  t.is((await kindOf(client.generate({ prompt: 'x' }))).kind, 'llm-unavailable');
});

test.serial('over HTTP: a broken event stream and a 10 MB reply are llm-bad-reply', async (t) => {
  const { server, client } = await serverClient({ maxReplyChars: 2_000_000 });
  t.teardown(() => server.close());
  server.reply({ raw: 'data: {not json\n\n' });
  t.is((await kindOf(client.generate({ prompt: 'x' }))).kind, 'llm-bad-reply');
  server.reply({ text: 'y'.repeat(10 * 1024 * 1024), chunks: 40 });
  const { kind, message } = await kindOf(client.generate({ prompt: 'x' }));
  t.is(kind, 'llm-bad-reply');
  t.regex(message, /over 2,000,000 characters/);
});

test.serial('over HTTP: embeddings', async (t) => {
  const { server } = await serverClient();
  t.teardown(() => server.close());
  const env = {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_EMBEDDING_MODEL: 'embed-model',
  };
  const active = await activeConnection(env, new ProviderConfigFile('/nonexistent/brv'));
  const client = await openClient(active!, new KeyStore('/nonexistent/brv', env, undefined), POLICY);
  const vectors = await client.embed(['jwt tokens signed', 'deploy on fridays']);
  t.is(vectors.length, 2);
  t.is(vectors[0]!.length, 64);
  t.is(server.requests.at(-1)!.body.model, 'embed-model');
  t.is(server.requests.at(-1)!.headers.authorization, undefined, 'a local server without a key gets no Authorization header');
});
