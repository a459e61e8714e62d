// The JSON API under /api/ (same origin: the session cookie goes along, and the browser sends Origin on POST).
// Request bodies are typed by the endpoint (ApiBodies in src/web/api-types.ts); answers arrive as `unknown`, for
// the pages' decoders to read through the shared answer types (json.ts `wire`).
import type { ApiBodies, ApiRoutes, ErrorResponse, StreamingRoute, SyncStreamLine } from '../api-types.js';
import { readError } from './entries.js';
import { NdjsonLines, wire } from './json.js';

export class ApiError extends Error {
  constructor(
    readonly kind: string,
    message: string,
    readonly status: number,
    /** The body's `error` object as sent (a 422's `errors`, a 409's `current`). */
    readonly detail: unknown = null,
  ) {
    super(message);
  }
}

async function request<T>(path: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError('network', 'The brv webui server cannot be reached: is it still running?', 0);
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
  }
  if (!response.ok) {
    const { kind, message } = readError(response.status, body);
    throw new ApiError(kind, message, response.status, wire<ErrorResponse>(body).error ?? null);
  }
  return body as T;
}

/** The endpoints answering GET. */
type GetPath = { [P in keyof ApiRoutes]: 'GET' extends keyof ApiRoutes[P] ? P : never }[keyof ApiRoutes];
/** A GET endpoint with its query, if any: an address no endpoint answers fails the type check. */
export type ApiGetPath = GetPath | `${GetPath}?${string}`;

/** The answer of GET `path` (as sent: a page still reads it defensively before trusting a field). */
export type AnswerOf<P extends ApiGetPath> = P extends `${infer E}?${string}`
  ? E extends GetPath
    ? ApiRoutes[E]['GET']
    : never
  : P extends GetPath
    ? ApiRoutes[P]['GET']
    : never;

export function getJson<P extends ApiGetPath>(path: P, signal?: AbortSignal): Promise<AnswerOf<P>> {
  return request<AnswerOf<P>>(path, { headers: { Accept: 'application/json' }, signal });
}

/** The endpoints that take a body with `method`. */
type BodyPath<M extends string> = { [P in keyof ApiBodies]: M extends keyof ApiBodies[P] ? P : never }[keyof ApiBodies];
/** The body `path` takes with `method` (of each path, when `path` is a union). */
type BodyOf<P extends keyof ApiBodies, M extends string> = P extends unknown ? ApiBodies[P][M & keyof ApiBodies[P]] : never;

export function postJson<P extends BodyPath<'POST'>>(path: P, body: BodyOf<P, 'POST'>): Promise<unknown> {
  return send(path, body, 'POST');
}

export function putJson<P extends BodyPath<'PUT'>>(path: P, body: BodyOf<P, 'PUT'>): Promise<unknown> {
  return send(path, body, 'PUT');
}

function send(path: string, body: unknown, method: 'POST' | 'PUT'): Promise<unknown> {
  return request<unknown>(path, {
    method,
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/**
 * POSTs to an endpoint that streams its progress (the sync operations): `onProgress` gets each
 * progress line as it arrives; resolves with the result line, throws the error line as an ApiError
 * (with the HTTP status the plain answer would have had).
 */
export async function postStream<P extends StreamingRoute>(
  path: P,
  body: BodyOf<P, 'POST'>,
  onProgress: (progress: unknown) => void,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: 'application/x-ndjson', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError('network', 'The brv webui server cannot be reached: is it still running?', 0);
  }
  if (!response.ok || !response.body) {
    let answer: unknown = null;
    try {
      answer = await response.json();
    } catch {
      // no body: the status says it
    }
    const { kind, message } = readError(response.status, answer);
    throw new ApiError(kind, message, response.status, wire<ErrorResponse>(answer).error ?? null);
  }
  const lines = new NdjsonLines();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let outcome: { result: unknown } | { error: ApiError } | undefined;
  const take = (values: unknown[]) => {
    for (const value of values) {
      const line = wire<SyncStreamLine<unknown>>(value);
      if (line.type === 'progress') onProgress(line);
      else if (line.type === 'result') outcome = { result: line.result };
      else if (line.type === 'error') {
        const status = typeof line.status === 'number' ? line.status : 500;
        const { kind, message } = readError(status, line);
        outcome = { error: new ApiError(kind, message, status, line.error ?? null) };
      }
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      take(lines.push(value));
    }
    take(lines.end());
  } catch {
    throw new ApiError(
      'network',
      'The connection to brv webui broke before the operation reported its end: reload to see where it got.',
      0,
    );
  }
  if (!outcome) throw new ApiError('network', 'The operation ended without a result: reload to see where it got.', 0);
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError('internal-error', error instanceof Error ? error.message : String(error), 0);
}
