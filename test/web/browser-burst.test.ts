// A burst of ref moves against the dashboard in headless Chromium: hundreds of moves of the brv branch in about a
// second (as a script or a busy sync makes them) leave the page with the final state — every topic once, none of
// the states it passed through — after a bounded number of reloads and with one notice.
import test from 'ava';
import { execa } from 'execa';
import { startWebServer } from '../../src/web/server.js';
import { openWatchedPage, sharedBrowser } from '../helpers/browser.js';
import { plantTree } from '../helpers/plant.js';
import { brvJson, cleanup, ENV, makeRepo } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';

const { browserTest, browser } = sharedBrowser(test);

const topic = (path: string) => `<bv-topic path="${path}" title="${path}"><bv-rule>Text of ${path}.</bv-rule></bv-topic>\n`;

/** Commits with 1 … n topics under burst/ (and one with a renamed set), planted with plumbing. */
async function states(repo: string, n: number): Promise<string[]> {
  const commits: string[] = [];
  for (let i = 1; i <= n; i++) {
    const files: Record<string, string> = {};
    for (let j = 0; j < i; j++) files[`burst/t${j}.html`] = topic(`burst/t${j}`);
    commits.push(await plantTree(repo, files));
  }
  return commits;
}

browserTest('500 moves of the brv branch in about a second: a bounded number of reloads, one notice, and the final tree', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const commits = await states(repo, 8);
  const server = await startWebServer({ service: testService, launchDir: repo, port: 0 });
  const watched = await openWatchedPage(browser(), server);
  try {
    const { page } = watched;
    await page.goto(`${server.origin}/knowledge`);
    await page.locator('[data-testid="tree-topic"][data-path="burst/t7"]').waitFor();
    let treeReads = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/tree') treeReads++;
    });
    // One git process, one transaction per move: 500 ref moves through states of 1 to 8 topics, ending at 3.
    const final = commits[2]!;
    const moves = Array.from({ length: 499 }, (_, i) => commits[(i * 5) % commits.length]!).concat(final);
    const mover = execa('git', ['update-ref', '--stdin'], { cwd: repo, env: ENV, extendEnv: false, stdin: 'pipe' });
    const started = Date.now();
    for (const [i, commit] of moves.entries()) {
      mover.stdin!.write(`start\nupdate refs/brv/heads/main ${commit}\ncommit\n`);
      if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    mover.stdin!.end();
    await mover;
    const elapsed = Date.now() - started;

    // The final state: burst/t0 … t2, each once, nothing of the states in between.
    const rows = page.locator('[data-testid="tree-topic"]');
    const shown = () =>
      rows.evaluateAll((elements) => elements.map((e) => (e as unknown as { getAttribute(n: string): string }).getAttribute('data-path')));
    const reached = await page
      .waitForFunction(
        () =>
          (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll(
            '[data-testid="tree-topic"]',
          ).length === 3,
        undefined,
        { timeout: 5000 },
      )
      .then(
        () => true,
        () => false,
      );
    t.true(reached, `the final state shows within 5 s; the page shows ${JSON.stringify(await shown())}`);
    // One notice for the burst (shown for 6 s after its last refresh).
    const notice = await page.locator('[data-testid="live-notice"]').textContent({ timeout: 1000 });
    t.regex(notice ?? '', /Knowledge changed on main/);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // anything still to come has come
    t.deepEqual(await shown(), ['burst/t0', 'burst/t1', 'burst/t2']);
    // Reloads: at most one a second while the burst lasts and one after it, each reading a few pages.
    t.true(treeReads <= 4 * (Math.ceil(elapsed / 1000) + 3), `${treeReads} tree reads for a burst of ${elapsed} ms`);
    t.deepEqual(watched.incidents, []);
  } finally {
    await watched.page.context().close();
    await server.close();
    await cleanup(repo);
  }
});
