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
    cookie: `brv_session=${server.secret}`,
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
