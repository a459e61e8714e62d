import test from 'ava';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { openWatchedPage, sharedBrowser, type PageElement } from '../helpers/browser.js';
import { PLANTED_BLOBS } from '../helpers/hostile.js';
import { plantTree } from '../helpers/plant.js';
import { put, rule, sharedClones } from '../helpers/knowledge.js';
import { brvJson, cleanup, curateTopic, git, makeRepo, refTip, reply, ROOT, showTopic, tempDir } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';

// End to end in a real headless Chromium (Debian's, driven by playwright-core): the dashboard as a
// person uses it, against a real repository and a real `brv webui` server on loopback.
const { browserTest, browser } = sharedBrowser(test);

interface Dashboard {
  repo: string;
  server: WebServer;
  page: Page;
  /** Requests the page made to anything but the dashboard's own origin. */
  foreign: string[];
  /** Dialogs (alert, confirm, prompt) a script opened, and errors thrown by page scripts. */
  incidents: string[];
}

async function open(setup: (repo: string) => Promise<void>): Promise<Dashboard> {
  const repo = await makeRepo();
  await setup(repo);
  const server = await startWebServer({ service: testService, launchDir: repo, port: 0 });
  return { repo, server, ...(await openWatchedPage(browser(), server)) };
}

async function close(dashboard: Dashboard): Promise<void> {
  await dashboard.page.context().close();
  await dashboard.server.close();
  await cleanup(dashboard.repo);
}

const seed = async (repo: string) => {
  await curateTopic(
    repo,
    reply('security/cookies', 'Session cookies', '<bv-rule severity="must">Session tokens live in HttpOnly cookies.</bv-rule>'),
  );
  await curateTopic(repo, reply('ops/deploy', 'Deploys', '<bv-rule severity="must">Deploy with blue-green switches.</bv-rule>'));
};

browserTest('browse, search, open a topic; review and reject a change: the topic is back', async (t) => {
  const d = await open(seed);
  try {
    const { page } = d;
    await page.waitForURL(/\/knowledge/);
    await page.locator('[data-testid="tree-topic"][data-path="security/cookies"]').click();
    await page.locator('[data-testid="topic-title"]', { hasText: 'Session cookies' }).waitFor();
    t.regex(await page.locator('[data-testid="topic-body"]').innerText(), /HttpOnly cookies/);

    await page.locator('[data-testid="nav-search"]').click();
    await page.locator('[data-testid="search-input"]').fill('httponly cookies');
    const result = page.locator('[data-testid="search-result"][data-path="security/cookies"]');
    await result.waitFor();
    t.true((await result.locator('mark').count()) > 0, 'the matched words are highlighted');
    // A folder filter narrows the answer and is part of the page's address.
    await page.locator('[data-testid="search-filters"]').click();
    await page.locator('[data-testid="search-filter-scope"]').fill('ops');
    await page.locator('[data-testid="search-filter-scope"]').blur();
    await result.waitFor({ state: 'detached' });
    await page.waitForURL(/scope=ops/);
    await page.locator('[data-testid="search-filter-scope"]').fill('');
    await page.locator('[data-testid="search-filter-scope"]').blur();
    await result.waitFor();
    await result.click();
    await page.waitForURL(/\/knowledge\/security\/cookies/);

    // A high-impact change lands and opens a review; rejecting it in the inbox restores the topic.
    await curateTopic(
      d.repo,
      reply('security/cookies', 'Session cookies', '<bv-rule severity="must">Session tokens live in localStorage.</bv-rule>', {
        impact: 'high',
        reason: 'test',
      }),
      ['--overwrite'],
    );
    t.regex((await showTopic(d.repo, 'security/cookies.html'))!, /localStorage/);
    await page.locator('[data-testid="nav-reviews"]').click();
    const review = page.locator('[data-testid="review"]').first();
    await review.waitFor();
    await review.locator('[data-testid="review-reject"]').click();
    await page.locator('[data-testid="reviews-empty"]').waitFor();
    t.regex((await showTopic(d.repo, 'security/cookies.html'))!, /HttpOnly cookies/);
    await page.goto(`${d.server.origin}/knowledge/security/cookies`);
    await page.locator('[data-testid="topic-body"]', { hasText: 'HttpOnly cookies' }).waitFor();
    t.deepEqual(d.incidents, []);
    t.deepEqual(d.foreign, []);
  } finally {
    await close(d);
  }
});

browserTest("an agent's CLI curate appears live, without a reload; and again after the connection dropped", async (t) => {
  const d = await open(seed);
  try {
    const { page } = d;
    await page.locator('[data-testid="tree-topic"][data-path="ops/deploy"]').waitFor();
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1));
    await curateTopic(d.repo, reply('agents/live', 'Live topic', '<bv-rule severity="must">Arrives without a reload.</bv-rule>'));
    await page.locator('[data-testid="tree-topic"][data-path="agents/live"]').waitFor({ timeout: 10_000 });
    t.is(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker), 1, 'the page was not reloaded');

    // Offline: the event stream drops; a change made meanwhile arrives when it reconnects (Last-Event-ID).
    await page.context().setOffline(true);
    await curateTopic(d.repo, reply('agents/missed', 'Missed while offline', '<bv-rule severity="must">Replayed.</bv-rule>'));
    await page.context().setOffline(false);
    await page.locator('[data-testid="tree-topic"][data-path="agents/missed"]').waitFor({ timeout: 15_000 });
    t.is(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker), 1);
  } finally {
    await close(d);
  }
});

browserTest('hostile topics planted with plumbing render inert: no script runs, no request leaves', async (t) => {
  const files: Record<string, string> = {};
  PLANTED_BLOBS.forEach((html, i) => (files[`hostile/h${i}.html`] = html));
  const d = await open(async (repo) => {
    await plantTree(repo, files);
  });
  try {
    const { page } = d;
    for (let i = 0; i < PLANTED_BLOBS.length; i++) {
      await page.goto(`${d.server.origin}/knowledge/hostile/h${i}`);
      await page.locator('[data-testid="topic-body"], [data-testid="error"]').first().waitFor();
      // Hover every element the topic holds: handlers, if any survived, would fire.
      for (const element of await page.locator('[data-testid="topic-body"] *').all()) await element.hover({ timeout: 200 }).catch(() => {});
      const tags = 'script, iframe, object, embed, style, link, meta, base, form, svg, math';
      t.is(await page.locator(`[data-testid="topic-body"] :is(${tags})`).count(), 0, `h${i}`);
      const attributes = await page
        .locator('[data-testid="topic-body"] *')
        .evaluateAll((elements) =>
          elements.flatMap((e) => Array.from((e as unknown as PageElement).attributes, (a) => `${a.name}=${a.value}`)),
        );
      for (const attribute of attributes)
        t.notRegex(attribute, /^(on|style=|srcdoc=|formaction=)|^(src|href|action)=\s*(javascript|vbscript|data:text)/i, `h${i}`);
      for (const attribute of attributes.filter((a) => a.startsWith('src=')))
        t.regex(attribute, /^src=(\/|data:image\/(png|gif|jpeg|webp);)/, `h${i}`);
      const hrefs = await page
        .locator('[data-testid="topic-body"] a[href]')
        .evaluateAll((links) => links.map((a) => (a as unknown as PageElement).getAttribute('href') ?? ''));
      for (const href of hrefs) t.regex(href, /^(https?:|mailto:|#|\/)/i, `h${i}: ${href}`);
    }
    t.deepEqual(d.incidents, []);
    t.deepEqual(d.foreign, [], 'no request left the dashboard');
  } finally {
    await close(d);
  }
});

browserTest('edit a topic in the browser: saved through the validator; a concurrent change is shown, never overwritten', async (t) => {
  const d = await open(seed);
  try {
    const { page } = d;
    await page.goto(`${d.server.origin}/knowledge/security/cookies`);
    await page.locator('[data-testid="topic-edit"]').click();
    const editor = page.locator('[data-testid="edit-text"]');
    await editor.waitFor();
    t.regex(await editor.inputValue(), /HttpOnly cookies/);

    // Refused by the validator: the errors are shown, nothing is committed.
    const before = await showTopic(d.repo, 'security/cookies.html');
    const bad =
      '<bv-topic path="security/cookies" title="Session cookies">\n  <p>ok</p>\n  <bv-rule onclick="x()">Bad.</bv-rule>\n</bv-topic>';
    await editor.fill(bad);
    await page.locator('[data-testid="edit-save"]').click();
    await page.locator('[data-testid="edit-errors"]').waitFor();
    t.is(await showTopic(d.repo, 'security/cookies.html'), before);
    // Each error says where; clicking it puts the caret there (line 3, column 3: the <bv-rule>).
    const where = page.locator('[data-testid="edit-error-where"]', { hasText: '3:3' });
    await where.click();
    t.is(await editor.evaluate((area) => (area as unknown as { selectionStart: number }).selectionStart), bad.indexOf('<bv-rule'));

    await editor.fill(
      '<bv-topic path="security/cookies" title="Session cookies"><bv-rule severity="must">Session tokens live in Secure HttpOnly cookies.</bv-rule></bv-topic>',
    );
    await page.locator('[data-testid="edit-save"]').click();
    await page.locator('[data-testid="topic-body"]', { hasText: 'Secure HttpOnly' }).waitFor();
    t.regex((await showTopic(d.repo, 'security/cookies.html'))!, /Secure HttpOnly/);

    // Opened, then changed by an agent: saving shows the conflict and keeps the agent's version.
    await page.locator('[data-testid="topic-edit"]').click();
    await editor.waitFor();
    await curateTopic(
      d.repo,
      reply('security/cookies', 'Session cookies', '<bv-rule severity="must">Cookies are SameSite=Strict.</bv-rule>'),
      ['--overwrite'],
    );
    await editor.fill('<bv-topic path="security/cookies" title="Session cookies"><bv-rule severity="must">Mine.</bv-rule></bv-topic>');
    await page.locator('[data-testid="edit-save"]').click();
    await page.locator('[data-testid="edit-conflict"]', { hasText: /SameSite/ }).waitFor();
    t.regex((await showTopic(d.repo, 'security/cookies.html'))!, /SameSite=Strict/);
    t.notRegex((await showTopic(d.repo, 'security/cookies.html'))!, /Mine\./);
    t.deepEqual(d.incidents, []);
  } finally {
    await close(d);
  }
});

browserTest('branches and sync: a pull streams its steps into the page, then its result; the new topic is there', async (t) => {
  const { a, b, root } = await sharedClones((dir) => `file://${dir}`);
  for (let i = 0; i < 3; i++) await put(a, `team/fact-${i}`, rule(`Team fact ${i}.`));
  await brvJson(a, ['vc', 'push']);
  const server = await startWebServer({ service: testService, launchDir: b, port: 0 });
  const context = await browser().newContext();
  const page = await context.newPage();
  try {
    await page.goto(server.url);
    await page.goto(`${server.origin}/branches`);
    await page.locator('[data-testid="branch"]').first().waitFor();
    // Every text the progress area showed while the pull ran (it is gone once the result is in).
    await page.evaluate(`
      window.progressSeen = [];
      new MutationObserver(() => {
        const shown = document.querySelector('[data-testid="sync-progress"]');
        if (shown && shown.textContent) window.progressSeen.push(shown.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    await page.locator('[data-testid="sync-pull"]').click();
    await page.locator('[data-testid="sync-result"]', { hasText: /Pulled main from origin/ }).waitFor();
    const seen = (await page.evaluate('window.progressSeen')) as string[];
    t.true(
      seen.some((text) => /Fetching knowledge from origin…|Merging origin\/main into main…/.test(text)),
      JSON.stringify(seen),
    );
    t.is(await page.locator('[data-testid="sync-progress"]').count(), 0);
    await page.goto(`${server.origin}/knowledge/team/fact-2`);
    await page.locator('[data-testid="topic-body"]', { hasText: 'Team fact 2.' }).waitFor();
  } finally {
    await context.close();
    await server.close();
    await cleanup(root);
  }
});

// The README's screenshots: every page, rendered by this run. `npm run screenshots` writes them to
// docs/screenshots/ (commit them when a page changes); otherwise they go to a temp folder and are only checked.
const PAGES: ReadonlyArray<{ name: string; path: string; ready: string }> = [
  { name: 'knowledge', path: '/knowledge/security/cookies', ready: '[data-testid="topic-body"]' },
  { name: 'search', path: '/search?q=cookies', ready: '[data-testid="search-result"]' },
  { name: 'changes', path: '/changes', ready: '[data-testid="change-entry"]' },
  { name: 'reviews', path: '/reviews', ready: '[data-testid="review"]' },
  { name: 'branches', path: '/branches', ready: '[data-testid="branch"]' },
  { name: 'setup', path: '/setup', ready: '[data-testid="setting"]' },
];

browserTest('the footer says what was fetched and not taken, and names the command (diverged: brv sync)', async (t) => {
  // Diverged from origin/main by one commit each way, set up from refs alone (no network).
  const d = await open(async (repo) => {
    await seed(repo);
    await git(repo, 'remote', 'add', 'origin', '/nowhere/remote.git');
    const base = (await refTip(repo))!;
    await curateTopic(repo, reply('api/errors', 'API errors', '<bv-rule>Errors are JSON.</bv-rule>'));
    const theirs = (await refTip(repo))!;
    await git(repo, 'update-ref', 'refs/brv/heads/main', base);
    await curateTopic(repo, reply('db/migrations', 'Migrations', '<bv-rule>Never edit an applied migration.</bv-rule>'));
    // Fetched last: a curate reads first, and takes a fetch it can fast-forward to.
    await git(repo, 'update-ref', 'refs/brv/remotes/origin/heads/main', theirs);
  });
  try {
    const incoming = d.page.locator('[data-testid="status-bar"] [data-testid="status-incoming"]');
    await incoming.waitFor();
    t.regex(await incoming.innerText(), /origin ↓1: .*1 to pull .*run brv sync/);
    t.notRegex(await d.page.locator('[data-testid="status-bar"]').innerText(), /up to date/i);
  } finally {
    await close(d);
  }
});

browserTest('every page renders for the README screenshots', async (t) => {
  const d = await open(async (repo) => {
    await seed(repo);
    await curateTopic(
      repo,
      reply('ops/deploy', 'Deploys', '<bv-rule severity="must">Deploy with canary releases first.</bv-rule>', {
        impact: 'high',
        reason: 'incident review',
      }),
      ['--overwrite'],
    );
  });
  const dir = process.env.UPDATE_SCREENSHOTS ? path.join(ROOT, 'docs', 'screenshots') : await tempDir('brv-screens-');
  try {
    await mkdir(dir, { recursive: true });
    await d.page.setViewportSize({ width: 1200, height: 760 });
    for (const { name, path: route, ready } of PAGES) {
      await d.page.goto(`${d.server.origin}${route}`);
      await d.page.locator(ready).first().waitFor();
      const file = path.join(dir, `${name}.png`);
      await d.page.screenshot({ path: file });
      t.true((await stat(file)).size > 10_000, name);
    }
    // On a phone: the topic first, the tree behind its button; then the tree opened above the topic.
    await d.page.setViewportSize({ width: 390, height: 844 });
    await d.page.goto(`${d.server.origin}/knowledge/security/cookies`);
    await d.page.locator('[data-testid="topic-body"]').waitFor();
    await d.page.screenshot({ path: path.join(dir, 'knowledge-phone.png') });
    await d.page.locator('[data-testid="tree-toggle"]').click();
    await d.page.locator('[data-testid="tree-topic"][data-path="security/cookies"]').waitFor();
    await d.page.screenshot({ path: path.join(dir, 'knowledge-phone-tree.png') });
    t.deepEqual(d.incidents, []);
  } finally {
    await close(d);
    if (!process.env.UPDATE_SCREENSHOTS) await rm(dir, { recursive: true, force: true });
  }
});
