import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { openWatchedPage, sharedBrowser, type PageElement } from '../helpers/browser.js';
import { put, rule } from '../helpers/knowledge.js';
import { conflictedMerge, highImpactReview, plantHostileConflictSide } from '../helpers/merge-review.js';
import { cleanup, makeRepo, showTopic } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';

// The review inbox end to end in a real headless Chromium: a real conflicted merge resolved per section and
// approved; batch decisions by mouse and by keyboard alone; a hostile conflict side rendered inert.
const { browserTest, browser } = sharedBrowser(test);

interface Inbox {
  repo: string;
  server: WebServer;
  page: Page;
  /** Requests the page made to anything but the dashboard's own origin. */
  foreign: string[];
  /** Dialogs a script opened, errors thrown by page scripts, and what the CSP refused. */
  incidents: string[];
}

async function openInbox(repo: string): Promise<Inbox> {
  const server = await startWebServer({ service: testService, launchDir: repo, port: 0 });
  const { page, foreign, incidents } = await openWatchedPage(browser(), server);
  await page.goto(`${server.origin}/reviews`);
  // Set once: a reload would lose it (decisions must leave the inbox live).
  await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1));
  return { repo, server, page, foreign, incidents };
}

async function closeInbox(inbox: Inbox): Promise<void> {
  await inbox.page.context().close();
  await inbox.server.close();
  await cleanup(inbox.repo);
}

const notReloaded = (page: Page) => page.evaluate(() => (globalThis as unknown as { marker?: number }).marker === 1);

/** Tab (or Shift+Tab) until the element with this test id has the focus; fails after `max` presses. */
async function tabTo(page: Page, testid: string, options: { back?: boolean; within?: string; max?: number } = {}): Promise<void> {
  for (let i = 0; i < (options.max ?? 60); i++) {
    await page.keyboard.press(options.back ? 'Shift+Tab' : 'Tab');
    const focused = await page.evaluate(
      ({ testid, within }) => {
        // Runs in the page (the test's own types have no DOM).
        type Focused = { getAttribute(name: string): string | null; closest(selector: string): unknown } | null;
        const active = (globalThis as unknown as { document: { activeElement: Focused } }).document.activeElement;
        if (!active || active.getAttribute('data-testid') !== testid) return false;
        return within === undefined || active.closest(within) !== null;
      },
      { testid, within: options.within },
    );
    if (focused) return;
  }
  throw new Error(`${testid} never got the focus`);
}

browserTest(
  'a conflicted merge: one section ours, the other theirs, then approve: the branch holds the choice, the inbox empties',
  async (t) => {
    const { repo, id } = await conflictedMerge();
    const d = await openInbox(repo);
    try {
      const { page } = d;
      const card = page.locator(`[data-testid="review"][data-id="${id}"]`);
      await card.waitFor();
      const r1 = card.locator('[data-testid="conflict"][data-section="bv-rule#r1"]');
      const r2 = card.locator('[data-testid="conflict"][data-section="bv-rule#r2"]');
      await r1.waitFor();
      t.regex(await r1.locator('[data-testid="conflict-ours"]').innerText(), /Ours one\./);
      t.regex(await r1.locator('[data-testid="conflict-theirs"]').innerText(), /Theirs one\./);
      t.regex(await r1.innerText(), /changed differently on both sides/);
      // While conflicts remain, approving waits (with the reason) and keeping both versions is offered.
      t.true(await card.locator('[data-testid="review-approve"]').isDisabled());
      t.regex(await card.locator('[data-testid="review-blocked"]').innerText(), /2 merge conflicts are unresolved/);
      await card.locator('[data-testid="review-approve-keep-both"]').waitFor();
      t.true(await card.locator('[data-testid="topic-approve"]').isDisabled());

      await r1.locator('[data-testid="resolve-ours"]').click();
      await r1.waitFor({ state: 'detached' });
      t.regex(await card.locator('[data-testid="review-blocked"]').innerText(), /1 merge conflict is unresolved/);
      await r2.locator('[data-testid="resolve-theirs"]').click();
      await card.locator('[data-testid="review-conflicts"]').waitFor({ state: 'detached' });
      const approve = card.locator('[data-testid="review-approve"]');
      t.false(await approve.isDisabled(), 'resolved: approve works as usual');
      t.is(await card.locator('[data-testid="review-approve-keep-both"]').count(), 0);
      await approve.click();
      await page.locator('[data-testid="reviews-empty"]').waitFor();
      const html = (await showTopic(repo, 'ops/deploy.html'))!;
      t.regex(html, /<bv-rule id="r1">Ours one\.<\/bv-rule>/);
      t.regex(html, /<bv-rule id="r2">Theirs two\.<\/bv-rule>/);
      t.notRegex(html, /Theirs one|Ours two|Merge conflict/);
      t.true(await notReloaded(page));
      t.deepEqual(d.incidents, []);
      t.deepEqual(d.foreign, []);
    } finally {
      await closeInbox(d);
    }
  },
);

browserTest('a whole topic resolved "both", or rewritten in the editor inline: the conflicts reload and approval opens', async (t) => {
  const { repo, id } = await conflictedMerge();
  const other = await conflictedMerge(repo, 'ops/release');
  const d = await openInbox(repo);
  try {
    const { page } = d;
    const first = page.locator(`[data-testid="review"][data-id="${id}"]`);
    await first.locator('[data-testid="conflict"]').first().waitFor();
    await first.locator('[data-testid="topic-resolve-both"]').click();
    await first.locator('[data-testid="review-conflicts"]').waitFor({ state: 'detached' });
    t.regex((await showTopic(repo, 'ops/deploy.html'))!, /Ours one\.[\s\S]*Theirs one\./);

    // Edit: the topic editor opens in the card; saved without the note, the topic has no conflict left.
    const second = page.locator(`[data-testid="review"][data-id="${other.id}"]`);
    await second.locator('[data-testid="conflict-edit"]').click();
    const editor = second.locator('[data-testid="edit-text"]');
    await editor.waitFor();
    t.regex(await editor.inputValue(), /Merge conflict/);
    await editor.fill('<bv-topic path="ops/release" title="Deploys"><bv-rule id="r1">Combined by hand.</bv-rule></bv-topic>');
    await second.locator('[data-testid="edit-save"]').click();
    await second.locator('[data-testid="review-conflicts"]').waitFor({ state: 'detached' });
    t.regex((await showTopic(repo, 'ops/release.html'))!, /Combined by hand\./);
    await second.locator('[data-testid="review-approve"]:not([disabled])').click();
    await second.waitFor({ state: 'detached' });
    await first.locator('[data-testid="review-approve"]:not([disabled])').click();
    await page.locator('[data-testid="reviews-empty"]').waitFor();
    t.true(await notReloaded(page));
    t.deepEqual(d.incidents, []);
  } finally {
    await closeInbox(d);
  }
});

browserTest(
  "a resolved merge card shows the diff that lands, not the merge's markers; cards say who made each change; the filter narrows the inbox",
  async (t) => {
    const { repo, id } = await conflictedMerge();
    // An agent's high-impact write (in-process, as an MCP server records it).
    const file = path.join(repo, 'jwt.html');
    await writeFile(file, '<bv-topic path="security/jwt" title="JWT"><bv-rule severity="must">Rotate keys daily.</bv-rule></bv-topic>\n');
    const brv = await testService.open(repo);
    const written = await brv.knowledge.curate(
      { htmlFile: file, meta: '{"impact":"high","reason":"rotate keys"}' },
      { agent: 'claude-code' },
    );
    t.true(written.ok, JSON.stringify(written));
    const agentId = (await brv.review.pending({ agent: 'claude-code' })).tasks[0]!.taskId;
    await brv.close();
    const d = await openInbox(repo);
    try {
      const { page } = d;
      const card = page.locator(`[data-testid="review"][data-id="${id}"]`);
      const agentCard = page.locator(`[data-testid="review"][data-id="${agentId}"]`);
      await card.locator('[data-testid="conflict"]').first().waitFor();
      t.regex(await card.locator('[data-testid="review-provenance"]').innerText(), /^by Ada Author <ada@example\.com>$/);
      t.regex(await agentCard.locator('[data-testid="review-provenance"]').innerText(), /· agent claude-code · impact high$/);

      // "All theirs": the card then shows what approving keeps (the topic before the merge against the branch now).
      await card.locator('[data-testid="topic-resolve-theirs"]').click();
      await card.locator('[data-testid="review-conflicts"]').waitFor({ state: 'detached' });
      const diff = card.locator('[data-testid="review-topic"] pre.diff');
      await page.waitForFunction(
        () => {
          const shown = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document;
          const text = shown.querySelector('[data-testid="review-topic"] pre.diff')?.textContent ?? '';
          return /Theirs two/.test(text) && !/Merge conflict/.test(text);
        },
        undefined,
        { timeout: 10_000 },
      );
      const landing = await diff.innerText();
      t.regex(landing, /^\+.*Theirs one\./m);
      t.regex(landing, /^-.*Ours one\./m);
      t.notRegex(landing, /Merge conflict|^\+.*Ours/m, 'no conflict scaffolding, nothing of ours added');

      // The filter: by agent, then by an author nobody is.
      await page.locator('[data-testid="filter-agent"]').selectOption('claude-code');
      await card.waitFor({ state: 'detached' });
      t.true(await agentCard.isVisible());
      await page.locator('[data-testid="filter-agent"]').selectOption('');
      await page.locator('[data-testid="filter-author"]').fill('nobody@');
      await page.locator('[data-testid="reviews-filtered-empty"]').waitFor();
      t.is(await page.locator('[data-testid="review"]').count(), 0);
      await page.locator('[data-testid="filter-author"]').fill('ada@');
      await card.waitFor();
      await card.locator('[data-testid="review-approve"]:not([disabled])').click();
      await card.waitFor({ state: 'detached' });
      t.regex((await showTopic(repo, 'ops/deploy.html'))!, /Theirs one\.[\s\S]*Theirs two\./);
      t.true(await notReloaded(page));
      t.deepEqual(d.incidents, []);
    } finally {
      await closeInbox(d);
    }
  },
);

browserTest('batch reject of two reviews: both topics back, the inbox empty, without a reload', async (t) => {
  const repo = await makeRepo();
  await put(repo, 'team/a', rule('Alpha as it was.'), { title: 'team/a' });
  await put(repo, 'team/b', rule('Beta as it was.'), { title: 'team/b' });
  const a = await highImpactReview(repo, 'team/a', 'Alpha rewritten.');
  const b = await highImpactReview(repo, 'team/b', 'Beta rewritten.');
  const d = await openInbox(repo);
  try {
    const { page } = d;
    const reject = page.locator('[data-testid="batch-reject"]');
    await page.locator(`[data-testid="review"][data-id="${b}"]`).waitFor();
    t.true(await reject.isDisabled(), 'nothing selected yet');
    await page.locator(`[data-testid="review"][data-id="${a}"] [data-testid="review-select"]`).check();
    // One topic of b (its only one) reads as the whole review.
    await page.locator(`[data-testid="review"][data-id="${b}"] [data-testid="topic-select"]`).check();
    t.true(await page.locator(`[data-testid="review"][data-id="${b}"] [data-testid="review-select"]`).isChecked());
    t.regex(await reject.innerText(), /Reject selected \(2\)/);
    await reject.click();
    await page.locator('[data-testid="reviews-empty"]').waitFor();
    t.regex((await showTopic(repo, 'team/a.html'))!, /Alpha as it was\./);
    t.regex((await showTopic(repo, 'team/b.html'))!, /Beta as it was\./);
    t.true(await notReloaded(page));
    t.deepEqual(d.incidents, []);
  } finally {
    await closeInbox(d);
  }
});

browserTest(
  'keyboard only: select with Space, decide from the bar; a refused item is shown in its card, the rest goes through',
  async (t) => {
    const { repo, id: merge } = await conflictedMerge();
    const a = await highImpactReview(repo, 'team/a', 'Alpha.');
    const d = await openInbox(repo);
    try {
      const { page } = d;
      await page.locator(`[data-testid="review"][data-id="${merge}"] [data-testid="conflict"]`).first().waitFor();
      await page.locator(`[data-testid="review"][data-id="${a}"]`).waitFor();
      await page.locator('[data-testid="nav-reviews"]').focus();
      // Select all (Space), then take the merge review back out (Space on its checkbox): only team/a is decided.
      await tabTo(page, 'reviews-select-all');
      await page.keyboard.press('Space');
      t.regex(await page.locator('[data-testid="batch-approve"]').innerText(), /Approve selected \(2\)/);
      await tabTo(page, 'review-select', { within: `[data-id="${merge}"]` });
      await page.keyboard.press('Space');
      t.false(await page.locator(`[data-testid="review"][data-id="${merge}"] [data-testid="review-select"]`).isChecked());
      t.regex(await page.locator('[data-testid="batch-approve"]').innerText(), /Approve selected \(1\)/);
      // Back up to the sticky bar's button.
      await tabTo(page, 'batch-approve', { back: true });
      await page.keyboard.press('Enter');
      await page.locator(`[data-testid="review"][data-id="${a}"]`).waitFor({ state: 'detached' });
      t.regex(await page.locator('[data-testid="batch-result"]').innerText(), /1 review approved/);
      t.regex((await showTopic(repo, 'team/a.html'))!, /Alpha\./);

      // The merge review still has conflicts: approving it in a batch is refused, and the refusal shows in its card.
      await tabTo(page, 'review-select', { within: `[data-id="${merge}"]` });
      await page.keyboard.press('Space');
      await tabTo(page, 'batch-approve', { back: true });
      await page.keyboard.press('Enter');
      const failure = page.locator(`[data-testid="review"][data-id="${merge}"] [data-testid="batch-failure"]`);
      await failure.waitFor();
      t.regex(await failure.innerText(), /unresolved-conflicts/);
      t.regex(await page.locator('[data-testid="batch-result"]').innerText(), /0 reviews approved, 1 refused/);
      t.true(await page.locator(`[data-testid="review"][data-id="${merge}"] [data-testid="review-select"]`).isChecked(), 'still selected');
      // Resolving in the card takes the refusal away (the focus stays in the card); the review is then approved from the bar.
      await tabTo(page, 'topic-resolve-ours');
      await page.keyboard.press('Enter');
      await failure.waitFor({ state: 'detached' });
      await page.locator(`[data-testid="review"][data-id="${merge}"] [data-testid="review-conflicts"]`).waitFor({ state: 'detached' });
      await page.waitForFunction(
        (id) =>
          (
            globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }
          ).document.activeElement?.getAttribute('data-id') === id,
        merge,
      );
      await tabTo(page, 'batch-approve', { back: true });
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="reviews-empty"]').waitFor();
      t.regex((await showTopic(repo, 'ops/deploy.html'))!, /Ours one\.[\s\S]*Ours two\./);
      t.true(await notReloaded(page));
      t.deepEqual(d.incidents, []);
    } finally {
      await closeInbox(d);
    }
  },
);

browserTest('a hostile conflict side (planted) renders inert: no script runs, no request leaves', async (t) => {
  const { repo, id } = await conflictedMerge();
  await plantHostileConflictSide(repo);
  const d = await openInbox(repo);
  try {
    const { page } = d;
    const ours = page.locator(`[data-testid="review"][data-id="${id}"] [data-testid="conflict-ours"]`).first();
    await ours.waitFor();
    t.regex(await ours.innerText(), /<img src=x onerror=alert\(1\)>/, 'the markup is shown as text');
    for (const element of await page.locator('[data-testid="conflict-ours"] *, [data-testid="conflict-theirs"] *').all())
      await element.hover({ timeout: 200 }).catch(() => {});
    const tags = 'script, iframe, object, embed, style, link, meta, base, form, svg, math';
    t.is(await page.locator(`[data-testid="review"] :is(${tags})`).count(), 0);
    const attributes = await page
      .locator('[data-testid="conflict-ours"] *, [data-testid="conflict-theirs"] *')
      .evaluateAll((elements) =>
        elements.flatMap((e) => Array.from((e as unknown as PageElement).attributes, (a) => `${a.name}=${a.value}`)),
      );
    for (const attribute of attributes)
      t.notRegex(attribute, /^(on|style=|srcdoc=|formaction=)|^(src|href)=\s*(javascript|vbscript|data:text)/i);
    // The stored HTML of a side is text in a <pre>, never markup.
    await page.locator('[data-testid="review"] details summary').first().click();
    t.regex(
      await page.locator('[data-testid="review"] details pre').first().innerText(),
      /<abbr title="&quot;><img src=x onerror=alert\(2\)>">/,
    );
    t.deepEqual(d.incidents, []);
    t.deepEqual(d.foreign, [], 'no request left the dashboard');
  } finally {
    await closeInbox(d);
  }
});
