import { isBrvError } from '../base/errors.js';
import type { DecisionRequest, ReviewFilter, ReviewShow } from '../service/review.js';
import { renderStoredTopic } from '../topic/stored.js';
import { rejectConflictText } from '../views/review.js';
import type { ApiFailure, BatchBody, DecisionBody, DecisionType, RejectConflictDetail, ResolveBody } from './api-types.js';
import { HttpError, objectBody, queryString, readJsonBody, stringField, type BodyFields, type TypedRoutes } from './request.js';
import { topicDisplayHtml } from './topic-html.js';

/** Recorded as the Brv-Agent trailer of what the dashboard writes. */
const ACTOR = { agent: 'webui' } as const;
/** Decisions one batch request may carry. */
const MAX_BATCH = 100;

/**
 * A reject that conflicted with later edits is recorded but not done: answered as the CLI answers it
 * (`reject-conflict`, exit 1 there, 409 here), naming the merge review that finishes it, never as a
 * plain "rejected".
 */
function unlessConflicted<R extends Parameters<typeof rejectConflictText>[0]>(result: R): R {
  if (result.conflicts.length === 0) return result;
  const detail: RejectConflictDetail = { conflicts: result.conflicts, ...(result.review ? { review: result.review.id } : {}) };
  throw new HttpError(409, 'reject-conflict', rejectConflictText(result), { ...detail });
}

/** `{ id, topics?, keepBoth? }` of approve (keepBoth: approve only) and reject. */
function decisionBody(body: unknown, approve: boolean, where = ''): DecisionRequest {
  const shape = `${where}{ "id": "<review id>", "topics"?: [...]${approve ? ', "keepBoth"?: true' : ''} }`;
  const fields: BodyFields<DecisionBody> = approve
    ? objectBody<DecisionBody>(body, { id: true, topics: true, keepBoth: true }, shape)
    : objectBody<Omit<DecisionBody, 'keepBoth'>>(body, { id: true, topics: true }, shape);
  const id = stringField(fields, 'id', 200);
  const { topics, keepBoth } = fields;
  if (keepBoth !== undefined && typeof keepBoth !== 'boolean')
    throw new HttpError(400, 'invalid-request', `${where}keepBoth must be true or false.`);
  const request: DecisionRequest = { id, ...(keepBoth ? { keepBoth } : {}) };
  if (topics === undefined) return request;
  if (
    !Array.isArray(topics) ||
    topics.length === 0 ||
    topics.length > 10_000 ||
    !topics.every((t) => typeof t === 'string' && t.length <= 4096)
  )
    throw new HttpError(400, 'invalid-request', `${where}topics must be a non-empty array of topic paths.`);
  return { ...request, files: topics as string[] };
}

type BatchDecision = { decision: DecisionType; request: DecisionRequest };

/** `{ decisions: [{ id, decision, topics?, keepBoth? }] }`: every item checked before any is applied. */
function batchBody(body: unknown): BatchDecision[] {
  const shape = '{ "decisions": [{ "id": "<review id>", "decision": "approve" | "reject", "topics"?: [...], "keepBoth"?: true }] }';
  const { decisions } = objectBody<BatchBody>(body, { decisions: true }, shape);
  if (!Array.isArray(decisions) || decisions.length === 0 || decisions.length > MAX_BATCH)
    throw new HttpError(400, 'invalid-request', `decisions must be an array of 1 to ${MAX_BATCH} decisions: send ${shape}.`);
  return decisions.map((item: unknown, i) => {
    const where = `decisions[${i}]: `;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new HttpError(400, 'invalid-request', `${where}send an object.`);
    const { decision, ...rest } = item as Record<string, unknown>;
    if (decision !== 'approve' && decision !== 'reject')
      throw new HttpError(400, 'invalid-request', `${where}decision must be "approve" or "reject".`);
    return { decision, request: decisionBody(rest, decision === 'approve', where) };
  });
}

/** `{ id, topic, side, section? }` of resolve. */
function resolveBody(body: unknown): ResolveBody {
  const fields = objectBody<ResolveBody>(
    body,
    { id: true, topic: true, side: true, section: true },
    '{ "id": "<review id>", "topic": "<topic path>", "side": "ours" | "theirs" | "both", "section"?: "bv-rule#r1" }',
  );
  const side = fields.side;
  if (side !== 'ours' && side !== 'theirs' && side !== 'both')
    throw new HttpError(400, 'invalid-request', 'side must be "ours", "theirs" or "both" (to rewrite the topic by hand, edit it).');
  const section = stringField(fields, 'section', 500, true);
  return {
    id: stringField(fields, 'id', 200),
    topic: stringField(fields, 'topic', 4096),
    side,
    ...(section === undefined ? {} : { section }),
  };
}

/** One side of a conflict (a section's canonical HTML, from an untrusted merge) as the dashboard may show it. */
function displaySide(path: string, source: string): { html: string; markdown: string } {
  // Read as any stored blob is (bounded, sanitised), then rebuilt through the display allowlist.
  const topic = `<bv-topic path="${path.replace(/[^\w./-]/g, '')}" title="">${source}</bv-topic>`;
  return {
    html: topicDisplayHtml(topic).html,
    markdown: renderStoredTopic(topic)
      .replace(/^#[^\n]*\n+/, '')
      .trim(),
  };
}

/**
 * `review.conflicts()` as is (each side's `ours` / `theirs`: canonical HTML source, text to show, never
 * markup to insert), each side also as `oursDisplay` / `theirsDisplay`: sanitised display HTML
 * (topic-html.ts) and rendered markdown.
 */
function withDisplays(found: ReviewShow) {
  return {
    ...found,
    topics: found.topics.map((topic) => ({
      ...topic,
      conflicts: topic.conflicts.map((conflict) => ({
        ...conflict,
        ...(conflict.ours !== undefined ? { oursDisplay: displaySide(topic.path, conflict.ours) } : {}),
        ...(conflict.theirs !== undefined ? { theirsDisplay: displaySide(topic.path, conflict.theirs) } : {}),
      })),
    })),
  };
}

/** GET /api/reviews' filter: `?agent=&author=&impact=&model=&session=&since=` (each at most once; empty means any). */
function reviewFilter(url: URL): ReviewFilter {
  const filter: ReviewFilter = {};
  for (const name of ['agent', 'author', 'impact', 'model', 'session', 'since'] as const) {
    const value = queryString(url, name);
    if (value === undefined || value.trim() === '') continue;
    if (value.length > 200) throw new HttpError(400, 'invalid-request', `${name} is too long.`);
    filter[name] = value;
  }
  return filter;
}

/** A batch item's failure in its place: a library error as it is, anything else as internal-error. */
function failure(error: unknown): ApiFailure {
  if (isBrvError(error)) return { kind: error.kind, message: error.message };
  return { kind: 'internal-error', message: 'Unexpected failure deciding this review.' };
}

/** The review inbox's part of the JSON API (see README, "Web dashboard"): method → path → handler. */
export function reviewRoutes() {
  return {
    '/api/reviews': {
      GET: async ({ brv, url }) => (await brv()).review.pendingWithDiffs(reviewFilter(url)),
    },
    '/api/reviews/approve': {
      POST: async ({ brv, req }) => {
        return (await brv()).review.approve(decisionBody(await readJsonBody(req), true));
      },
    },
    '/api/reviews/reject': {
      POST: async ({ brv, req }) => {
        return unlessConflicted(await (await brv()).review.reject(decisionBody(await readJsonBody(req), false)));
      },
    },
    '/api/reviews/conflicts': {
      GET: async ({ brv, url }) => withDisplays(await (await brv()).review.conflicts({ id: queryString(url, 'id', true) })),
    },
    '/api/reviews/resolve': {
      POST: async ({ brv, req }) => (await brv()).review.resolve(resolveBody(await readJsonBody(req)), ACTOR),
    },
    '/api/reviews/batch': {
      // Applied in order, each on its own: one failing leaves the others (200 with its error in its place).
      POST: async ({ brv, req }) => {
        const decisions = batchBody(await readJsonBody(req));
        const b = await brv();
        const results = [];
        for (const { decision, request } of decisions) {
          try {
            const result = decision === 'approve' ? await b.review.approve(request) : unlessConflicted(await b.review.reject(request));
            results.push({ id: request.id, decision, ok: true as const, result });
          } catch (error) {
            results.push({ id: request.id, decision, ok: false as const, error: failure(error) });
          }
        }
        return { results };
      },
    },
  } satisfies TypedRoutes<
    | '/api/reviews'
    | '/api/reviews/approve'
    | '/api/reviews/reject'
    | '/api/reviews/conflicts'
    | '/api/reviews/resolve'
    | '/api/reviews/batch'
  >;
}
