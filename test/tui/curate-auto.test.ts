import test from 'ava';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { git, makeRepo, refTip, reply, showTopic } from '../helpers/repo.js';
import { mountApp } from '../helpers/tui-app.js';

// The REPL's model-driven /curate, in ink's test renderer against a real repository, the real
// service and the scripted OpenAI-compatible server on loopback (the connection comes from the
// environment the test service reads, as BRV_LLM_* do for the CLI).

const ENTER = '\r';
const TAB = '\t';
const CTRL_C = '\u0003';

let server: LlmServer;
test.before(async () => {
  server = await startLlmServer();
});
test.after.always(async () => {
  await server.close();
});

function connect(on: boolean) {
  Object.assign(
    process.env,
    on
      ? {
          BRV_LLM_PROVIDER: 'openai-compatible',
          BRV_LLM_BASE_URL: server.url,
          BRV_LLM_MODEL: 'test-model',
          BRV_LLM_API_KEY: 'sk-test-secret-0000',
        }
      : { BRV_LLM_PROVIDER: 'none' },
  );
}

async function repository(): Promise<string> {
  const repo = await makeRepo();
  await git(repo, 'config', 'brv.llm.retries', '0');
  await mkdir(path.join(repo, 'docs'));
  await writeFile(path.join(repo, 'docs/deploy.md'), 'Deploys go out behind a canary for 30 minutes.\n');
  await writeFile(path.join(repo, '.env'), 'TOKEN=never-sent\n');
  return repo;
}

test.serial('with a model, /curate <text> @file: Tab completes the file, the model writes the topic, it opens', async (t) => {
  connect(true);
  const repo = await repository();
  const ui = mountApp(t, repo, { noColor: true });
  await ui.see(/0 topics · no reviews/);
  // The work tree's files are listed in the background after the first paint.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await ui.type('/curate deploys use canaries, see @do');
  await ui.type(TAB);
  await ui.see(/› \/curate deploys use canaries, see @docs\/$/m);
  await ui.type('d');
  await ui.type(TAB);
  await ui.see(/› \/curate deploys use canaries, see @docs\/deploy\.md\s*$/m);
  await ui.type('and @.env');
  server.reply({
    text: reply('ops/deploy', 'Deploys', '<bv-rule severity="must">Canary for 30 minutes.</bv-rule>'),
    chunks: 8,
    chunkDelayMs: 80,
  });
  const requests = server.requests.length;
  await ui.type(ENTER);
  await ui.see(/\/curate… asking the model \(attempt 1 of 4\)|attempt 1: [\d,]+ characters received/);
  const opened = await ui.see(/Deploys\n═+/);
  t.regex(opened, /Canary for 30 minutes\./);
  t.regex(opened, /Curated ops\/deploy \(ADD\) in commit [0-9a-f]{10}\./);
  t.regex((await showTopic(repo, 'ops/deploy.html')) ?? '', /Canary for 30 minutes\./);
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /Brv-Agent: tui-test/);
  const prompt = server.requests[requests]!.prompt;
  t.regex(prompt, /<attached-file path="docs\/deploy\.md">\nDeploys go out behind a canary for 30 minutes\.\n<\/attached-file>/);
  t.false(prompt.includes('never-sent'), 'a secret-looking mention is not attached');
});

test.serial('with a model, Ctrl-C cancels a /curate mid-stream: nothing written, no session left', async (t) => {
  connect(true);
  const repo = await repository();
  const ui = mountApp(t, repo, { noColor: true });
  await ui.see(/0 topics/);
  server.reply({ text: reply('ops/slow', 'Slow'), chunks: 40, chunkDelayMs: 150 });
  const requests = server.requests.length;
  await ui.type('/curate something slow');
  await ui.type(ENTER);
  await ui.see(/characters received/);
  t.is(server.requests.length, requests + 1);
  await ui.type(CTRL_C);
  await ui.see(/Stopped: its result is dropped \(a curate writes nothing\)\./);
  // The cancelled run cleans up after itself.
  const deadline = Date.now() + 5000;
  let left = ['?'];
  while (Date.now() < deadline) {
    left = await readdir(path.join(repo, '.git/brv/sessions')).catch(() => []);
    if (left.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.deepEqual(left, []);
  t.is(await refTip(repo), undefined);
});

test.serial('without a model, /curate keeps the guided template, and words are not sent anywhere', async (t) => {
  connect(false);
  const repo = await repository();
  const ui = mountApp(t, repo, { noColor: true });
  await ui.see(/0 topics/);
  const requests = server.requests.length;
  await ui.type('/curate deploys use canaries');
  await ui.type(ENTER);
  await ui.see(/Without a model, \/curate opens the guided template/);
  await ui.type('/curate ops/deploy');
  await ui.type(ENTER);
  await ui.see(/Path\s+ops\/deploy/);
  t.is(server.requests.length, requests);
});

/** A repository with one topic a question about token signing finds. */
async function jwtRepository(): Promise<string> {
  const repo = await repository();
  const { curateTopic } = await import('../helpers/repo.js');
  await curateTopic(repo, reply('security/jwt', 'JWT signing', '<bv-rule severity="must">Sign tokens with RS256.</bv-rule>'));
  return repo;
}

test.serial('with a model, /ask answers in words citing the topic, the cost under it; /query --answer is the same', async (t) => {
  connect(true);
  const repo = await jwtRepository();
  const ui = mountApp(t, repo, { noColor: true });
  await ui.see(/1 topic/);
  server.reply({ text: 'Tokens are signed with RS256 [security/jwt].' }, { text: 'RS256 [security/jwt].' });
  await ui.type('/ask how are tokens signed');
  await ui.type(ENTER);
  const answered = await ui.see(/Answer: how are tokens signed/);
  t.regex(answered, /Tokens are signed with RS256 \[security\/jwt\]\./);
  t.regex(answered, /Sources/);
  t.regex(answered, /model openai-compatible test-model: 1 request/);
  await ui.type('\u001b');
  await ui.see(/Ask a question/);
  await ui.type('/query how are tokens signed --answer');
  await ui.type(ENTER);
  await ui.see(/RS256 \[security\/jwt\]\./);
});

test.serial('with the model failing, /ask shows the topics found and the typed error naming the fix', async (t) => {
  connect(true);
  const repo = await jwtRepository();
  const ui = mountApp(t, repo, { noColor: true });
  await ui.see(/1 topic/);
  server.reply({ status: 500, body: { error: { message: 'the model crashed' } } });
  await ui.type('/ask how are tokens signed');
  await ui.type(ENTER);
  const frame = await ui.see(/llm-unavailable: No answer/);
  t.regex(frame, /JWT signing/);
  t.regex(frame, /Sign tokens with RS256/);
  t.regex(
    frame.replace(/\n\s*/g, ' '),
    /failed \(500\): the model crashed\. Try again later, or point brv at another server \(BRV_LLM_BASE_URL/,
  );
});

test.serial('/dream --dry-run lists what it would propose; /dream records one held review', async (t) => {
  connect(false);
  const repo = await repository();
  const { curateTopic } = await import('../helpers/repo.js');
  const files = '<bv-files><li><code>deploy/pipeline.yml</code></li></bv-files>';
  await curateTopic(repo, reply('ops/deploy', 'Deploying', `<bv-rule>Canary first.</bv-rule>${files}`));
  await curateTopic(repo, reply('ops/rollback', 'Rolling back', `<bv-rule>Roll back within five minutes.</bv-rule>${files}`));
  const ui = mountApp(t, repo, { noColor: true });
  await ui.see(/2 topics/);
  await ui.type('/dream --dry-run');
  await ui.type(ENTER);
  const dry = await ui.see(/Proposals \(not recorded\)|No candidates|candidates/i);
  t.notRegex(dry, /held for review/);
  await ui.type('\u001b');
  await ui.see(/Ask a question/);
  await ui.type('/dream');
  await ui.type(ENTER);
  const held = await ui.see(/Dream\n/);
  t.regex(held, /held for review [0-9a-f]+/);
});
