import test from 'ava';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.js';
import { brv, brvJson, cleanup, curateTopic, git, makeRepo, reply, ROOT, tempDir } from '../helpers/repo.js';

// Hybrid retrieval end to end through the real CLI, against the scripted OpenAI-compatible server
// on loopback: its embeddings are scripted by text so that one topic shares no word with the
// question and only the dense side can find it.

const must = (text: string) => `<bv-rule severity="must">${text}</bv-rule>`;
const QUESTION = 'where does everyone gather for food';

async function seeded(): Promise<string> {
  const repo = await makeRepo();
  await curateTopic(repo, reply('security/cookies', 'Session cookies', must('Session tokens live in HttpOnly cookies.')));
  await curateTopic(repo, reply('security/auth', 'Auth tokens', must('Sign session tokens with RS256.')));
  await curateTopic(repo, reply('team/lunch', 'Friday meals', must('We eat pizza together on Fridays.')));
  await git(repo, 'config', 'brv.llm.retries', '0');
  await git(repo, 'config', 'brv.retrieval.hybrid', 'on');
  return repo;
}

/** A vector per text: the lunch topic and the question point the same way, the others elsewhere. */
function vectorFor(text: string): number[] {
  if (text === QUESTION) return [0, 0, 0.2, 1];
  if (text.includes('pizza')) return [0, 0, 0, 1];
  if (text.includes('HttpOnly')) return [1, 0, 0, 0];
  if (text.includes('RS256')) return [0, 1, 0, 0];
  return [0, 0, 1, 0];
}
const inputs = (request: RecordedRequest): string[] => (Array.isArray(request.body?.input) ? request.body.input : [request.body?.input]);
const scripted = (request: RecordedRequest) => ({ embeddings: inputs(request).map(vectorFor) });

async function withServer(t: { teardown: (fn: () => Promise<void>) => void }): Promise<LlmServer> {
  const server = await startLlmServer();
  t.teardown(() => server.close());
  for (let i = 0; i < 20; i++) server.replyEmbeddings(scripted);
  return server;
}

const env = (server: LlmServer, embedding = true): Record<string, string> => ({
  BRV_LLM_PROVIDER: 'openai-compatible',
  BRV_LLM_BASE_URL: server.url,
  BRV_LLM_MODEL: 'test-model',
  BRV_LLM_API_KEY: 'sk-test-secret-0000',
  BRV_NO_AUTO_MAINTENANCE: '1',
  ...(embedding ? { BRV_LLM_EMBEDDING_MODEL: 'test-embedding' } : {}),
});
const embeddingRequests = (server: LlmServer) => server.requests.filter((r) => r.path.endsWith('/embeddings'));
const paths = (data: any): string[] => data.matchedDocs.map((d: { topicPath: string }) => d.topicPath);

test('a topic that shares no word with the question is found by the dense side; metadata and usage say what it cost', async (t) => {
  const [repo, server] = await Promise.all([seeded(), withServer(t)]);
  t.teardown(() => cleanup(repo));
  const lexical = await brvJson(repo, ['query', QUESTION, '--lexical'], { env: env(server) });
  t.is(lexical.exitCode, 0, lexical.stderr);
  t.is(lexical.json!.data.status, 'no-matches');
  t.is(lexical.json!.data.metadata.hybrid, undefined);
  t.is(embeddingRequests(server).length, 0, '--lexical calls no model');

  const run = await brvJson(repo, ['query', QUESTION], { env: env(server) });
  t.is(run.exitCode, 0, run.stderr);
  const data = run.json!.data;
  t.is(paths(data)[0], 'team/lunch');
  t.is(data.status, 'ok');
  t.like(data.metadata.hybrid, { ran: true, embeddedTopics: 3, cachedTopics: 0, requests: 2 });
  t.true(data.metadata.hybrid.denseOnly >= 1);
  t.true(data.matchedDocs[0].score > 0 && data.matchedDocs[0].score <= 1);
  t.like(data.usage, { provider: 'openai-compatible', requests: 2 });
  t.true(data.usage.embeddingTokens > 0);
  // The question alone, then one batch of the three topics.
  const requests = embeddingRequests(server);
  t.deepEqual(
    requests.map((r) => inputs(r).length),
    [1, 3],
  );
  t.deepEqual(inputs(requests[0]!), [QUESTION]);
  t.true(inputs(requests[1]!).some((text) => text.includes('Friday meals') && text.includes('pizza')));
  t.false(JSON.stringify(run.json).includes('sk-test-secret-0000'));

  // brv search fuses the same way; text output reports the cost on stderr.
  const search = await brv(repo, ['search', QUESTION], { env: env(server) });
  t.is(search.exitCode, 0, search.stderr);
  t.regex(search.stdout.split('\n')[0]!, /Friday meals/);
  t.regex(search.stderr, /model openai-compatible test-model: 1 request/);
});

test('vectors are cached per blob: the second query embeds only the question, a new topic only itself', async (t) => {
  const [repo, server] = await Promise.all([seeded(), withServer(t)]);
  t.teardown(() => cleanup(repo));
  t.is((await brvJson(repo, ['query', QUESTION], { env: env(server) })).exitCode, 0);
  const before = embeddingRequests(server).length;
  const second = await brvJson(repo, ['query', 'session tokens'], { env: env(server) });
  t.is(second.exitCode, 0, second.stderr);
  t.like(second.json!.data.metadata.hybrid, { ran: true, embeddedTopics: 0, cachedTopics: 3, requests: 1 });
  t.deepEqual(embeddingRequests(server).slice(before).map(inputs), [['session tokens']]);
  // The dense side keeps to the query's filters: nothing outside --scope.
  const scoped = await brvJson(repo, ['query', QUESTION, '--scope', 'security'], { env: env(server) });
  t.true(paths(scoped.json!.data).every((p) => p.startsWith('security/')));
  t.like(scoped.json!.data.metadata.hybrid, { ran: true, cachedTopics: 2 });
  const files = await readdir(path.join(repo, '.git', 'brv', 'cache', 'embeddings'));
  t.is(files.length, 1);
  // Never in the repository's history: the cache is local state.
  t.false((await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).includes('embeddings'));

  await curateTopic(repo, reply('ops/deploy', 'Deploys', must('Deploy with blue-green switches.')));
  const mark = embeddingRequests(server).length;
  const third = await brvJson(repo, ['query', 'deploy'], { env: env(server) });
  t.like(third.json!.data.metadata.hybrid, { embeddedTopics: 1, cachedTopics: 3 });
  t.deepEqual(
    embeddingRequests(server)
      .slice(mark)
      .map((r) => inputs(r).length),
    [1, 1],
  );
});

test('embedding provider down (5xx, timeout): the lexical results, a warning, exit 0', async (t) => {
  const [repo, server] = await Promise.all([seeded(), startLlmServer()]);
  t.teardown(() => server.close());
  t.teardown(() => cleanup(repo));
  const lexical = await brvJson(repo, ['query', 'session tokens', '--lexical'], { env: env(server) });
  server.replyEmbeddings({ status: 503, body: { error: { message: 'overloaded' } } });
  const down = await brvJson(repo, ['query', 'session tokens'], { env: env(server) });
  t.is(down.exitCode, 0, down.stderr);
  t.deepEqual(paths(down.json!.data), paths(lexical.json!.data));
  t.like(down.json!.data.metadata.hybrid, { ran: false, embeddedTopics: 0 });
  t.regex(down.json!.data.metadata.hybrid.fallback.error, /^llm-/);
  t.regex(down.stderr, /warning: hybrid retrieval failed, these are lexical results \(llm-/);
  t.false(down.stderr.includes('sk-test-secret-0000'));

  await git(repo, 'config', 'brv.llm.timeout', '1');
  server.replyEmbeddings({ hang: true });
  const hung = await brv(repo, ['query', 'session tokens'], { env: env(server) });
  t.is(hung.exitCode, 0, hung.stderr);
  t.regex(hung.stdout, /Session cookies|Auth tokens/);
  t.regex(hung.stderr, /warning: hybrid retrieval failed, these are lexical results \(llm-timeout/);
  // Nothing half-written: the next query (provider back) embeds every topic.
  for (let i = 0; i < 3; i++) server.replyEmbeddings(scripted);
  const back = await brvJson(repo, ['query', QUESTION], { env: env(server) });
  t.like(back.json!.data.metadata.hybrid, { ran: true, embeddedTopics: 3 });
  t.is(paths(back.json!.data)[0], 'team/lunch');
});

test('retrieval.hybrid off (the default) or unset: lexical, no embedding request; --hybrid asks for one query', async (t) => {
  const [repo, server] = await Promise.all([seeded(), withServer(t)]);
  t.teardown(() => cleanup(repo));
  await git(repo, 'config', 'brv.retrieval.hybrid', 'off');
  const off = await brvJson(repo, ['query', QUESTION], { env: env(server) });
  t.is(off.exitCode, 0, off.stderr);
  t.is(off.json!.data.status, 'no-matches');
  t.is(off.json!.data.metadata.hybrid, undefined);
  await git(repo, 'config', '--unset', 'brv.retrieval.hybrid');
  const unset = await brvJson(repo, ['query', QUESTION], { env: env(server) });
  t.is(unset.json!.data.metadata.hybrid, undefined);
  t.is(embeddingRequests(server).length, 0);
  const asked = await brvJson(repo, ['query', QUESTION, '--hybrid'], { env: env(server) });
  t.is(paths(asked.json!.data)[0], 'team/lunch');
  t.like(asked.json!.data.metadata.hybrid, { ran: true });
});

test('without an embedding model, nothing of the model layer is loaded and the answer is the same as without a provider', async (t) => {
  const [repo, server] = await Promise.all([seeded(), withServer(t)]);
  t.teardown(() => cleanup(repo));
  const app = path.join(ROOT, 'dist', 'app');
  const holdsAi = async (chunk: string) => /embedMany|AI_APICallError/.test(await readFile(path.join(app, chunk), 'utf8'));
  const all = (await readdir(app)).filter((file) => file.endsWith('.js'));
  t.true((await Promise.all(all.map(holdsAi))).some(Boolean), 'no chunk holds the ai SDK: the marker is wrong');
  // The index's build figures differ from run to run (built, then cached): everything else is the same.
  const strip = (data: any) => ({ ...data, metadata: { ...data.metadata, durationMs: 0, index: undefined } });
  const none = await brvJson(repo, ['query', 'session tokens'], { env: { BRV_LLM_PROVIDER: 'none', BRV_TRACE: '1' } });
  for (const variant of [env(server, false), { ...env(server), BRV_LLM_PROVIDER: 'none' }]) {
    const run = await brvJson(repo, ['query', 'session tokens'], { env: { ...variant, BRV_TRACE: '1' } });
    t.is(run.exitCode, 0, run.stderr);
    t.deepEqual(strip(run.json!.data), strip(none.json!.data));
    const chunks = [...run.stderr.matchAll(/cli: chunk (\S+)/g)].map((m) => m[1]!);
    t.true(chunks.length > 0);
    for (const chunk of chunks) t.false(await holdsAi(chunk), `loads ${chunk}`);
  }
  for (const args of [
    ['query', 'session tokens', '--lexical'],
    ['search', 'cookies', '--lexical'],
  ]) {
    const run = await brv(repo, args, { env: { ...env(server), BRV_TRACE: '1' } });
    for (const chunk of [...run.stderr.matchAll(/cli: chunk (\S+)/g)].map((m) => m[1]!))
      t.false(await holdsAi(chunk), `${args} loads ${chunk}`);
  }
  t.is(embeddingRequests(server).length, 0);
});

test('brv maintenance embeds the topics ahead and drops the vectors of deleted ones; the next query embeds only the question', async (t) => {
  const [repo, server] = await Promise.all([seeded(), withServer(t)]);
  t.teardown(() => cleanup(repo));
  const run = await brvJson(repo, ['maintenance'], { env: env(server) });
  t.is(run.exitCode, 0, run.stderr);
  t.like(run.json!.data.embeddings, { status: 'done', embeddedTopics: 3, cachedTopics: 0, droppedVectors: 0 });
  const mark = embeddingRequests(server).length;
  const query = await brvJson(repo, ['query', QUESTION], { env: env(server) });
  t.like(query.json!.data.metadata.hybrid, { embeddedTopics: 0, cachedTopics: 3, requests: 1 });
  t.is(embeddingRequests(server).length, mark + 1);

  t.is((await brv(repo, ['rm', 'team/lunch'], { env: env(server) })).exitCode, 0);
  const after = await brvJson(repo, ['maintenance'], { env: env(server) });
  t.like(after.json!.data.embeddings, { status: 'done', embeddedTopics: 0, cachedTopics: 2, droppedVectors: 1 });
  const text = await brv(repo, ['maintenance'], { env: env(server) });
  t.regex(text.stdout, /Topic embeddings \(openai-compatible test-embedding\): embedded 0, 2 already cached\./);
  const without = await brvJson(repo, ['maintenance'], { env: { BRV_LLM_PROVIDER: 'none' } });
  t.like(without.json!.data.embeddings, { status: 'off' });
});

test('the first hybrid query of many topics embeds them in batches of 64, with progress on stderr', async (t) => {
  const [repo, server, folder] = await Promise.all([makeRepo(), startLlmServer(), tempDir()]);
  t.teardown(() => server.close());
  t.teardown(() => cleanup(repo, folder));
  for (let i = 0; i < 70; i++) {
    const name = `n${String(i).padStart(2, '0')}`;
    await mkdir(path.join(folder, 'notes'), { recursive: true });
    await writeFile(
      path.join(folder, 'notes', `${name}.html`),
      `<bv-topic path="notes/${name}" title="Note ${i}"><bv-rule>Rule number ${i} about caching.</bv-rule></bv-topic>`,
    );
  }
  const imported = await brv(repo, ['import', folder]);
  t.is(imported.exitCode, 0, imported.stderr);
  const run = await brv(repo, ['query', 'caching rule', '--hybrid'], { env: { ...env(server), BRV_PROGRESS: 'always' } });
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stderr, /Embedding topics/);
  t.regex(run.stderr, /embedded 70 topics/);
  t.deepEqual(
    embeddingRequests(server).map((r) => inputs(r).length),
    [1, 64, 6],
  );
});
