import type { IncomingMessage, ServerResponse } from 'node:http';
import { BrvError } from '../base/errors.js';
import type { ErrorKind } from '../base/error-kinds.js';
import type { Brv } from '../service/brv.js';
import type { ApiRoutes, StreamingRoute } from './api-types.js';

/** One API request as a handler sees it; `brv` opens (or reuses) the served repository. */
export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  brv: () => Promise<Brv>;
}

/**
 * An API handler: its answer is sent as JSON with 200; a thrown BrvError becomes a typed JSON error.
 * A handler that answered by itself (a stream) returns STREAMED.
 */
export type Handler = (call: Call) => Promise<unknown>;

/** What a handler of `method` on `path` may answer: its declared JSON, or STREAMED for an endpoint that streams. */
type Answer<P extends keyof ApiRoutes, M extends keyof ApiRoutes[P]> =
  ApiRoutes[P][M] | (P extends StreamingRoute ? typeof STREAMED : never);

/** Handlers of endpoints declared in api-types.ts: each must answer the JSON the client is typed against. */
export type TypedRoutes<P extends keyof ApiRoutes> = { [K in P]: { [M in keyof ApiRoutes[K]]: (call: Call) => Promise<Answer<K, M>> } };

export const STREAMED: unique symbol = Symbol('streamed');

/** The HTTP status of a library error, by kind: a remote's failure 502, missing things 404, races 409, content brv will not load 422, brv's own failures 500, the rest bad input (400). */
export function errorStatus(kind: ErrorKind): number {
  // The remote (not this request) failed: git's own message says how.
  if (kind === 'remote-unreachable' || kind === 'remote-not-found' || kind === 'auth-failed' || kind === 'push-refused') return 502;
  if (kind === 'not-found' || kind.endsWith('-not-found')) return 404;
  if (kind === 'ref-moved' || kind === 'ref-contention' || kind === 'edit-conflict' || kind === 'not-initialized') return 409;
  if (kind === 'non-fast-forward' || kind === 'sync-contention') return 409;
  if (kind === 'server-closing' || kind === 'repository-closed') return 503;
  // Stored content the server will not load (a blob over the topic limit): the request was fine.
  if (kind === 'too-large') return 422;
  if (kind === 'internal-error' || kind.startsWith('git-') || kind.startsWith('corrupt-')) return 500;
  return 400;
}

/** An error answered with its own HTTP status (instead of the one its kind maps to). */
export class HttpError extends BrvError {
  constructor(
    readonly status: number,
    kind: ErrorKind,
    message: string,
    /** More fields of the answer's `error` object (the validator's errors, the current version). */
    details?: Record<string, unknown>,
  ) {
    super(kind, message, details);
  }
}

const MAX_BODY_BYTES = 1024 * 1024;

export function queryString(url: URL, name: string, required: true): string;
export function queryString(url: URL, name: string, required?: false): string | undefined;
export function queryString(url: URL, name: string, required = false): string | undefined {
  const values = url.searchParams.getAll(name);
  if (values.length > 1) throw new HttpError(400, 'invalid-request', `Give ${name} once.`);
  if (values.length === 0 && required) throw new HttpError(400, 'invalid-request', `The ${name} parameter is missing.`);
  return values[0];
}

export function limitParam(url: URL, fallback: number, max: number): number {
  const value = queryString(url, 'limit');
  if (value === undefined) return fallback;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new HttpError(400, 'invalid-request', `limit must be a whole number from 1 to ${max}.`);
  return Number(value);
}

/** The JSON body (at most 1 MiB); with `optional`, no body at all reads as `{}`. */
export async function readJsonBody(req: IncomingMessage, options: { optional?: boolean } = {}): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (options.optional && !req.headers['transfer-encoding'] && Number(req.headers['content-length'] ?? 0) === 0) return {};
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new HttpError(400, 'invalid-request', 'Send the body as Content-Type: application/json.');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, 'payload-too-large', `The body is over ${MAX_BODY_BYTES} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'payload-too-large', `The body is over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (options.optional && text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid-request', 'The body is not valid JSON.');
  }
}

/** A request body's fields as they arrive: the names its type (api-types.ts ApiBodies) declares, values unchecked. */
export type BodyFields<B> = { [K in keyof B]?: unknown };

/**
 * A JSON object body with only the fields of B, every one listed in `allowed` (a field the client did not
 * mean is refused, never ignored); `shape` names them in the error.
 */
export function objectBody<B>(body: unknown, allowed: Record<keyof B, true>, shape: string): BodyFields<B> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'invalid-request', `Send ${shape}.`);
  const unknown = Object.keys(body).filter((key) => !Object.hasOwn(allowed, key));
  if (unknown.length > 0) throw new HttpError(400, 'invalid-request', `Unknown field ${JSON.stringify(unknown[0])}: send ${shape}.`);
  return body as BodyFields<B>;
}

/** A string field: present (unless optional), a string, at most `max` characters. */
export function stringField<B>(body: BodyFields<B>, name: keyof B & string, max: number, optional: true): string | undefined;
export function stringField<B>(body: BodyFields<B>, name: keyof B & string, max: number, optional?: false): string;
export function stringField<B>(body: BodyFields<B>, name: keyof B & string, max: number, optional = false): string | undefined {
  const value = body[name];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > max)
    throw new HttpError(400, 'invalid-request', `${name} must be a non-empty string of at most ${max} characters.`);
  return value;
}
