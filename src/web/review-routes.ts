import { isBrvError } from '../errors.js';
import type { Brv } from '../service/brv.js';
import type { DecisionRequest, ReviewConflicts } from '../service/review.js';
import { renderStoredTopic } from '../topic/stored.js';
import { HttpError, objectBody, queryString, readJsonBody, stringField, type Handler } from './request.js';
import { topicDisplayHtml } from './topic-html.js';

/** Recorded as the Brv-Agent trailer of what the dashboard writes. */
const ACTOR = { agent: 'webui' } as const;
/** Decisions one batch request may carry. */
const MAX_BATCH = 100;

/** `{ id, topics?, keepBoth? }` of approve (keepBoth: approve only) and reject. */
function decisionBody(body: unknown, approve: boolean, where = ''): DecisionRequest {
  const fields = objectBody(
    body,
    approve ? ['id', 'topics', 'keepBoth'] : ['id', 'topics'],
    `${where}{ "id": "<review id>", "topics"?: [...]${approve ? ', "keepBoth"?: true' : ''} }`,
  );
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

type BatchDecision = { decision: 'approve' | 'reject'; request: DecisionRequest };

/** `{ decisions: [{ id, decision, topics?, keepBoth? }] }`: every item checked before any is applied. */
function batchBody(body: unknown): BatchDecision[] {
  const shape = '{ "decisions": [{ "id": "<review id>", "decision": "approve" | "reject", "topics"?: [...], "keepBoth"?: true }] }';
  const { decisions } = objectBody(body, ['decisions'], shape);
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
function resolveBody(body: unknown) {
  const fields = objectBody(
    body,
    ['id', 'topic', 'side', 'section'],
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
  } as const;
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
function withDisplays(found: ReviewConflicts) {
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

/** A batch item's failure in its place: a library error as it is, anything else as internal-error. */
function failure(error: unknown): { kind: string; message: string } {
  if (isBrvError(error)) return { kind: error.kind, message: error.message };
  return { kind: 'internal-error', message: 'Unexpected failure deciding this review.' };
}

/** Reviews shown at most with their diffs (the rest still listed, without). */
const MAX_REVIEWS_WITH_DIFFS = 50;

/**
 * `review.pending()` as is, each operation with `diff`: the unified diff of the topic's rendered
 * markdown for a changed topic, the whole topic as added lines for a new one, null otherwise.
 */
async function withDiffs(brv: Brv) {
  const list = await brv.review.pending();
  const tasks = await Promise.all(
    list.tasks.map(async (task, i) => {
      const shown =
        i < MAX_REVIEWS_WITH_DIFFS ? await brv.history.show({ spec: task.commit, patch: true }).catch(() => undefined) : undefined;
      const changes = shown?.kind === 'commit' ? shown.commit.changes : [];
      const operations = await Promise.all(
        task.operations.map(async (op) => {
          const change = changes.find((c) => c.filePath === op.filePath || c.path === op.path);
          let diff: string | null = change?.diff ?? null;
          if (change?.status === 'added') {
            const read = await brv.knowledge.read({ path: op.path, at: task.commit }).catch(() => undefined);
            diff = read
              ? read.content
                  .replace(/\n$/, '')
                  .split('\n')
                  .map((line) => `+${line}`)
                  .join('\n')
              : null;
          }
          return { ...op, diff };
        }),
      );
      return { ...task, operations };
    }),
  );
  return { ...list, tasks };
}

/** The review inbox's part of the JSON API (see README, "Web dashboard"): method → path → handler. */
export function reviewRoutes(): Record<string, Record<string, Handler>> {
  return {
    '/api/reviews': {
      GET: async ({ brv }) => withDiffs(await brv()),
    },
    '/api/reviews/approve': {
      POST: async ({ brv, req }) => {
        return (await brv()).review.approve(decisionBody(await readJsonBody(req), true));
      },
    },
    '/api/reviews/reject': {
      POST: async ({ brv, req }) => {
        return (await brv()).review.reject(decisionBody(await readJsonBody(req), false));
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
            const result = decision === 'approve' ? await b.review.approve(request) : await b.review.reject(request);
            results.push({ id: request.id, decision, ok: true as const, result });
          } catch (error) {
            results.push({ id: request.id, decision, ok: false as const, error: failure(error) });
          }
        }
        return { results };
      },
    },
  };
}
