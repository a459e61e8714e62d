import type { Brv } from '../service/brv.js';
import { HttpError, objectBody, readJsonBody, stringField, type Handler } from './request.js';

/** `{ id, topics? }` of approve and reject. */
function decisionBody(body: unknown): { id: string; files: string[] | undefined } {
  const fields = objectBody(body, ['id', 'topics'], '{ "id": "<review id>", "topics"?: [...] }');
  const id = stringField(fields, 'id', 200);
  const { topics } = fields;
  if (topics === undefined) return { id, files: undefined };
  if (
    !Array.isArray(topics) ||
    topics.length === 0 ||
    topics.length > 10_000 ||
    !topics.every((t) => typeof t === 'string' && t.length <= 4096)
  )
    throw new HttpError(400, 'invalid-request', 'topics must be a non-empty array of topic paths.');
  return { id, files: topics as string[] };
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
        const { id, files } = decisionBody(await readJsonBody(req));
        return (await brv()).review.approve({ id, files });
      },
    },
    '/api/reviews/reject': {
      POST: async ({ brv, req }) => {
        const { id, files } = decisionBody(await readJsonBody(req));
        return (await brv()).review.reject({ id, files });
      },
    },
  };
}
