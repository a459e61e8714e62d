import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { startWebServer, type WebServer, type WebServerOptions } from '../../src/web/server.js';
import { put } from '../helpers/knowledge.js';
import { brvJson, makeRepo, tempDir } from '../helpers/repo.js';
import { testService } from '../helpers/service.js';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/** One raw HTTP request on loopback: any Host, any path bytes (no client-side normalisation). */
export function request(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        setHost: false,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Headers of the dashboard page itself: the session cookie, and for mutations its Origin. */
export function session(server: WebServer, mutation = false): Record<string, string> {
  return {
    cookie: `brv_session_${server.port}=${server.secret}`,
    ...(mutation ? { origin: server.origin, 'content-type': 'application/json' } : {}),
  };
}

export const SECRET_FILE_TEXT = 'secret outside the assets folder';

/** A dashboard build stand-in: index.html and assets/app.js, with a file next to (outside) the folder. */
export async function fakeAssets(): Promise<string> {
  const root = await tempDir('brv-web-assets-');
  await writeFile(path.join(root, 'outside.txt'), SECRET_FILE_TEXT);
  const dir = path.join(root, 'web');
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>brv</title><script src="/assets/app.js"></script>');
  await writeFile(path.join(dir, 'assets', 'app.js'), 'console.log("app")');
  return dir;
}

/** A repository with knowledge: two topics, and a third curated with high impact (an open review). */
export async function knowledgeRepo(): Promise<{ repo: string; review: string }> {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  await put(repo, 'security/auth', '<bv-rule severity="must">Rotate the signing keys every month.</bv-rule>', { title: 'Auth keys' });
  await put(repo, 'ops/deploy', '<bv-reason>Deploys go through the blue green switch.</bv-reason>', { title: 'Deploying' });
  const data = await put(repo, 'ops/cache', '<bv-rule>Flush the zebra cache after deploys.</bv-rule>', {
    title: 'Cache',
    meta: { impact: 'high', reason: 'flushes data' },
  });
  return { repo, review: data.review?.id ?? data.reviewId };
}

export async function startFor(repo: string, options: Partial<WebServerOptions> = {}): Promise<WebServer> {
  return startWebServer({
    service: testService,
    launchDir: repo,
    port: 0,
    secret: 'test-secret',
    assetsDir: await fakeAssets(),
    ...options,
  });
}

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** A live `/api/events` reader: every event parsed as it arrives. */
export interface SseStream {
  status: number;
  events: SseEvent[];
  comments: string[];
  ended: Promise<void>;
  /** Resolves once `count` events arrived (rejects after `ms`). */
  next(count: number, ms?: number): Promise<SseEvent[]>;
  close(): void;
}

export function openEvents(port: number, options: { path?: string; headers?: Record<string, string> } = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port,
        path: options.path ?? '/api/events',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        agent: false,
      },
      (res) => {
        const events: SseEvent[] = [];
        const comments: string[] = [];
        let buffer = '';
        const waiters = new Set<() => void>();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            const event: SseEvent = { id: undefined, event: 'message', data: '' };
            let isEvent = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line);
              else if (line.startsWith('id: ')) event.id = line.slice(4);
              else if (line.startsWith('event: ')) ((event.event = line.slice(7)), (isEvent = true));
              else if (line.startsWith('data: ')) ((event.data = line.slice(6)), (isEvent = true));
            }
            if (isEvent) events.push(event);
          }
          for (const wake of [...waiters]) wake();
        });
        const ended = new Promise<void>((done) => {
          res.on('end', done);
          res.on('close', done);
          res.on('error', () => done());
        });
        resolve({
          status: res.statusCode ?? 0,
          events,
          comments,
          ended,
          next: (count, ms = 10_000) =>
            new Promise((ok, fail) => {
              const check = () => {
                if (events.length < count) return;
                waiters.delete(check);
                clearTimeout(timer);
                ok(events.slice(0, count));
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`only ${events.length} of ${count} events after ${ms} ms: ${JSON.stringify(events)}`));
              }, ms);
              waiters.add(check);
              check();
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
  });
}
