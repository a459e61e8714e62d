import test from 'ava';
import { PROVIDERS } from '../../src/models/llm/catalog.js';
import { activeConnection } from '../../src/models/llm/active.js';
import { ProviderConfigFile } from '../../src/models/llm/config.js';
import { KeyStore } from '../../src/models/llm/keys.js';
import { openClient } from '../../src/models/llm/resolve.js';
import { BrvError } from '../../src/base/errors.js';

// Every provider is reached through its own ai SDK package: each one is opened here with a fetch
// that records the request and answers 401, so the test sees where the request would go and how
// the key is sent, with no network.
const KEY = 'test-key-0123456789';
const EXPECTED_HOST: Record<string, RegExp> = {
  openai: /^https:\/\/api\.openai\.com\/v1\//,
  anthropic: /^https:\/\/api\.anthropic\.com\/v1\/messages/,
  google: /^https:\/\/generativelanguage\.googleapis\.com\//,
  mistral: /^https:\/\/api\.mistral\.ai\/v1\//,
  groq: /^https:\/\/api\.groq\.com\/openai\/v1\//,
  xai: /^https:\/\/api\.x\.ai\/v1\//,
  deepseek: /^https:\/\/api\.deepseek\.com\//,
  openrouter: /^https:\/\/openrouter\.ai\/api\/v1\//,
  togetherai: /^https:\/\/api\.together\.xyz\/v1\//,
  fireworks: /^https:\/\/api\.fireworks\.ai\/inference\/v1\//,
  cerebras: /^https:\/\/api\.cerebras\.ai\/v1\//,
  'openai-compatible': /^http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/,
};

for (const spec of PROVIDERS) {
  test(`${spec.id}: its package sends the request to its API with the key, and a 401 is llm-auth without the key`, async (t) => {
    const env: Record<string, string> = { BRV_LLM_PROVIDER: spec.id, [spec.keyVariables[0]!]: KEY };
    if (spec.needsBaseUrl) env.BRV_LLM_BASE_URL = 'http://127.0.0.1:9/v1';
    const seen: Array<{ url: string; headers: Record<string, string> }> = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      seen.push({
        url: String(input instanceof Request ? input.url : input),
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
      });
      return new Response(JSON.stringify({ error: { message: `invalid key ${KEY}` } }), {
        status: 401,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    const active = await activeConnection(env, new ProviderConfigFile('/nonexistent/brv'));
    t.is(active!.spec.id, spec.id);
    const client = await openClient(
      active!,
      new KeyStore('/nonexistent/brv', env, undefined),
      { timeoutMs: 5_000, maxRetries: 0, maxReplyChars: 1_000 },
      { fetch },
    );
    const error = await t.throwsAsync(client.generate({ prompt: 'hello' }));
    t.true(error instanceof BrvError);
    t.is((error as BrvError).kind, 'llm-auth', error?.message);
    t.false(error!.message.includes(KEY));
    t.is(seen.length, 1);
    t.regex(seen[0]!.url, EXPECTED_HOST[spec.id]!);
    const headerValues = Object.values(seen[0]!.headers).join(' ');
    t.true(headerValues.includes(KEY) || seen[0]!.url.includes(KEY), 'the key is sent');
  });
}

test('the catalog has the providers the issue names, each with a default model and a key variable', (t) => {
  const ids = PROVIDERS.map((p) => p.id);
  for (const id of [
    'openai',
    'anthropic',
    'google',
    'mistral',
    'groq',
    'xai',
    'deepseek',
    'openrouter',
    'togetherai',
    'fireworks',
    'cerebras',
    'openai-compatible',
  ]) {
    t.true(ids.includes(id), id);
  }
  for (const spec of PROVIDERS) {
    t.true(spec.defaultModel.length > 0);
    t.true(spec.keyVariables.length > 0);
  }
});

for (const spec of PROVIDERS.filter((p) => p.defaultEmbeddingModel)) {
  test(`${spec.id}: embeddings go through its package to its API`, async (t) => {
    const env: Record<string, string> = {
      BRV_LLM_PROVIDER: spec.id,
      [spec.keyVariables[0]!]: KEY,
      BRV_LLM_EMBEDDING_MODEL: spec.defaultEmbeddingModel!,
    };
    const seen: string[] = [];
    const fetch = (async (input: string | URL | Request) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return new Response(JSON.stringify({ error: { message: 'no' } }), { status: 401, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const active = await activeConnection(env, new ProviderConfigFile('/nonexistent/brv'));
    const client = await openClient(
      active!,
      new KeyStore('/nonexistent/brv', env, undefined),
      { timeoutMs: 5_000, maxRetries: 0, maxReplyChars: 1_000 },
      { fetch },
    );
    t.true(client.hasEmbeddings);
    const error = await t.throwsAsync(client.embed(['a topic']));
    t.is((error as BrvError).kind, 'llm-auth', error?.message);
    t.regex(seen[0] ?? '', EXPECTED_HOST[spec.id]!);
  });
}
