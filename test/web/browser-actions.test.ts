// The dashboard as a complete UI, end to end in a real headless Chromium: a topic created from the guided form,
// a question answered by a model on loopback with its citations linking to topics (then, the model gone, the
// topics found with a note naming the fix), the topic deleted after a confirmation, and a branch created,
// written on, checked out of and merged — every step through the page, none through the API directly.
import test from 'ava';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BrvService } from '../../src/service/service.js';
import { startWebServer } from '../../src/web/server.js';
import { openWatchedPage, sharedBrowser } from '../helpers/browser.js';
import { modelEnv, startLlmServer } from '../helpers/llm-server.js';
import { cleanup, git, tempDir } from '../helpers/repo.js';
import { knowledgeRepo, request, session } from './http.js';

const { browserTest, browser } = sharedBrowser(test);

browserTest(
  'create a topic, ask, delete it, and create + merge a branch, then connect a model provider, all through the page',
  async (t) => {
    const { repo } = await knowledgeRepo();
    await git(repo, 'config', 'brv.llm.retries', '0');
    const llm = await startLlmServer();
    const home = await tempDir('brv-web-home-');
    await mkdir(path.join(home, '.config'), { recursive: true });
    const service = new BrvService({ env: { ...process.env, XDG_CONFIG_HOME: path.join(home, '.config'), ...modelEnv(llm) }, home });
    const server = await startWebServer({ service, launchDir: repo, port: 0 });
    const { page, foreign, incidents } = await openWatchedPage(browser(), server);
    const topicStatus = async (topic: string) =>
      (await request(server.port, { path: `/api/topic?path=${encodeURIComponent(topic)}`, headers: session(server) })).status;
    const createTopic = async (topicPath: string, title: string, text: string) => {
      await page.locator('[data-testid="nav-new"]').click();
      await page.locator('[data-testid="new-topic-path"]').fill(topicPath);
      await page.locator('[data-testid="new-topic-title"]').fill(title);
      await page.locator('[data-testid="new-topic-kind"]').selectOption({ label: 'fact' });
      await page.locator('[data-testid="new-topic-text"]').fill(text);
      await page.locator('[data-testid="new-topic-check"]', { hasText: `Valid: will be written at ${topicPath}` }).waitFor();
      await page.locator('[data-testid="new-topic-save"]').click();
      await page.locator('[data-testid="topic-title"]', { hasText: title }).waitFor();
    };
    try {
      await page.locator('[data-testid="status-bar"]').waitFor();

      // Create: the form is checked as you type; an incomplete one says what it lacks and cannot be saved.
      await page.locator('[data-testid="nav-new"]').click();
      await page.locator('[data-testid="new-topic-path"]').fill('ops/rate_limit');
      await page.locator('[data-testid="new-topic-check"]', { hasText: 'Give the topic a title.' }).waitFor();
      t.true(await page.locator('[data-testid="new-topic-save"]').isDisabled());
      await createTopic(
        'ops/rate_limit',
        'Rate limits',
        'The gateway allows 100 requests a minute per client (rate_limit in gateway.yaml).',
      );
      t.regex(await page.locator('[data-testid="topic-body"]').innerText(), /100 requests a minute/);
      t.is(await topicStatus('ops/rate_limit'), 200);

      // Ask: the model's answer, its citation a link to the topic.
      llm.reply({ text: 'The gateway allows 100 requests a minute per client [ops/rate_limit].' });
      await page.locator('[data-testid="nav-ask"]').click();
      await page.locator('[data-testid="ask-input"]').fill('How many requests a minute does the gateway allow?');
      await page.locator('[data-testid="ask-submit"]').click();
      await page.locator('[data-testid="ask-answer"]').waitFor();
      t.regex(await page.locator('[data-testid="ask-answer"]').innerText(), /100 requests a minute per client \[ops\/rate_limit\]/);
      t.regex(llm.requests.at(-1)!.prompt, /rate_limit in gateway\.yaml/);
      await page.locator('[data-testid="ask-citation"]', { hasText: 'ops/rate_limit' }).click();
      await page.locator('[data-testid="topic-title"]', { hasText: 'Rate limits' }).waitFor();
      // The model gone: the topics found, and a note naming the fix.
      await llm.close();
      await page.locator('[data-testid="nav-ask"]').click();
      await page.locator('[data-testid="ask-input"]').fill('What limits the gateway requests?');
      await page.locator('[data-testid="ask-submit"]').click();
      const note = page.locator('[data-testid="ask-note"]');
      await note.waitFor();
      t.regex((await note.getAttribute('data-kind')) ?? '', /^llm-/);
      t.regex(await note.innerText(), /model server|Setup/);
      await page.locator('[data-testid="ask-topic"][data-path="ops/rate_limit"] a').click();
      await page.locator('[data-testid="topic-title"]', { hasText: 'Rate limits' }).waitFor();

      // Delete: asked first; Cancel keeps it; Delete removes it.
      await page.locator('[data-testid="topic-delete"]').click();
      await page.locator('[data-testid="delete-confirm"]', { hasText: 'ops/rate_limit' }).waitFor();
      await page.locator('[data-testid="delete-confirm-no"]').click();
      t.is(await topicStatus('ops/rate_limit'), 200, 'Cancel deletes nothing');
      await page.locator('[data-testid="topic-delete"]').click();
      await page.locator('[data-testid="delete-confirm-yes"]').click();
      await page.locator('[data-testid="topic-deleted"]', { hasText: 'Deleted ops/rate_limit.' }).waitFor();
      t.is(await topicStatus('ops/rate_limit'), 404);

      // Branches: create one (and switch to it), write on it, check main out again, merge it.
      await page.locator('[data-testid="nav-branches"]').click();
      await page.locator('[data-testid="branch-name"]').fill('experiment');
      await page.locator('[data-testid="branch-create"]').click();
      await page.locator('[data-testid="branch-result"]', { hasText: 'Created and switched to experiment (was main).' }).waitFor();
      await page.locator('[data-testid="branch"][data-name="experiment"][aria-current="true"]').waitFor();
      await createTopic('ops/retries', 'Retries', 'Clients retry 429 answers after the Retry-After delay.');
      await page.locator('[data-testid="nav-branches"]').click();
      await page.locator('[data-testid="branch"][data-name="main"] [data-testid="branch-checkout"]').click();
      await page.locator('[data-testid="branch-result"]', { hasText: 'Switched to main (was experiment).' }).waitFor();
      t.is(await topicStatus('ops/retries'), 404, 'main does not have it yet');
      await page.locator('[data-testid="branch"][data-name="experiment"] [data-testid="branch-merge"]').click();
      await page.locator('[data-testid="branch-result"]', { hasText: 'Fast-forwarded to experiment.' }).waitFor();
      t.is(await topicStatus('ops/retries'), 200);

      // Setup → Model: connect a provider with a key; the field is cleared and the key never shown.
      const KEY = 'sk-browser-secret-7777';
      await page.locator('[data-testid="nav-setup"]').click();
      await page.locator('[data-testid="provider-choice"]').selectOption('anthropic');
      await page.locator('[data-testid="provider-key"]').fill(KEY);
      await page.locator('[data-testid="provider-connect"]').click();
      await page.locator('[data-testid="model-result"]', { hasText: 'Connected Anthropic.' }).waitFor();
      await page.locator('[data-testid="provider"][data-id="anthropic"]').waitFor();
      t.is(await page.locator('[data-testid="provider-key"]').inputValue(), '');
      t.false((await page.content()).includes(KEY));

      t.deepEqual(foreign, []);
      t.deepEqual(incidents, []);
    } finally {
      await page.context().close();
      await server.close();
      await llm.close().catch(() => {});
      await cleanup(repo, home);
    }
  },
);
