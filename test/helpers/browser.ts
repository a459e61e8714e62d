import type { TestFn } from 'ava';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * The browser the web dashboard's end-to-end tests drive: Debian's Chromium (`.ci/run` installs the
 * `chromium` package; playwright-core downloads no browser), or the one BRV_CHROMIUM names.
 */
function chromiumPath(): string | undefined {
  const candidates = [process.env.BRV_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((file): file is string => file !== undefined && file !== '' && existsSync(file));
}

/**
 * Whether the browser tests run here: always in CI (a missing browser is a failure there, not a
 * skip); elsewhere only when a Chromium is installed.
 */
export function browserAvailable(): boolean {
  if (chromiumPath()) return true;
  if (process.env.CI) throw new Error('CI must have Chromium for the browser tests: .ci/run installs the Debian package "chromium".');
  return false;
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('No Chromium found (install the Debian package "chromium" or set BRV_CHROMIUM).');
  // As root (CI containers) Chromium refuses to start sandboxed.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath, args, headless: true });
}

/**
 * The element fields the tests read inside the page. The test build has no DOM library (React's
 * types declare empty HTMLElement/SVGElement interfaces), so page callbacks cast to this.
 */
export interface PageElement {
  attributes: ArrayLike<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  scrollTop: number;
  scrollHeight: number;
}

/** A page of the dashboard, watched for what must never happen in it. */
export interface WatchedPage {
  page: Page;
  /** Requests the page made to anything but the dashboard's own origin. */
  foreign: string[];
  /** Dialogs (alert, confirm, prompt) a script opened, errors thrown by page scripts, CSP refusals. */
  incidents: string[];
}

/**
 * A new page (in a context of its own) on the dashboard at `origin`, logged in with `url` (the URL
 * with the session token) and watched: a request leaving the origin, a dialog, a page error, and a
 * Content-Security-Policy refusal (markup that got past the server's sanitiser) are all recorded.
 */
export async function openWatchedPage(
  browser: Browser,
  server: { origin: string; url: string },
  options: { viewport?: { width: number; height: number } } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext(options.viewport ? { viewport: options.viewport } : {});
  const page = await context.newPage();
  const foreign: string[] = [];
  const incidents: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(server.origin) && !request.url().startsWith('data:')) foreign.push(request.url());
  });
  page.on('dialog', (dialog) => {
    incidents.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => incidents.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) incidents.push(`console: ${message.text()}`);
  });
  await page.goto(server.url);
  return { page, foreign, incidents };
}

/**
 * One Chromium for a test file: launched before its tests, closed after them. `browserTest` is
 * `test.serial` where a browser is available (always in CI) and `test.skip` elsewhere.
 */
export function sharedBrowser(test: TestFn): { browserTest: TestFn['serial'] | TestFn['skip']; browser: () => Browser } {
  let browser: Browser | undefined;
  test.before(async () => {
    if (browserAvailable()) browser = await launchBrowser();
  });
  test.after.always(async () => {
    await browser?.close();
  });
  return {
    browserTest: browserAvailable() ? test.serial : test.skip,
    browser: () => {
      if (!browser) throw new Error('The browser is not launched (browserTest runs only where it is).');
      return browser;
    },
  };
}
