/**
 * bench/webui: a real `brv webui` process over a tree of N synthetic topics, on loopback.
 *   - search: `GET /api/search` round trips for the bench questions (the server answers from a warm
 *     index: the "search response ≤ 50 ms server side"), p50/p95;
 *   - page: the dashboard opened in headless Chromium until the knowledge tree shows its first topic
 *     (first page load to interactive), p50 over fresh browser contexts;
 *   - tree: `GET /api/tree` one level at a time — the first answer (the folder index built from the
 *     catalog), then the root and pages of the largest folder (a different page each time, so the
 *     server's shared answers do not hide the work), p50/p95; and in the browser, expanding that folder
 *     until its first topic row shows;
 *   - load: `--clients` (1,000) event-stream clients held open while `--rps` (200) API requests a second
 *     run for `--seconds` (30), then one curate that every stream must receive; errors, latencies and
 *     the server's peak RSS (from /proc).
 * Usage: npm run build && node --import tsx bench/webui.ts [--topics 10000 --clients 1000 --rps 200 --seconds 30 --runs 30]
 *   [--repo DIR]: prepare the repository in DIR once and keep it (100,000 topics take minutes to import);
 *   a DIR that already holds one is used as it is.
 * Writes bench/results/webui.json.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticQuestions, syntheticTopic, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const topics = Number(argValue('topics', '10000'));
const clients = Number(argValue('clients', '1000'));
const rps = Number(argValue('rps', '200'));
const seconds = Number(argValue('seconds', '30'));
const runs = Number(argValue('runs', '30'));

const kept = argValue('repo', '');

/** Clicks folder FOLDER and resolves with the milliseconds until a row of its topics is in the DOM. */
const EXPAND_IN_PAGE = `new Promise((resolve) => {
  const selector = '[data-testid="tree-topic"][data-path^="' + FOLDER + '/"]';
  const start = performance.now();
  document.querySelector('[data-testid="tree-folder"][data-path="' + FOLDER + '"]').click();
  if (document.querySelector(selector)) return resolve(performance.now() - start);
  const observer = new MutationObserver(() => {
    if (!document.querySelector(selector)) return;
    observer.disconnect();
    resolve(performance.now() - start);
  });
  observer.observe(document.body, { childList: true, subtree: true });
})`;

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-webui-'));
const repo = kept ? path.resolve(kept) : path.join(work, 'repo');
let server: ResultPromise | undefined;
try {
  if (!kept || !existsSync(path.join(repo, '.git'))) {
    await mkdir(repo, { recursive: true });
    await execa('git', ['init', '-q', repo], { env: BENCH_ENV });
    await writeSyntheticTopics(path.join(work, 'topics'), topics);
    await execa('node', [CLI, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: repo, env: BENCH_ENV });
    await execa('node', [CLI, 'query', 'warm up', '--format', 'json'], { cwd: repo, env: { ...BENCH_ENV, BRV_NO_AUTO_MAINTENANCE: '1' } });
    console.error(`prepared ${topics} topics`);
  }

  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  server = execa('node', [CLI, 'webui', '--port', String(port), '--format', 'json'], { cwd: repo, env: BENCH_ENV, buffer: false });
  const started = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    let out = '';
    server!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.trim().startsWith('{'));
      if (line) resolve(JSON.parse(line).data ?? JSON.parse(line));
    });
    server!.catch(reject);
  });
  const url = new URL(started.url);
  const secret = url.searchParams.get('token')!;
  const origin = url.origin;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const headers = { authorization: `Bearer ${secret}` };
  const get = (pathname: string) =>
    new Promise<{ status: number; ms: number }>((resolve, reject) => {
      const start = process.hrtime.bigint();
      http
        .get(`${origin}${pathname}`, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
        })
        .on('error', reject);
    });
  const rss = async () => {
    const status = await readFile(`/proc/${server!.pid}/status`, 'utf8').catch(() => '');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  };

  // Search as you type: the server answers from its warm index.
  const questions = syntheticQuestions(topics, runs + 1);
  await get(`/api/search?q=${encodeURIComponent(questions[0]!)}`);
  const search: number[] = [];
  for (const q of questions.slice(1)) {
    const answer = await get(`/api/search?q=${encodeURIComponent(q)}&limit=20`);
    if (answer.status !== 200) throw new Error(`search answered ${answer.status}`);
    search.push(answer.ms);
  }

  // The tree one level at a time: the first answer builds the folder index, the others read it.
  const treeCold = await get('/api/tree');
  if (treeCold.status !== 200) throw new Error(`tree answered ${treeCold.status}`);
  const rootLevel = await new Promise<{ folders: Array<{ path: string; count: number }> }>((resolve, reject) => {
    http
      .get(`${origin}/api/tree`, { agent, headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(body)));
      })
      .on('error', reject);
  });
  const largest = [...rootLevel.folders].sort((a, b) => b.count - a.count)[0]!;
  const treeRoot: number[] = [];
  const treePage: number[] = [];
  for (let i = 0; i < runs; i++) {
    treeRoot.push((await get(`/api/tree?limit=${200 + i}`)).ms);
    const offset = Math.floor((i / runs) * largest.count);
    const answer = await get(`/api/tree?folder=${encodeURIComponent(largest.path)}&offset=${offset}&limit=200`);
    if (answer.status !== 200) throw new Error(`tree page answered ${answer.status}`);
    treePage.push(answer.ms);
  }

  // First page load until the tree shows a topic, in fresh contexts of one browser; then the largest folder expanded.
  let page: ReturnType<typeof percentiles> | undefined;
  let expand: ReturnType<typeof percentiles> | undefined;
  try {
    const { launchBrowser } = await import('../test/helpers/browser.js');
    const browser = await launchBrowser();
    const loads: number[] = [];
    const expands: number[] = [];
    for (let i = 0; i < 5; i++) {
      const context = await browser.newContext();
      const tab = await context.newPage();
      const start = performance.now();
      await tab.goto(started.url);
      await tab.locator('[data-testid="tree-topic"], [data-testid="tree-folder"]').first().waitFor();
      loads.push(performance.now() - start);
      // Measured in the page: from the click to the first row of the folder's topics in the DOM (a script
      // string: the bench's own functions are compiled with helpers the page does not have).
      // Once the page's own first requests are answered (at 100,000 topics /api/status lists every file).
      await tab.waitForTimeout(1500);
      expands.push(Number(await tab.evaluate(EXPAND_IN_PAGE.replaceAll('FOLDER', JSON.stringify(largest.path)))));
      await context.close();
    }
    await browser.close();
    page = percentiles(loads);
    expand = percentiles(expands);
  } catch (error) {
    console.error(`page load not measured: ${(error as Error).message}`);
  }

  // Load: event streams held open while API requests run at a steady rate.
  const received = new Array<number>(clients).fill(0);
  const streams: http.ClientRequest[] = [];
  let streamErrors = 0;
  await Promise.all(
    Array.from(
      { length: clients },
      (_, i) =>
        new Promise<void>((resolve) => {
          const request = http.get(`${origin}/api/events`, { agent, headers }, (res) => {
            if (res.statusCode !== 200) streamErrors++;
            res.on('data', (chunk: Buffer) => {
              received[i]! += (chunk.toString().match(/^event: change$/gm) ?? []).length;
            });
            res.on('error', () => streamErrors++);
            resolve();
          });
          request.on('error', () => {
            streamErrors++;
            resolve();
          });
          streams.push(request);
        }),
    ),
  );
  const paths = ['/api/status', `/api/search?q=${encodeURIComponent(questions[1]!)}`, '/api/changes?limit=20', '/api/reviews'];
  const latencies: number[] = [];
  let errors = 0;
  let peakRss = await rss();
  const pending: Array<Promise<void>> = [];
  const deadline = performance.now() + seconds * 1000;
  for (let n = 0; performance.now() < deadline; n++) {
    const due = n * (1000 / rps);
    const wait = due - (performance.now() - (deadline - seconds * 1000));
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      get(paths[n % paths.length]!).then(
        (r) => {
          if (r.status !== 200) errors++;
          latencies.push(r.ms);
        },
        () => {
          errors++;
        },
      ),
    );
    if (n % rps === 0) peakRss = Math.max(peakRss, await rss());
  }
  await Promise.all(pending);
  peakRss = Math.max(peakRss, await rss());
  // One change: every stream must receive it.
  // A new topic each run (a kept repository already holds the previous runs' ones): the curate must change something.
  const html = syntheticTopic(topics + 1 + (kept ? Date.now() % 1_000_000 : 0)).html;
  const kickoff = JSON.parse((await execa('node', [CLI, 'curate', 'bench', '--format', 'json'], { cwd: repo, env: BENCH_ENV })).stdout).data
    .sessionId;
  const curatedAt = performance.now();
  await execa('node', [CLI, 'curate', '--session', kickoff, '--response', JSON.stringify({ html }), '--format', 'json'], {
    cwd: repo,
    env: BENCH_ENV,
  });
  while (received.some((count) => count === 0) && performance.now() - curatedAt < 20_000) await new Promise((r) => setTimeout(r, 50));
  const reachedMs = Math.round(performance.now() - curatedAt);
  for (const stream of streams) stream.destroy();
  agent.destroy();

  const result = {
    topics,
    search: percentiles(search),
    pageLoad: page,
    tree: {
      largestFolder: largest,
      firstAnswerMs: Math.round(treeCold.ms),
      root: percentiles(treeRoot),
      largestFolderPage: percentiles(treePage),
      expandInBrowser: expand,
    },
    load: {
      clients,
      streamErrors,
      rps,
      seconds,
      requests: latencies.length + errors,
      errors,
      latency: percentiles(latencies),
      serverPeakRssMiB: peakRss,
      eventReached: received.filter((c) => c > 0).length,
      eventReachedAllWithinMs: received.every((c) => c > 0) ? reachedMs : undefined,
    },
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(`wrote ${await writeReport('webui', result)}`);
} finally {
  server?.kill('SIGTERM');
  await server?.catch(() => {});
  await rm(work, { recursive: true, force: true });
  if (kept) console.error(`kept the repository in ${repo}`);
}
