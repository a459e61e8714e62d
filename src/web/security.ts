import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorKind } from '../base/error-kinds.js';

/**
 * The session cookie: the repository's secret (session-secret.ts), HttpOnly and SameSite=Strict so no other site's page can
 * send or read it. Named by port: cookies are not scoped by port, so two dashboards (two
 * repositories) on one machine would otherwise overwrite each other's session.
 */
function sessionCookieName(port: number): string {
  return `brv_session_${port}`;
}

const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** A new secret: 32 random bytes, URL-safe (the session's, kept per repository: session-secret.ts; a login nonce). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (of digests, so the lengths do not leak either). */
export function sameSecret(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

export interface Refusal {
  status: 401 | 403;
  kind: ErrorKind;
  message: string;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** The loopback origins a browser shows for this server: `http://<name>:<port>`. */
function allowedHosts(port: number): string[] {
  return LOOPBACK_NAMES.map((name) => `${name}:${port}`);
}

/**
 * The checks every request passes before routing, in this order: `Host` must be a loopback name
 * with our port (a DNS-rebinding page reaches us under its own name); `Sec-Fetch-Site: cross-site`
 * is refused on any request; a mutation (any method but GET and HEAD) must carry an `Origin` equal
 * to `http://<Host>` (CSRF). Undefined: the request may go on to the session check.
 */
export function refuseForeign(req: IncomingMessage, port: number): Refusal | undefined {
  const host = req.headers.host?.toLowerCase();
  if (host === undefined || !allowedHosts(port).includes(host)) {
    return {
      status: 403,
      kind: 'forbidden',
      message: `Host ${JSON.stringify(req.headers.host ?? '')} is not this dashboard's loopback address.`,
    };
  }
  if (req.headers['sec-fetch-site'] === 'cross-site') {
    return { status: 403, kind: 'forbidden', message: 'Requests from other sites are refused.' };
  }
  const mutation = req.method !== 'GET' && req.method !== 'HEAD';
  if (mutation && req.headers.origin !== `http://${host}`) {
    return {
      status: 403,
      kind: 'forbidden',
      message:
        req.headers.origin === undefined
          ? 'A change needs an Origin header (send it from the dashboard page).'
          : 'Origin does not match this dashboard.',
    };
  }
  return undefined;
}

/** The session a request carries: the cookie, or `Authorization: Bearer <secret>` (scripts). */
export function presentedSecret(req: IncomingMessage, port: number): string | undefined {
  const authorization = req.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice('Bearer '.length).trim();
  const cookies = req.headers.cookie;
  if (!cookies) return undefined;
  for (const part of cookies.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === sessionCookieName(port)) return part.slice(at + 1).trim();
  }
  return undefined;
}

export function sessionCookie(secret: string, port: number): string {
  return `${sessionCookieName(port)}=${secret}; HttpOnly; SameSite=Strict; Path=/`;
}

/** Headers on every response; `no-store` on the API's (and on pages carrying a session change). */
export function setSecurityHeaders(res: ServerResponse, api: boolean): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  if (api) res.setHeader('Cache-Control', 'no-store');
}
