// The dashboard on a phone (390×844) and a laptop (1280×800), measured in headless Chromium: the tree never covers
// the topic, every page of the nav is in view and answers a click; the knowledge graph walks both ways (related
// topics, backlinks); the tree is in the order it reads; the first load asks for nothing twice; and a restarted
// `brv webui` takes its open tabs back.
import test from 'ava';
import type { Page } from 'playwright-core';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { openWatchedPage, sharedBrowser, type PageElement, type WatchedPage } from '../helpers/browser.js';
import { plantTree } from '../helpers/plant.js';
import { cleanup, makeRepo } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';

const { browserTest, browser } = sharedBrowser(test);

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };
const PAGES = ['knowledge', 'search', 'changes', 'reviews', 'branches', 'setup'];

const topic = (path: string, title: string, body: string, related?: string) =>
  `<bv-topic path="${path}" title="${title}"${related ? ` related="${related}"` : ''}>${body}</bv-topic>\n`;

let repo: string | undefined;
let server: WebServer | undefined;
const watched: WatchedPage[] = [];

test.before(async () => {
  repo = await makeRepo();
  const files: Record<string, string> = {
    'security/jwt.html': topic(
      'security/jwt',
      'JWT tokens',
      '<bv-rule severity="must">Tokens expire after 15 minutes.</bv-rule>' +
        '<bv-files><li>src/auth/jwt.ts (the signer)</li><li><code>src/auth/keys.ts</code></li></bv-files>' +
        '<bv-diagram type="ascii">client\n  |\n  v\nserver</bv-diagram>',
      '@security/cookies.html, @ops',
    ),
    'security/cookies.html': topic('security/cookies', 'Session cookies', '<bv-rule>HttpOnly, SameSite=Strict.</bv-rule>'),
    'ops/deploy.html': topic('ops/deploy', 'Deploys', '<bv-rule>Blue-green switches.</bv-rule>', '@security/jwt'),
    // Slugs in one order, titles in another: the tree lists what it shows, by title.
    'people/a-zed.html': topic('people/a-zed', 'Zed the reviewer', '<bv-rule>Reviews on Fridays.</bv-rule>'),
    'people/b-alpha.html': topic('people/b-alpha', 'Alpha the author', '<bv-rule>Writes the RFCs.</bv-rule>'),
  };
  // Enough topics that the tree is taller than a phone's screen.
  for (let i = 0; i < 40; i++) files[`notes/n${i}.html`] = topic(`notes/n${i}`, `Note ${i}`, `<bv-rule>Note ${i}.</bv-rule>`);
  await plantTree(repo, files);
  server = await startWebServer({ service: testService, launchDir: repo, port: 0 });
});
test.after.always(async () => {
  await server?.close();
  if (repo) await cleanup(repo);
});

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const page = await openWatchedPage(browser(), server!, { viewport });
  watched.push(page);
  return page.page;
}

const incidents = () => watched.flatMap((w) => [...w.incidents, ...w.foreign.map((url) => `request: ${url}`)]);

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not rendered`);
  return found;
}

const overlap = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every nav link lies inside the viewport and is what a click at its centre hits. */
async function navReachable(page: Page, viewport: { width: number; height: number }): Promise<string[]> {
  await page.evaluate('window.scrollTo(0, 0)');
  const problems: string[] = [];
  for (const name of PAGES) {
    const selector = `[data-testid="nav-${name}"]`;
    const b = await box(page, selector);
    if (b.x < 0 || b.y < 0 || b.x + b.width > viewport.width || b.y + b.height > viewport.height)
      problems.push(`${name} outside the viewport: ${JSON.stringify(b)}`);
    const hit = await page.evaluate(
      ([x, y]) => {
        const doc = (
          globalThis as unknown as { document: { elementFromPoint(x: number, y: number): { closest(s: string): unknown } | null } }
        ).document;
        const element = doc.elementFromPoint(x!, y!);
        const link = element?.closest('[data-testid^="nav-"]') as { getAttribute(n: string): string | null } | null | undefined;
        return link?.getAttribute('data-testid') ?? null;
      },
      [b.x + b.width / 2, b.y + b.height / 2],
    );
    if (hit !== `nav-${name}`) problems.push(`a click on ${name} hits ${hit}`);
  }
  return problems;
}

browserTest(
  '390×844: the tree is a drawer above the topic, opaque, never over its text; every nav page in view and clickable',
  async (t) => {
    const page = await open(PHONE);
    await page.goto(`${server!.origin}/knowledge/security/jwt`);
    await page.locator('[data-testid="topic-body"]').waitFor();
    t.deepEqual(await navReachable(page, PHONE), []);
    // The topic is on the first screen: the tree is behind its button.
    t.false(await page.locator('[data-testid="tree-pane"]').isVisible());
    const title = await box(page, '[data-testid="topic-title"]');
    t.true(title.y + title.height < PHONE.height / 2, `the title is at ${title.y}`);
    const toggle = page.locator('[data-testid="tree-toggle"]');
    t.is(await toggle.getAttribute('aria-expanded'), 'false');

    await toggle.click();
    await page.locator('[data-testid="tree-topic"][data-path="security/jwt"]').waitFor();
    t.is(await toggle.getAttribute('aria-expanded'), 'true');
    const pane = await box(page, '[data-testid="tree-pane"]');
    const topicPane = await box(page, '[data-testid="topic-pane"]');
    t.false(overlap(pane, topicPane), `tree ${JSON.stringify(pane)} / topic ${JSON.stringify(topicPane)}`);
    t.true(pane.y + pane.height <= topicPane.y);
    t.true(pane.x >= 0 && pane.x + pane.width <= PHONE.width);
    t.true(pane.height < PHONE.height * 0.7, 'the drawer leaves room for the topic');
    const style = await page.locator('[data-testid="tree-pane"]').evaluate((e) => {
      const s = (globalThis as unknown as { getComputedStyle(e: unknown): { position: string; backgroundColor: string } }).getComputedStyle(
        e,
      );
      return { position: s.position, background: s.backgroundColor };
    });
    t.is(style.position, 'static', 'not sticky: it scrolls away with the page');
    t.regex(style.background, /^rgb\(/, `opaque: ${style.background}`);
    // Scrolled to the topic's end: the tree is not drawn over any of its text.
    await page.evaluate('window.scrollTo(0, 10000)');
    t.false(overlap(await box(page, '[data-testid="tree-pane"]'), await box(page, '[data-testid="topic-body"]')));

    // Choosing a topic closes the drawer and shows it.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.locator('[data-testid="tree-topic"][data-path="security/cookies"]').click();
    await page.locator('[data-testid="topic-title"]', { hasText: 'Session cookies' }).waitFor();
    t.false(await page.locator('[data-testid="tree-pane"]').isVisible());

    // Every page of the nav opens from a phone.
    for (const name of PAGES) {
      await page.locator(`[data-testid="nav-${name}"]`).click();
      await page.waitForURL(new RegExp(`/${name}`));
    }
    t.deepEqual(incidents(), []);
  },
);

browserTest('1280×800: the tree beside the topic, both in view, apart however far the page scrolls; every nav page in view', async (t) => {
  const page = await open(LAPTOP);
  await page.goto(`${server!.origin}/knowledge/security/jwt`);
  await page.locator('[data-testid="topic-body"]').waitFor();
  await page.locator('[data-testid="tree-topic"][data-path="security/jwt"]').waitFor();
  t.deepEqual(await navReachable(page, LAPTOP), []);
  t.false(await page.locator('[data-testid="tree-toggle"]').isVisible(), 'no drawer button on a wide screen');
  const pane = await box(page, '[data-testid="tree-pane"]');
  const topicPane = await box(page, '[data-testid="topic-pane"]');
  t.false(overlap(pane, topicPane));
  t.true(pane.x + pane.width <= topicPane.x, 'the tree is left of the topic');
  t.true(pane.y < LAPTOP.height && topicPane.y < LAPTOP.height);
  await page.evaluate('window.scrollTo(0, 10000)');
  t.false(overlap(await box(page, '[data-testid="tree-pane"]'), await box(page, '[data-testid="topic-body"]')));
  t.deepEqual(incidents(), []);
});

browserTest(
  'the knowledge graph walks both ways: related topics and backlinks are links; diagrams keep their lines; files are code',
  async (t) => {
    const page = await open(LAPTOP);
    await page.goto(`${server!.origin}/knowledge/security/jwt`);
    const body = page.locator('[data-testid="topic-body"]');
    await body.waitFor();
    t.is(await body.locator('.bv-diagram pre').innerText(), 'client\n  |\n  v\nserver');
    t.deepEqual(await body.locator('.bv-files li code').allInnerTexts(), ['src/auth/jwt.ts', 'src/auth/keys.ts']);
    t.regex(await body.locator('.bv-files li').first().innerText(), /^src\/auth\/jwt\.ts \(the signer\)$/);
    t.is(await body.locator('.bv-files a').count(), 0, 'a project file is no link');

    const related = page.locator('[data-testid="related-link"]');
    await related.first().waitFor();
    t.deepEqual(await related.evaluateAll((links) => links.map((l) => (l as unknown as PageElement).getAttribute('data-path'))), [
      'security/cookies',
      'ops',
    ]);
    t.is(await page.locator('[data-testid="backlink"]').innerText(), 'Deploys');
    // Walk: to the related topic and back through the backlink of another.
    await related.first().click();
    await page.locator('[data-testid="topic-title"]', { hasText: 'Session cookies' }).waitFor();
    await page.goto(`${server!.origin}/knowledge/ops/deploy`);
    await page.locator('[data-testid="related-link"][data-path="security/jwt"]').click();
    await page.waitForURL(/\/knowledge\/security\/jwt$/);
    await page.locator('[data-testid="backlink"][data-path="ops/deploy"]').click();
    await page.locator('[data-testid="topic-title"]', { hasText: 'Deploys' }).waitFor();
    t.deepEqual(incidents(), []);
  },
);

browserTest('the tree lists topics by the titles it shows (numbers in order), not by their slugs', async (t) => {
  const page = await open(LAPTOP);
  const shown = async (folder: string) =>
    page
      .locator(`[data-testid="tree-topic"][data-path^="${folder}/"]`)
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { textContent: string }).textContent.trim()));
  // Each folder as the tree shows it with one of its topics open (the tree scrolls to it).
  await page.goto(`${server!.origin}/knowledge/people/a-zed`);
  await page.locator('[data-testid="tree-topic"][data-path="people/a-zed"]').waitFor();
  t.deepEqual(await shown('people'), ['Alpha the author', 'Zed the reviewer']);
  await page.goto(`${server!.origin}/knowledge/notes/n0`);
  await page.locator('[data-testid="tree-topic"][data-path="notes/n0"]').waitFor();
  const notes = await shown('notes');
  t.deepEqual(notes.slice(0, 12), [
    'Note 0',
    'Note 1',
    'Note 2',
    'Note 3',
    'Note 4',
    'Note 5',
    'Note 6',
    'Note 7',
    'Note 8',
    'Note 9',
    'Note 10',
    'Note 11',
  ]);
  t.deepEqual(incidents(), []);
});

browserTest('the first load of a topic asks for nothing twice', async (t) => {
  const page = await open(LAPTOP);
  // Logged in (openWatchedPage); settled on the start page first, so only the load below is counted.
  await page.locator('[data-testid="tree-topic"]').first().waitFor();
  await page.waitForLoadState('networkidle');
  const asked: string[] = [];
  page.on('request', (request) => asked.push(request.url().slice(server!.origin.length)));
  await page.goto(`${server!.origin}/knowledge/security/jwt`);
  await page.locator('[data-testid="topic-body"]').waitFor();
  await page.locator('[data-testid="related-link"]').first().waitFor();
  await page.waitForLoadState('networkidle');
  const api = asked.filter((url) => url.startsWith('/api/'));
  const twice = api.filter((url, i) => api.indexOf(url) !== i);
  t.deepEqual(twice, [], asked.join('\n'));
  // One tree request per folder: the page holding the open topic serves as its folder's first page.
  const folders = api.filter((url) => url.startsWith('/api/tree')).map((url) => new URLSearchParams(url.split('?')[1]).get('folder') ?? '');
  t.deepEqual([...folders].sort(), ['', 'notes', 'ops', 'people', 'security'], asked.join('\n'));
  t.true(asked.length <= 14, `${asked.length} requests:\n${asked.join('\n')}`);
  t.deepEqual(incidents(), []);
});

browserTest('a restarted brv webui takes its open tabs back: live again, changes arrive, no new login', async (t) => {
  const own = await makeRepo();
  await plantTree(own, { 'a/one.html': topic('a/one', 'One', '<bv-rule>First.</bv-rule>') });
  let first: WebServer | undefined = await startWebServer({ service: testService, launchDir: own, port: 0 });
  let second: WebServer | undefined;
  try {
    const { port } = first;
    const tab = await openWatchedPage(browser(), first, { viewport: LAPTOP });
    watched.push(tab);
    const live = tab.page.locator('[data-testid="live-state"]');
    await tab.page.locator('[data-testid="tree-topic"][data-path="a/one"]').waitFor();
    await live.filter({ hasText: '● live' }).waitFor();

    await first.close();
    first = undefined;
    await live.filter({ hasText: 'reconnecting' }).waitFor();
    second = await startWebServer({ service: testService, launchDir: own, port, strictPort: true });
    await live.filter({ hasText: '● live' }).waitFor({ timeout: 15_000 });
    // The restarted server's changes reach the tab: its session is still good.
    await plantTree(own, {
      'a/one.html': topic('a/one', 'One', '<bv-rule>First.</bv-rule>'),
      'a/two.html': topic('a/two', 'Two', '<bv-rule>Second.</bv-rule>'),
    });
    await tab.page.locator('[data-testid="tree-topic"][data-path="a/two"]').waitFor({ timeout: 10_000 });
    t.is(new URL(tab.page.url()).pathname, '/knowledge');
    t.deepEqual(incidents(), []);
  } finally {
    await first?.close();
    await second?.close();
    await cleanup(own);
  }
});
