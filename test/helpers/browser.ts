import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
