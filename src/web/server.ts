import { realpath, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import FindMyWay from 'find-my-way';
import { BrvError, isBrvError } from '../base/errors.js';
import type { ErrorKind } from '../base/error-kinds.js';
import { brvPackageRoot } from '../base/package-root.js';
import type { RepositoryPool, Subscription } from '../service/repository-pool.js';
import type { BrvService } from '../service/service.js';
import { brvVersion } from '../service/texts.js';
import { EventHub, parseEventId } from './events.js';
import { newSecret, presentedSecret, refuseForeign, sameSecret, sessionCookie, setSecurityHeaders } from './security.js';
import { repositorySecret } from './session-secret.js';
import { errorStatus, HttpError, limitParam, queryString, STREAMED, type Handler, type TypedRoutes } from './request.js';
import { actionRoutes } from './action-routes.js';
import { manageRoutes } from './manage-routes.js';
import { reviewRoutes } from './review-routes.js';
import { topicDisplayHtml } from './topic-html.js';
import { sourceParam, treeRoutes } from './tree-routes.js';
import { renderStoredTopic } from '../topic/stored.js';
import { monotonicNow } from '../base/trace.js';
import { incomingText } from '../views/setup.js';

export interface WebServerOptions {
  service: BrvService;
  /** The directory `brv webui` was started in: its repository (and linked worktrees) is served. */
  launchDir: string;
  /** Default 7700, then the next free port up to +20; 0: any free port (tests). */
  port?: number;
  /** The port was asked for explicitly: taken → `port-in-use` instead of the next one. */
  strictPort?: boolean;
  /** The client's files (index.html, assets/); default `<package root>/dist/web`. */
  assetsDir?: string;
  /** The session secret (tests); default the repository's, kept across restarts (session-secret.ts). */
  secret?: string;
  /** Replace the repository's kept secret with a new one: every browser logs in again (`brv webui --new-token`). */
  newToken?: boolean;
  /** Events kept for replay (default 1,000). */
  eventBuffer?: number;
  /** A live-events client with more unsent bytes is disconnected (default 1 MiB). */
  maxClientBufferBytes?: number;
}

export interface WebServer {
  /** The URL to open, with the session token. */
  url: string;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  secret: string;
  /**
   * A URL that logs a browser in once: `/?login=<nonce>`, a fresh single-use nonce that is exchanged
   * for the session cookie on the first visit within LOGIN_LINK_TTL_MS and is useless after. This is
   * what `--open` hands to the opener, whose command line other local users can read (/proc): the
   * session token itself never goes on a command line.
   */
  oneTimeUrl(): string;
  /** Stops accepting, ends the event streams, closes the repositories. */
  close(): Promise<void>;
}

export const DEFAULT_PORT = 7700;
/** Ports tried after the default one when it is taken. */
const PORT_ATTEMPTS = 20;
const MAX_STATIC_PATH = 1024;
const HOST = '127.0.0.1';
/** How long a one-time login link works (a browser that starts cold takes a few seconds). */
const LOGIN_LINK_TTL_MS = 60_000;
/** One-time links outstanding at most (each `--open` makes one; older ones are dropped first). */
const MAX_LOGIN_LINKS = 16;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

function sendJsonText(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

function sendError(res: ServerResponse, status: number, kind: ErrorKind, message: string): void {
  sendJson(res, status, { error: { kind, message } });
}

const UNAUTHORIZED_PAGE =
  '<!doctype html><meta charset="utf-8"><title>brv webui</title>' +
  '<p>This dashboard needs the session of the <code>brv webui</code> that serves it: open the URL it printed ' +
  '(<code>http://127.0.0.1:…/?token=…</code>).</p>\n';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

const MAX_CHANGES_PER_ENTRY = 100;

/**
 * Answers to API reads, shared while the repository has not changed: every GET answer is a function
 * of the refs (and the worktree's brv branch), so one is reused until the next ref event or for
 * `READ_CACHE_MS` (what no ref event announces, like another worktree's branch switch, shows within
 * that); a change made through this server clears them. Concurrent identical reads share one
 * computation. Measured: 200 requests/s against 10,000 topics queued for seconds without it
 * (docs/archive/bench-notebook-2026.md, "Web dashboard").
 */
class ReadCache {
  private readonly answers = new Map<string, { event: number; at: number; body: Promise<string> }>();

  constructor(private readonly latestEvent: () => number) {}

  get(key: string, compute: () => Promise<unknown>): Promise<string> {
    const event = this.latestEvent();
    const now = monotonicNow();
    const known = this.answers.get(key);
    if (known && known.event === event && now - known.at < READ_CACHE_MS) return known.body;
    const body = compute().then((value) => JSON.stringify(value));
    if (this.answers.size >= MAX_CACHED_READS) this.answers.clear();
    const entry = { event, at: now, body };
    this.answers.set(key, entry);
    // A failure is answered once, never kept (unless a newer answer has replaced it meanwhile).
    body.catch(() => {
      if (this.answers.get(key) === entry) this.answers.delete(key);
    });
    return body;
  }

  clear(): void {
    this.answers.clear();
  }
}

const READ_CACHE_MS = 1000;

/**
 * GETs answered fresh every time, never shared through the ReadCache: they read more than the refs
 * (git config, hook files, agent files, the home directory, other worktrees' brv/HEAD), or must be
 * exact (the version an edit opens is what its save is compared with).
 */
const UNSHARED_READS: ReadonlySet<string> = new Set([
  '/api/edit',
  '/api/branches',
  '/api/setup',
  '/api/providers',
  '/api/providers/models',
]);
const MAX_CACHED_READS = 256;

/** The JSON API (see README, "Web dashboard"): method → path → handler; its answers are declared in api-types.ts. */
export function apiRoutes(version: Promise<string>) {
  return {
    '/api/status': {
      GET: async ({ brv }) => {
        const b = await brv();
        const [status, reviews] = await Promise.all([b.setup.status(), b.review.pending()]);
        return {
          repository: status.repository,
          branch: status.branch,
          head: status.tip ?? null,
          topics: status.topics,
          pendingReviews: reviews.tasks.length,
          version: await version,
          // Knowledge fetched from the remote that the branch lacks, and the command that takes it (else null).
          upstream: status.upstream
            ? { remote: status.upstream.remote, ahead: status.upstream.ahead, behind: status.upstream.behind, local: status.upstream.local }
            : null,
          incoming: incomingText(status.upstream, status.branch) ?? null,
        };
      },
    },
    '/api/topic': {
      GET: async ({ brv, url }) => {
        // A knowledge source's topic (read-only) is sanitised exactly like a local one.
        const source = sourceParam(url);
        const read = await (await brv()).knowledge.read({ path: queryString(url, 'path', true), raw: true, source });
        const display = topicDisplayHtml(read.content);
        return {
          path: read.topicPath,
          title: display.title,
          html: display.html,
          raw: read.content,
          markdown: renderStoredTopic(read.content),
          commit: read.commit,
          ...(source === undefined ? {} : { source }),
        };
      },
    },
    '/api/topic/history': {
      GET: async ({ brv, url }) => {
        // A removed topic keeps its history: no existence check, only the path's (by the service).
        const topic = queryString(url, 'path', true);
        return { entries: await (await brv()).history.log({ limit: limitParam(url, 100, 1000), path: topic }) };
      },
    },
    '/api/search': {
      GET: async ({ brv, url }) => {
        const q = queryString(url, 'q') ?? '';
        const limit = limitParam(url, 20, 50);
        if (q.trim() === '') return { results: [] };
        // Filters, as `brv search` takes them (checked by the service): empty ones are no filter.
        const filter = (name: string) => queryString(url, name)?.trim() || undefined;
        const kinds = url.searchParams
          .getAll('kind')
          .flatMap((k) => k.split(','))
          .map((k) => k.trim())
          .filter((k) => k !== '');
        if (kinds.length > 32) throw new HttpError(400, 'invalid-request', 'Give at most 32 kinds.');
        const found = await (
          await brv()
        ).retrieval.search({
          question: q,
          limit,
          scope: filter('scope'),
          at: filter('at'),
          since: filter('since'),
          until: filter('until'),
          ...(kinds.length > 0 ? { kinds } : {}),
        });
        return {
          results: found.results.map((r) => ({
            path: r.topicPath,
            title: r.title,
            score: r.score,
            excerpt: r.excerpt,
            terms: r.matched.terms,
            ...('origin' in r && r.origin === 'shared' ? { source: r.source } : {}),
          })),
        };
      },
    },
    '/api/changes': {
      GET: async ({ brv, url }) => ({
        entries: (await (await brv()).history.log({ limit: limitParam(url, 50, 1000) })).map((entry) =>
          // An import is one commit naming every topic: the timeline shows the first ones and a count.
          entry.changes.length > MAX_CHANGES_PER_ENTRY
            ? {
                ...entry,
                changes: entry.changes.slice(0, MAX_CHANGES_PER_ENTRY),
                changesOmitted: entry.changes.length - MAX_CHANGES_PER_ENTRY,
              }
            : entry,
        ),
      }),
    },
  } satisfies TypedRoutes<'/api/status' | '/api/topic' | '/api/topic/history' | '/api/search' | '/api/changes'>;
}

/** A file under `root` for a URL path, or undefined; throws 400 for a path that tries to leave it. */
async function staticFile(root: string, pathname: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new HttpError(400, 'invalid-request', 'The path is not valid percent-encoding.');
  }
  if (decoded.length > MAX_STATIC_PATH || decoded.includes('\0') || decoded.includes('\\'))
    throw new HttpError(400, 'invalid-request', 'The path is too long or holds characters a path may not have.');
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.')) throw new HttpError(400, 'invalid-request', 'The path may not contain "." or "..".');
  if (segments.length === 0) return undefined;
  const candidate = path.resolve(root, ...segments);
  if (!candidate.startsWith(root + path.sep)) throw new HttpError(400, 'invalid-request', 'The path leaves the dashboard files.');
  try {
    const real = await realpath(candidate);
    if (!real.startsWith(root + path.sep)) return undefined; // a symbolic link out of the folder is not followed
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

async function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL, assetsDir: Promise<string | undefined>): Promise<void> {
  const root = await assetsDir;
  const found = root ? await staticFile(root, url.pathname) : undefined;
  // Client-side routes get the page; a missing asset is a 404 (a script tag must never receive HTML).
  let file = found;
  if (!file && !url.pathname.startsWith('/assets/') && root) file = await staticFile(root, '/index.html');
  if (!file) {
    if (!root || !url.pathname.startsWith('/assets/'))
      return sendError(res, 404, 'not-found', "The dashboard's files are missing (dist/web): build brv with npm run build.");
    return sendError(res, 404, 'not-found', `No file ${url.pathname.slice(0, 200)}.`);
  }
  const body = await readFile(file);
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'Cache-Control': 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host: HOST, exclusive: true });
  });
}

async function bind(server: Server, options: WebServerOptions): Promise<number> {
  const first = options.port ?? DEFAULT_PORT;
  if (!Number.isInteger(first) || first < 0 || first > 65535)
    throw new BrvError('usage', `--port must be a port number (1-65535), not ${first}.`);
  const last = options.strictPort || first === 0 ? first : Math.min(first + PORT_ATTEMPTS, 65535);
  for (let port = first; ; port++) {
    try {
      return await listen(server, port);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
      if (port >= last) {
        throw new BrvError(
          'port-in-use',
          first === last
            ? `Port ${first} on ${HOST} is taken by another process: pass another --port, or leave it out to take a free one.`
            : `Ports ${first}-${last} on ${HOST} are all taken: pass a free one with --port.`,
        );
      }
    }
  }
}

/**
 * `brv webui`'s server: the dashboard's files and its JSON API over `node:http`, on loopback only.
 * Every request is checked before routing (security.ts: Host, Sec-Fetch-Site, Origin for mutations,
 * then the session), so a refused request never reaches a handler and nothing is written for it.
 * The repository is served through the service's RepositoryPool, whose ref watch feeds the live
 * events (events.ts).
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  let secret = options.secret ?? '';
  // One-time login nonces → when they expire (see WebServer.oneTimeUrl).
  const logins = new Map<string, number>();
  const pool: RepositoryPool = options.service.pool(options.launchDir, { serverName: 'brv webui' });
  let subscription: Subscription | undefined;
  const hub = new EventHub({ eventBuffer: options.eventBuffer, maxClientBufferBytes: options.maxClientBufferBytes });
  const server = createServer({ maxHeaderSize: 32 * 1024 });
  try {
    // Outside a repository: a typed error before anything listens.
    const brv = await pool.resolve(undefined).catch((error: unknown) => {
      if (!isBrvError(error) || error.kind !== 'cwd-required') throw error;
      throw new BrvError(
        'not-a-git-repository',
        `${options.launchDir} is not inside a git repository: brv webui serves the repository it is started in (cd into it, or pass -C <dir>).`,
      );
    });
    // Kept per repository: a restarted server (on the same port) still accepts the cookie of every open tab. Where
    // it cannot be kept (a read-only repository), a secret for this run only, as before.
    secret ||= await repositorySecret(brv.repository.commonDir, { renew: options.newToken }).catch(() => newSecret());
    subscription = await pool.watch((move) => hub.publish(move), { onError: () => {} });
  } catch (error) {
    hub.close();
    await pool.close();
    throw error;
  }
  const assetsDir = (async () => realpath(options.assetsDir ?? path.join(brvPackageRoot(), 'dist', 'web')))().catch(() => undefined);
  const routes = {
    ...apiRoutes(brvVersion()),
    ...reviewRoutes(),
    ...manageRoutes(options.service),
    ...treeRoutes(),
    ...actionRoutes(options.service),
  };
  const reads = new ReadCache(() => hub.latestId);
  const router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true, maxParamLength: 500 });
  for (const [route, methods] of Object.entries(routes)) {
    for (const [method, handler] of Object.entries(methods)) router.on(method as 'GET', route, () => {}, { handler });
  }
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = req.url ?? '';
    setSecurityHeaders(res, target === '/api' || target.startsWith('/api/') || target.startsWith('/api?'));
    const refusal = refuseForeign(req, port);
    if (refusal) return sendError(res, refusal.status, refusal.kind, refusal.message);
    let url: URL;
    try {
      // Appended to our own origin, so that "//host/…" stays a path and never names another host.
      if (!target.startsWith('/')) throw new Error('not origin-form');
      url = new URL(`http://${HOST}:${port}${target}`);
    } catch {
      return sendError(res, 400, 'invalid-request', 'The request target must be a path.');
    }
    const api = url.pathname === '/api' || url.pathname.startsWith('/api/');
    if (api) res.setHeader('Cache-Control', 'no-store');

    const reading = req.method === 'GET' || req.method === 'HEAD';
    const login = url.searchParams.get('login');
    if (!api && reading && login !== null) {
      res.setHeader('Cache-Control', 'no-store');
      const expires = logins.get(login);
      // Used once: deleted before anything else, so a second visit (or a racing one) finds nothing.
      logins.delete(login);
      if (expires === undefined || expires < Date.now())
        return sendError(res, 401, 'unauthorized', 'This login link was used already or has expired: open the URL brv webui printed.');
      const back = url.pathname.startsWith('//') ? '/' : url.pathname;
      res.writeHead(303, { Location: back, 'Set-Cookie': sessionCookie(secret, port) });
      return void res.end();
    }
    const token = url.searchParams.get('token');
    if (!api && reading && token !== null) {
      res.setHeader('Cache-Control', 'no-store');
      if (!sameSecret(token, secret)) return sendError(res, 401, 'unauthorized', 'The token is wrong: open the URL brv webui printed.');
      const back = url.pathname.startsWith('//') ? '/' : url.pathname;
      res.writeHead(303, { Location: back, 'Set-Cookie': sessionCookie(secret, port) });
      return void res.end();
    }
    if (!sameSecret(presentedSecret(req, port), secret)) {
      if (api) return sendError(res, 401, 'unauthorized', 'No session: open the URL brv webui printed (with its token).');
      res.writeHead(401, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(req.method === 'HEAD' ? undefined : UNAUTHORIZED_PAGE);
    }

    if (!api) {
      if (!reading) return sendError(res, 405, 'method-not-allowed', `${req.method} is not allowed here.`);
      return serveStatic(req, res, url, assetsDir);
    }
    if (url.pathname === '/api/events') {
      if (req.method !== 'GET') return sendError(res, 405, 'method-not-allowed', 'Open /api/events with GET.');
      const after = url.searchParams.get('after');
      const lastId = req.headers['last-event-id'];
      if (after !== null && parseEventId(after) === undefined) return sendError(res, 400, 'invalid-request', 'after must be an event id.');
      return hub.attach(req, res, parseEventId(after) ?? parseEventId(typeof lastId === 'string' ? lastId : undefined));
    }
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const found = router.find(method as 'GET', url.pathname);
    if (!found) {
      const other = ['GET', 'POST', 'PUT'].some((m) => router.find(m as 'GET', url.pathname));
      return other
        ? sendError(res, 405, 'method-not-allowed', `${req.method} is not allowed on ${url.pathname.slice(0, 200)}.`)
        : sendError(res, 404, 'not-found', `No API endpoint ${url.pathname.slice(0, 200)}.`);
    }
    const { handler } = found.store as { handler: Handler };
    const context = { req, res, url, brv: () => pool.resolve(undefined) };
    if (method !== 'GET') {
      // This server's own changes are read back at once, before their ref event arrives.
      const answer = await handler(context).finally(() => reads.clear());
      if (answer === STREAMED) return;
      return sendJson(res, 200, answer);
    }
    if (UNSHARED_READS.has(url.pathname)) return sendJson(res, 200, await handler(context));
    sendJsonText(res, 200, await reads.get(`${url.pathname}?${url.searchParams.toString()}`, () => handler(context)));
  };

  // Requests still being answered: `close` waits for them, since one whose client went away keeps
  // running (an index build writing its files) after its connection is gone.
  const running = new Set<Promise<void>>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const answered = handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (error.status === 413) res.setHeader('Connection', 'close');
        return sendJson(res, error.status, { error: { kind: error.kind, message: error.message, ...error.details } });
      }
      // A kind's details (the valid names of an unknown one, a setting's key) help the caller fix the request.
      if (isBrvError(error))
        return sendJson(res, errorStatus(error.kind), { error: { ...error.details, kind: error.kind, message: error.message } });
      sendError(res, 500, 'internal-error', 'Unexpected failure in the dashboard server.');
    });
    running.add(answered);
    void answered.finally(() => running.delete(answered));
  });

  try {
    port = await bind(server, options);
  } catch (error) {
    subscription.unsubscribe();
    hub.close();
    await pool.close();
    throw error;
  }
  const origin = `http://${HOST}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${secret}`,
    origin,
    port,
    secret,
    oneTimeUrl: () => {
      const now = Date.now();
      for (const [nonce, expires] of logins) if (expires < now || logins.size >= MAX_LOGIN_LINKS) logins.delete(nonce);
      const nonce = newSecret();
      logins.set(nonce, now + LOGIN_LINK_TTL_MS);
      return `${origin}/?login=${nonce}`;
    },
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        hub.close();
        subscription?.unsubscribe();
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref();
        await stopped;
        // Bounded: a request stuck on a hung git process is ended by closing the pool (which stops it).
        await Promise.race([Promise.allSettled([...running]), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
        await pool.close();
      })()),
  };
}
