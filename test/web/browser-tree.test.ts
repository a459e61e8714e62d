// The knowledge tree at scale, end to end in headless Chromium: 20,000 topics in one folder stay a bounded
// number of DOM rows, load page by page as they scroll into view, move by keyboard, open from a deep URL;
// a knowledge source is browsed beside local knowledge and its topics open read-only.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { browserAvailable, launchBrowser, openWatchedPage, type PageElement, type WatchedPage } from '../helpers/browser.js';
import { plantBulk, plantTree } from '../helpers/plant.js';
import { brvJson, cleanup, makeRepo } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';

const browserTest = browserAvailable() ? test.serial : test.skip;

const BIG = 20_000;
const name = (i: number) => `t${String(i).padStart(5, '0')}`;
const topic = (path: string, title: string, body = 'Some text.') =>
  `<bv-topic path="${path}" title="${title}"><bv-rule>${body}</bv-rule></bv-topic>\n`;

let browser: Browser | undefined;
let repo: string | undefined;
let other: string | undefined;
let server: WebServer | undefined;
const watchedPages: WatchedPage[] = [];
/** What went wrong on any page this file opened: incidents, and requests that left the dashboard. */
const incidents = () => watchedPages.flatMap((w) => [...w.incidents, ...w.foreign.map((url) => `request: ${url}`)]);

test.before(async () => {
  if (!browserAvailable()) return;
  [repo, other] = await Promise.all([makeRepo(), makeRepo()]);
  await plantBulk(repo, [
    ...Array.from({ length: BIG }, (_, i): [string, string] => [`big/${name(i)}.html`, topic(`big/${name(i)}`, `Big ${i}`)]),
    ['alpha/one.html', topic('alpha/one', 'Alpha one')],
    ['alpha/two.html', topic('alpha/two', 'Alpha two')],
    ['deep/a/b/c/leaf.html', topic('deep/a/b/c/leaf', 'Deep leaf')],
  ]);
  await plantTree(other, {
    'platform/logging.html': topic('platform/logging', 'Logging', 'Log zeppelin JSON lines.'),
    'platform/evil.html':
      '<bv-topic path="platform/evil" title="Evil"><bv-reason>Hostile <script>alert(1)</script>' +
      '<img src="https://tracker.example/p.png" alt="t" onerror="alert(1)"></bv-reason></bv-topic>',
  });
  const added = await brvJson(repo, ['source', 'add', other, '--alias', 'platform']);
  if (!added.json?.success) throw new Error(`source add: ${added.stdout} ${added.stderr}`);
  [browser, server] = await Promise.all([launchBrowser(), startWebServer({ service: testService, launchDir: repo, port: 0 })]);
});
test.after.always(async () => {
  await browser?.close();
  await server?.close();
  await cleanup(...[repo, other].filter((d): d is string => d !== undefined));
});

async function open(path = '/'): Promise<Page> {
  // The rows are placed through the CSSOM (allowed by the strict CSP); a refused style attribute would show as an incident.
  const watched = await openWatchedPage(browser!, server!, { viewport: { width: 1200, height: 800 } });
  const { page } = watched;
  watchedPages.push(watched);
  if (path !== '/') await page.goto(`${server!.origin}${path}`);
  return page;
}

/** The DOM, as the page's functions see it (this file is typed without the DOM library). */
type Doc = { document: { activeElement: { getAttribute(name: string): string | null } | null } };

const items = (page: Page) => page.locator('[role="treeitem"]').count();
/** The data-path of the focused element, once it is `expected` (or whatever it is after 5 s). */
async function focusedPath(page: Page, expected: string): Promise<string | null> {
  const read = () => page.evaluate(() => (globalThis as unknown as Doc).document.activeElement?.getAttribute('data-path') ?? null);
  await page
    .waitForFunction((p) => (globalThis as unknown as Doc).document.activeElement?.getAttribute('data-path') === p, expected, {
      timeout: 5000,
    })
    .catch(() => {});
  return read();
}

browserTest('a folder of 20,000 topics: a bounded number of rows in the DOM; scrolled to the bottom, its last topic shows', async (t) => {
  const page = await open();
  try {
    await page.locator('[data-testid="tree-folder"][data-path="big"]').click();
    await page.locator('[data-testid="tree-topic"][data-path="big/t00000"]').waitFor();
    t.is(await page.locator('[data-testid="tree-folder"][data-path="big"]').getAttribute('aria-expanded'), 'true');
    t.true((await items(page)) < 200, `${await items(page)} treeitems`);
    await page
      .locator('[data-testid="tree"]')
      .evaluate((tree) => ((tree as unknown as PageElement).scrollTop = (tree as unknown as PageElement).scrollHeight));
    const last = page.locator('[data-testid="tree-topic"][data-path="big/t19999"]');
    await last.waitFor();
    t.true(await last.isVisible());
    t.is(await last.getAttribute('aria-posinset'), String(BIG));
    t.is(await last.getAttribute('aria-setsize'), String(BIG));
    t.true((await items(page)) < 200, `${await items(page)} treeitems after scrolling`);
    t.is(await page.locator('[data-testid="tree-topic"][data-path="big/t00000"]').count(), 0, 'rows scrolled away leave the DOM');
    await last.click();
    await page.locator('[data-testid="topic-title"]', { hasText: 'Big 19999' }).waitFor();
    t.deepEqual(incidents(), []);
  } finally {
    await page.context().close();
  }
});

browserTest('keyboard: ↓ ↑ move, → opens and enters, Enter opens a topic, ← goes to the folder and closes it, Home/End', async (t) => {
  const page = await open();
  try {
    const alpha = page.locator('[data-testid="tree-folder"][data-path="alpha"]');
    await alpha.focus();
    t.is(await alpha.getAttribute('tabindex'), '0', 'the focused row holds the tab stop');
    await page.keyboard.press('ArrowDown');
    t.is(await focusedPath(page, 'big'), 'big');
    await page.keyboard.press('ArrowUp');
    t.is(await focusedPath(page, 'alpha'), 'alpha');
    await page.keyboard.press('ArrowRight');
    await page.locator('[data-testid="tree-topic"][data-path="alpha/one"]').waitFor();
    t.is(await alpha.getAttribute('aria-expanded'), 'true');
    await page.keyboard.press('ArrowRight');
    t.is(await focusedPath(page, 'alpha/one'), 'alpha/one');
    await page.keyboard.press('ArrowDown');
    t.is(await focusedPath(page, 'alpha/two'), 'alpha/two');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/knowledge\/alpha\/two$/);
    await page.locator('[data-testid="topic-title"]', { hasText: 'Alpha two' }).waitFor();
    await page.locator('[data-testid="tree-topic"][data-path="alpha/two"]').focus();
    await page.keyboard.press('ArrowLeft');
    t.is(await focusedPath(page, 'alpha'), 'alpha');
    await page.keyboard.press('ArrowLeft');
    t.is(await alpha.getAttribute('aria-expanded'), 'false');
    await page.keyboard.press('End');
    await page
      .waitForFunction(() => (globalThis as unknown as Doc).document.activeElement?.getAttribute('data-source') === 'platform', undefined, {
        timeout: 5000,
      })
      .catch(() => {});
    t.is(
      await page.evaluate(() => (globalThis as unknown as Doc).document.activeElement?.getAttribute('data-source')),
      'platform',
      'the last row: the source',
    );
    await page.keyboard.press('Home');
    t.is(await focusedPath(page, 'alpha'), 'alpha');
    t.is(await page.locator('[role="tree"] [tabindex="0"]').count(), 1, 'one tab stop (roving tabindex)');
  } finally {
    await page.context().close();
  }
});

browserTest('a deep topic URL opens with its folders expanded and its row scrolled into view', async (t) => {
  const page = await open('/knowledge/big/t15000');
  try {
    const row = page.locator('[data-testid="tree-topic"][data-path="big/t15000"]');
    await row.waitFor();
    t.true(await row.isVisible());
    t.is(await row.getAttribute('aria-current'), 'page');
    await page.goto(`${server!.origin}/knowledge/deep/a/b/c/leaf`);
    await page.locator('[data-testid="tree-topic"][data-path="deep/a/b/c/leaf"]').waitFor();
    for (const folder of ['deep', 'deep/a', 'deep/a/b', 'deep/a/b/c'])
      t.is(await page.locator(`[data-testid="tree-folder"][data-path="${folder}"]`).getAttribute('aria-expanded'), 'true', folder);
    t.is(await page.locator('[data-testid="tree-folder"][data-path="big"]').getAttribute('aria-expanded'), 'false');
  } finally {
    await page.context().close();
  }
});

browserTest(
  'a knowledge source: its own read-only node; its topic opens with Rendered/Raw only, no Edit, inert; search links to it',
  async (t) => {
    const page = await open();
    try {
      const node = page.locator('[data-testid="tree-source"][data-source="platform"]');
      await node.waitFor();
      t.regex(await node.innerText(), /platform[\s\S]*read-only[\s\S]*2/);
      await node.click();
      await page.locator('[data-testid="tree-folder"][data-source="platform"][data-path="platform"]').click();
      await page.locator('[data-testid="tree-topic"][data-source="platform"][data-path="platform/evil"]').click();
      await page.waitForURL(/\/knowledge\/platform\/evil\?source=platform$/);
      await page.locator('[data-testid="topic-title"]', { hasText: 'Evil' }).waitFor();
      t.regex(await page.locator('[data-testid="topic-readonly"]').innerText(), /from knowledge source platform/i);
      t.is(await page.locator('[data-testid="topic-edit"]').count(), 0);
      t.is(await page.locator('[data-testid="tab-history"]').count(), 0);
      t.regex(await page.locator('[data-testid="topic-body"]').innerText(), /Hostile/);
      t.is(await page.locator('[data-testid="topic-body"] script, [data-testid="topic-body"] img[onerror]').count(), 0);
      await page.locator('[data-testid="tab-raw"]').click();
      t.regex(await page.locator('[data-testid="topic-raw"]').innerText(), /<script>alert\(1\)<\/script>/);

      await page.locator('[data-testid="nav-search"]').click();
      await page.locator('[data-testid="search-input"]').fill('zeppelin');
      const result = page.locator('[data-testid="search-result"][data-path="platform/logging"]');
      await result.waitFor();
      await result.click();
      await page.waitForURL(/\/knowledge\/platform\/logging\?source=platform$/);
      await page.locator('[data-testid="topic-readonly"]').waitFor();
      await page.locator('[data-testid="tree-topic"][data-source="platform"][data-path="platform/logging"][aria-current="page"]').waitFor();
      t.deepEqual(incidents(), []);
    } finally {
      await page.context().close();
    }
  },
);

browserTest('live: a change reloads the loaded folders in place, keeping what is expanded and where the tree is scrolled', async (t) => {
  const page = await open();
  try {
    await page.locator('[data-testid="tree-folder"][data-path="alpha"]').click();
    await page.locator('[data-testid="tree-topic"][data-path="alpha/two"]').waitFor();
    await page.locator('[data-testid="tree-folder"][data-path="big"]').click();
    await page.locator('[data-testid="tree-topic"][data-path="big/t00000"]').waitFor();
    const tree = page.locator('[data-testid="tree"]');
    await tree.evaluate((element) => ((element as unknown as PageElement).scrollTop = 26 * 5000));
    await page.locator('[data-testid="tree-topic"][data-path="big/t05000"]').waitFor();
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1));
    // Another process commits (as a push or an agent would): the tree follows without a reload. (Titled to sort first.)
    await plantBulk(repo!, [['big/s-new.html', topic('big/s-new', 'A newcomer')]]);
    await page.locator('[data-testid="live-notice"]').waitFor({ timeout: 10_000 });
    // The big folder has one more child: the rows in view say so (aria-setsize), where they were.
    await page.locator(`[data-testid="tree-topic"][data-path="big/t05000"][aria-setsize="${BIG + 1}"]`).waitFor({ timeout: 10_000 });
    t.is(await tree.evaluate((element) => (element as unknown as PageElement).scrollTop), 26 * 5000, 'the scroll position is kept');
    await tree.evaluate((element) => ((element as unknown as PageElement).scrollTop = 0));
    await page.locator('[data-testid="tree-topic"][data-path="big/s-new"]').waitFor();
    t.is(await page.locator('[data-testid="tree-folder"][data-path="alpha"]').getAttribute('aria-expanded'), 'true');
    t.is(await page.locator('[data-testid="tree-folder"][data-path="big"]').getAttribute('aria-expanded'), 'true');
    t.is(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker), 1, 'the page was not reloaded');
  } finally {
    await page.context().close();
  }
});
