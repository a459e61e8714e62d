import test from 'ava';
import { homedir } from 'node:os';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isBrvError } from '../../src/base/errors.js';
import type { CurateAutoProgress } from '../../src/service/knowledge.js';
import { BrvService } from '../../src/service/service.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { git, makeRepo, refTip, reply } from '../helpers/repo.js';

// brv.knowledge.curateAuto and modelConnection as a front end calls them: a service whose host
// environment names the scripted server on loopback (or no provider).

let server: LlmServer;
test.before(async () => {
  server = await startLlmServer();
});
test.after.always(async () => {
  await server.close();
});

async function open(connected: boolean) {
  const env = connected
    ? {
        ...process.env,
        BRV_LLM_PROVIDER: 'openai-compatible',
        BRV_LLM_BASE_URL: server.url,
        BRV_LLM_MODEL: 'test-model',
        BRV_LLM_API_KEY: 'sk-test-0000',
      }
    : { ...process.env, BRV_LLM_PROVIDER: 'none' };
  const service = new BrvService({ env, home: homedir(), platform: process.platform });
  const repo = await makeRepo();
  await git(repo, 'config', 'brv.llm.retries', '0');
  const brv = await service.open(repo);
  return { repo, brv, close: () => brv.close() };
}

const sessions = (repo: string) => readdir(path.join(repo, '.git/brv/sessions')).catch(() => [] as string[]);

test.serial('no provider: modelConnection is undefined and curateAuto throws no-provider', async (t) => {
  const { brv, close } = await open(false);
  t.teardown(close);
  t.is(await brv.knowledge.modelConnection(), undefined);
  const error = await t.throwsAsync(brv.knowledge.curateAuto({ intent: 'x' }, {}));
  t.true(isBrvError(error) && error.kind === 'no-provider');
  t.regex(error!.message, /brv providers connect/);
});

test.serial('a provider: the connection, progress events in order, usage and attempts in the result', async (t) => {
  const { repo, brv, close } = await open(true);
  t.teardown(close);
  t.deepEqual(await brv.knowledge.modelConnection(), { provider: 'openai-compatible', model: 'test-model' });
  // Not JSON (the correction prompt is built by the run), then no path (built by the protocol from the session), then valid.
  server.reply(
    { text: 'nope' },
    { text: JSON.stringify({ html: '<bv-topic title="x"><bv-rule>y</bv-rule></bv-topic>' }) },
    { text: reply('ops/deploy', 'Deploy'), chunks: 3 },
  );
  const events: CurateAutoProgress[] = [];
  const first = server.requests.length;
  const result = await brv.knowledge.curateAuto({ intent: 'deploys, see @README.md', onProgress: (e) => events.push(e) }, { agent: 'svc' });
  t.like(result, { ok: true, status: 'done', topicPath: 'ops/deploy', attempts: 3, attached: ['README.md'], skipped: [] });
  // The correction prompt quotes the attached files again.
  for (const request of server.requests.slice(first))
    t.regex(request.prompt, /<attached-file path="README\.md">\n# demo\n<\/attached-file>/);
  t.is(result.usage.requests, 3);
  t.is(server.requests.length - first, 3);
  t.regex(server.requests[first + 2]!.prompt, /missing-path-attribute/);
  const steps = events.filter((e) => e.event === 'step');
  t.like(steps[0], { event: 'step', step: 'generate-html', attempt: 1, of: 4, errors: [] });
  t.like(steps[1], { event: 'step', step: 'correct-html', attempt: 2, of: 4 });
  t.is((steps[1] as Extract<CurateAutoProgress, { event: 'step' }>).errors[0]!.kind, 'invalid-response-format');
  t.true(events.some((e) => e.event === 'received' && e.attempt === 3 && e.characters > 0));
  t.is(events.at(-1)!.event, 'writing');
  t.truthy(await refTip(repo));
  await t.throwsAsync(brv.knowledge.curateAuto({ intent: 'x', files: ['relative.md'] }, {}), { message: /absolute path/ });
});

test.serial('cancelled through its signal, before or during the call: llm-cancelled, nothing written, no session', async (t) => {
  const { repo, brv, close } = await open(true);
  t.teardown(close);
  const before = server.requests.length;
  const early = new AbortController();
  early.abort();
  const first = await t.throwsAsync(brv.knowledge.curateAuto({ intent: 'x', signal: early.signal }, {}));
  t.true(isBrvError(first) && first.kind === 'llm-cancelled');
  t.is(server.requests.length, before, 'no request once cancelled');

  server.reply({ text: reply('a/b', 'AB'), chunks: 30, chunkDelayMs: 50 });
  const controller = new AbortController();
  const running = brv.knowledge.curateAuto(
    {
      intent: 'x',
      signal: controller.signal,
      onProgress: (e) => {
        if (e.event === 'received') controller.abort();
      },
    },
    {},
  );
  const error = await t.throwsAsync(running);
  t.true(isBrvError(error) && error.kind === 'llm-cancelled');
  t.is(await refTip(repo), undefined);
  t.deepEqual(await sessions(repo), []);
});

test('a long-lived service sees a provider connected later and a key fixed later: neither "none" nor a failure is kept', async (t) => {
  const env: Record<string, string | undefined> = { ...process.env, BRV_LLM_PROVIDER: 'none' };
  const service = new BrvService({ env, home: homedir(), platform: process.platform });
  const repo = await makeRepo();
  await git(repo, 'config', 'brv.llm.retries', '0');
  const brv = await service.open(repo);
  t.teardown(() => brv.close());
  const kind = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (isBrvError(error) ? error.kind : String(error)),
    );
  t.is(await kind(brv.knowledge.curateAuto({ intent: 'deploys use canaries' }, {})), 'no-provider');
  // Connected, but without its key.
  Object.assign(env, { BRV_LLM_PROVIDER: 'anthropic', BRV_LLM_MODEL: 'test-model' });
  t.is(await kind(brv.knowledge.curateAuto({ intent: 'deploys use canaries' }, {})), 'missing-api-key');
  // Now the server the test scripts.
  Object.assign(env, { BRV_LLM_PROVIDER: 'openai-compatible', BRV_LLM_BASE_URL: server.url, BRV_LLM_API_KEY: 'sk-test-0000' });
  server.reply({ text: reply('ops/canary', 'Canaries', '<bv-rule severity="must">Deploys go out behind a canary.</bv-rule>') });
  const done = await brv.knowledge.curateAuto({ intent: 'deploys use canaries' }, {});
  t.is(done.status, 'done', JSON.stringify(done.errors));
  t.truthy(await refTip(repo));
});

test.serial('a model-written change records its model (Brv-Model): the review names the model, the session and the agent', async (t) => {
  const { brv, close } = await open(true);
  t.teardown(close);
  server.reply({
    text: reply('ops/deploy', 'Deploy', '<bv-rule severity="must">Drop the cache.</bv-rule>', { impact: 'high', reason: 'r' }),
  });
  const result = await brv.knowledge.curateAuto({ intent: 'deploys drop the cache' }, { agent: 'svc' });
  t.like(result, { ok: true, status: 'done', topicPath: 'ops/deploy' });
  const { tasks } = await brv.review.pending();
  t.is(tasks.length, 1);
  t.like(tasks[0], { agent: 'svc', model: 'openai-compatible/test-model', impact: 'high' });
  t.regex(tasks[0]!.session ?? '', /^\S+$/, 'the curate session it came from');
  t.is((await brv.review.pending({ model: 'test-model' })).tasks.length, 1);
  t.is((await brv.review.pending({ model: 'other-model' })).tasks.length, 0);
});
