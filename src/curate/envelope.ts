import type { ErrorKind } from '../base/error-kinds.js';
import type { RemovedContent } from '../topic/removed.js';

/** The curate wire contract, kept identical to ByteRover's tool mode so existing agents work unchanged. */
export type CurateStatus = 'needs-llm-step' | 'done' | 'failed';

export interface CurateError {
  kind: ErrorKind;
  message: string;
  tag?: string;
  attribute?: string;
  /** Where the element the error is about starts in the HTML sent (1-based). */
  line?: number;
  column?: number;
  existingContent?: string;
  /** path-case-collision: the path in the tree that the new one differs from only by letter case. */
  existingPath?: string;
}

export interface CurateEnvelope {
  ok: boolean;
  status: CurateStatus;
  sessionId?: string;
  step?: 'generate-html' | 'correct-html';
  prompt?: string;
  errors?: CurateError[];
  /** On done: the topic's file in the context tree, e.g. `security/auth.html`. */
  filePath?: string;
  topicPath?: string;
  /** On done: ADD, UPDATE or MERGE as recorded in the commit. */
  type?: string;
  /** On done: the brv commit that recorded the change (absent when nothing changed). */
  commit?: string;
  /** On done: true when the submitted topic was identical to the stored one. */
  unchanged?: boolean;
  warnings?: string[];
  /** On done: a high-impact change opened this review (gated: it waits for approval, not yet on the branch). */
  review?: { id: string; gated: boolean };
  /** On done: the change is held for review `review.id` (review.gate) and is not on the branch until a person approves it. */
  held?: boolean;
  /** On done: what replacing the stored topic (--overwrite) took out of it; absent when nothing. */
  removed?: RemovedContent;
}

export function failed(kind: ErrorKind, message: string, sessionId?: string): CurateEnvelope {
  return { ok: false, status: 'failed', ...(sessionId ? { sessionId } : {}), errors: [{ kind, message }] };
}

export const META_TYPES = ['ADD', 'UPDATE', 'MERGE'] as const;
export const META_LEVELS = ['high', 'low'] as const;

export interface CurateMeta {
  type?: (typeof META_TYPES)[number];
  impact?: (typeof META_LEVELS)[number];
  reason?: string;
  summary?: string;
  previousSummary?: string;
  confidence?: (typeof META_LEVELS)[number];
}

const META_TEXT_LIMIT = 2000;

/** Strict, like ByteRover's CurateMetaSchema: unknown keys and bad values are errors, not ignored. */
export function parseMeta(value: unknown): { ok: true; meta: CurateMeta | undefined } | { ok: false; message: string } {
  if (value === undefined || value === null) return { ok: true, meta: undefined };
  if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: '"meta" must be a JSON object.' };
  const meta: CurateMeta = {};
  for (const [key, raw] of Object.entries(value)) {
    switch (key) {
      case 'type':
        if (!META_TYPES.includes(raw as never)) return { ok: false, message: `meta.type must be one of ${META_TYPES.join(', ')}.` };
        meta.type = raw as CurateMeta['type'];
        break;
      case 'impact':
      case 'confidence':
        if (!META_LEVELS.includes(raw as never)) return { ok: false, message: `meta.${key} must be "high" or "low".` };
        meta[key] = raw as 'high' | 'low';
        break;
      case 'reason':
      case 'summary':
      case 'previousSummary':
        if (typeof raw !== 'string' || raw.length > META_TEXT_LIMIT) {
          return { ok: false, message: `meta.${key} must be a string of at most ${META_TEXT_LIMIT} characters.` };
        }
        meta[key] = raw;
        break;
      default:
        return {
          ok: false,
          message: `meta has an unknown key "${key}"; allowed: type, impact, reason, summary, previousSummary, confidence.`,
        };
    }
  }
  return { ok: true, meta };
}

export const MAX_RESPONSE_BYTES = 1024 * 1024;

export type ParsedResponse = { ok: true; html: string; meta: CurateMeta | undefined } | { ok: false; kind: ErrorKind; message: string };

/** Parses the continuation body `{"html": "...", "meta": {...}}` (an outer code fence is tolerated). */
export function parseResponseBody(body: string): ParsedResponse {
  if (Buffer.byteLength(body, 'utf8') > MAX_RESPONSE_BYTES) {
    return {
      ok: false,
      kind: 'too-large',
      message: `The response is larger than ${MAX_RESPONSE_BYTES / 1024} KiB. Split the knowledge into several topics.`,
    };
  }
  if (body.includes('\u0000')) {
    return { ok: false, kind: 'invalid-encoding', message: 'The response contains a NUL byte. Send UTF-8 text only.' };
  }
  const fence = /^\s*```[\w-]*\s*\n([\s\S]*)\n\s*```\s*$/.exec(body);
  let value: unknown;
  try {
    value = JSON.parse(fence ? fence[1]! : body);
  } catch (error) {
    return {
      ok: false,
      kind: 'invalid-response-format',
      message: `The response is not valid JSON (${jsonProblem(error, fence ? fence[1]! : body)}). Reply with {"html": "<bv-topic …>", "meta": {…}}.`,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      kind: 'invalid-response-format',
      message: 'The response must be a JSON object {"html": "<bv-topic …>", "meta": {…}}.',
    };
  }
  const { html, meta } = value as { html?: unknown; meta?: unknown };
  if (typeof html !== 'string' || html.trim().length === 0) {
    return {
      ok: false,
      kind: 'invalid-response-format',
      message: 'The response needs a non-empty string field "html" holding the <bv-topic> document.',
    };
  }
  const parsedMeta = parseMeta(meta);
  if (!parsedMeta.ok) return { ok: false, kind: 'invalid-response-format', message: parsedMeta.message };
  return { ok: true, html, meta: parsedMeta.meta };
}

/**
 * Where a text stops being JSON, without quoting it: V8's messages quote the text ("Unexpected token
 * 'r', "root:x:0:0"... is not valid JSON"), and the text may be any file an agent pointed at.
 */
function jsonProblem(error: unknown, text: string): string {
  const size = `${Buffer.byteLength(text, 'utf8')} bytes`;
  const message = error instanceof Error ? error.message : '';
  const start = text.search(/\S/);
  if (start < 0) return `it is blank, ${size}`;
  if (text[start] !== '{') return `it does not begin with "{", ${size}`;
  const position = /position (\d+)/.exec(message);
  if (/end of JSON input/i.test(message) || (position && Number(position[1]) >= text.trimEnd().length))
    return `it ends before the JSON object is complete, ${size}`;
  if (!position) return `a syntax error, ${size}`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `a syntax error at line ${line}, column ${column}, ${size}`;
}
