// The web API's shared types (src/web/api-types.ts) against the server's answers. The first half is checked by
// `npm run typecheck` (tsc over test/): every route table's inferred answers must fit the shared types exactly —
// assignable, and deep through objects, arrays and unions with no field the shared type lacks — and the route
// tables and ApiRoutes must list the same endpoints and methods, so a change of a result's shape on either side
// fails the type check, not a browser. (Request bodies need no check here: request.ts objectBody takes every
// field of the body's shared type, and each parser returns that type.) The second half checks the same at run
// time for answers built by spreading.
import test from 'ava';
import type { SyncProgress } from '../../src/service/sharing.js';
import type {
  ApiBodies,
  ApiRoutes,
  ChangeEvent as ApiChangeEvent,
  StatusResponse,
  SyncProgress as ApiSyncProgress,
  TopicResponse,
} from '../../src/web/api-types.js';
import type { ChangeEvent } from '../../src/web/events.js';
import type { actionRoutes } from '../../src/web/action-routes.js';
import type { manageRoutes } from '../../src/web/manage-routes.js';
import type { STREAMED } from '../../src/web/request.js';
import type { reviewRoutes } from '../../src/web/review-routes.js';
import type { apiRoutes } from '../../src/web/server.js';
import type { treeRoutes } from '../../src/web/tree-routes.js';
import { cleanup } from '../helpers/repo.js';
import { knowledgeRepo, request, session, startFor } from './http.js';

type Server = ReturnType<typeof apiRoutes> &
  ReturnType<typeof treeRoutes> &
  ReturnType<typeof reviewRoutes> &
  ReturnType<typeof manageRoutes> &
  ReturnType<typeof actionRoutes>;
/** What the handler of `method` on `path` answers as JSON (a stream's marker is not an answer). */
type Answer<P extends keyof Server, M extends keyof Server[P]> = Server[P][M] extends (...args: never[]) => Promise<infer R>
  ? Exclude<R, typeof STREAMED>
  : never;

/** true only when every check is true (a `false` anywhere, or `boolean`, fails). */
type All<X> = [false] extends [X] ? false : true;
/** Each member of S (a union is taken member by member) fits some member of T. */
type Exact<S, T> = S extends unknown ? (true extends (T extends unknown ? FitsOne<S, T> : never) ? true : false) : never;
/** Fields of S that T does not declare (a field that is always undefined is never sent: not counted). */
type Extra<S, T> = { [K in keyof S]-?: K extends keyof T ? never : [S[K]] extends [undefined] ? never : K }[keyof S];
/** S is assignable to T, and so is each of its fields and elements, with no field T lacks. */
type FitsOne<S, T> = [S] extends [T]
  ? S extends ReadonlyArray<infer SE>
    ? T extends ReadonlyArray<infer TE>
      ? All<Exact<SE, TE>>
      : false
    : S extends object
      ? [Extra<S, T>] extends [never]
        ? All<{ [K in keyof S & keyof T]-?: Exact<S[K], T[K]> }[keyof S & keyof T]>
        : false
      : true
  : false;

type Methods<R> = { [P in keyof R]: keyof R[P] };
// Every declared endpoint and method is in the route tables, and the route tables declare nothing else.
const sameRoutes: [Exclude<keyof ApiRoutes, keyof Server>, Exclude<keyof Server, keyof ApiRoutes>] extends [never, never] ? true : false =
  true;
const sameMethods: {
  [P in keyof ApiRoutes & keyof Server]: [Methods<ApiRoutes>[P]] extends [Methods<Server>[P]]
    ? [Methods<Server>[P]] extends [Methods<ApiRoutes>[P]]
      ? true
      : false
    : false;
} = {
  '/api/status': true,
  '/api/topic': true,
  '/api/topic/history': true,
  '/api/search': true,
  '/api/changes': true,
  '/api/tree': true,
  '/api/topic/links': true,
  '/api/sources': true,
  '/api/reviews': true,
  '/api/reviews/approve': true,
  '/api/reviews/reject': true,
  '/api/reviews/conflicts': true,
  '/api/reviews/resolve': true,
  '/api/reviews/batch': true,
  '/api/topic/diff': true,
  '/api/commit': true,
  '/api/edit': true,
  '/api/branches': true,
  '/api/sync/fetch': true,
  '/api/sync/pull': true,
  '/api/sync/push': true,
  '/api/sync/sync': true,
  '/api/setup': true,
  '/api/settings': true,
  '/api/hooks/install': true,
  '/api/hooks/uninstall': true,
  '/api/connectors/install': true,
  '/api/connectors/uninstall': true,
  '/api/curate/form': true,
  '/api/curate/check': true,
  '/api/topics': true,
  '/api/topics/remove': true,
  '/api/ask': true,
  '/api/dream': true,
  '/api/branches/create': true,
  '/api/branches/checkout': true,
  '/api/branches/merge': true,
  '/api/providers': true,
  '/api/providers/models': true,
  '/api/providers/connect': true,
  '/api/providers/model': true,
  '/api/providers/switch': true,
  '/api/providers/disconnect': true,
};
// Every request body belongs to a declared endpoint and method.
const bodiesDeclared: {
  [P in keyof ApiBodies]: P extends keyof ApiRoutes ? (keyof ApiBodies[P] extends keyof ApiRoutes[P] ? true : false) : false;
} = {
  '/api/reviews/approve': true,
  '/api/reviews/reject': true,
  '/api/reviews/resolve': true,
  '/api/reviews/batch': true,
  '/api/edit': true,
  '/api/sync/fetch': true,
  '/api/sync/pull': true,
  '/api/sync/push': true,
  '/api/sync/sync': true,
  '/api/settings': true,
  '/api/hooks/install': true,
  '/api/hooks/uninstall': true,
  '/api/connectors/install': true,
  '/api/connectors/uninstall': true,
  '/api/curate/check': true,
  '/api/topics': true,
  '/api/topics/remove': true,
  '/api/ask': true,
  '/api/dream': true,
  '/api/branches/create': true,
  '/api/branches/checkout': true,
  '/api/branches/merge': true,
  '/api/providers/connect': true,
  '/api/providers/model': true,
  '/api/providers/switch': true,
  '/api/providers/disconnect': true,
};
// The progress lines of a streamed sync (src/web/progress-stream.ts) carry the service's progress as it is.
const progressFits: All<Exact<SyncProgress, ApiSyncProgress>> = true;
// So do the live events of GET /api/events (src/web/events.ts), one per moved ref.
const eventsFit: All<Exact<ChangeEvent, ApiChangeEvent>> = true;
const answersFit: {
  [P in keyof ApiRoutes & keyof Server]: { [M in keyof ApiRoutes[P] & keyof Server[P]]: All<Exact<Answer<P, M>, ApiRoutes[P][M]>> };
} = {
  '/api/status': { GET: true },
  '/api/topic': { GET: true },
  '/api/topic/history': { GET: true },
  '/api/search': { GET: true },
  '/api/changes': { GET: true },
  '/api/tree': { GET: true },
  '/api/topic/links': { GET: true },
  '/api/sources': { GET: true },
  '/api/reviews': { GET: true },
  '/api/reviews/approve': { POST: true },
  '/api/reviews/reject': { POST: true },
  '/api/reviews/conflicts': { GET: true },
  '/api/reviews/resolve': { POST: true },
  '/api/reviews/batch': { POST: true },
  '/api/topic/diff': { GET: true },
  '/api/commit': { GET: true },
  '/api/edit': { GET: true, PUT: true },
  '/api/branches': { GET: true },
  '/api/sync/fetch': { POST: true },
  '/api/sync/pull': { POST: true },
  '/api/sync/push': { POST: true },
  '/api/sync/sync': { POST: true },
  '/api/setup': { GET: true },
  '/api/settings': { PUT: true },
  '/api/hooks/install': { POST: true },
  '/api/hooks/uninstall': { POST: true },
  '/api/connectors/install': { POST: true },
  '/api/connectors/uninstall': { POST: true },
  '/api/curate/form': { GET: true },
  '/api/curate/check': { POST: true },
  '/api/topics': { POST: true },
  '/api/topics/remove': { POST: true },
  '/api/ask': { POST: true },
  '/api/dream': { POST: true },
  '/api/branches/create': { POST: true },
  '/api/branches/checkout': { POST: true },
  '/api/branches/merge': { POST: true },
  '/api/providers': { GET: true },
  '/api/providers/models': { GET: true },
  '/api/providers/connect': { POST: true },
  '/api/providers/model': { POST: true },
  '/api/providers/switch': { POST: true },
  '/api/providers/disconnect': { POST: true },
};

// The fields of two answers, listed once for the run-time check (a missing or extra key fails the type check).
const statusFields: Record<keyof StatusResponse, true> = {
  repository: true,
  branch: true,
  head: true,
  topics: true,
  pendingReviews: true,
  version: true,
  upstream: true,
  incoming: true,
};
const topicFields: Record<keyof TopicResponse, true> = {
  path: true,
  title: true,
  html: true,
  raw: true,
  markdown: true,
  commit: true,
  source: true,
};

test('the answers sent hold the shared types’ fields and no others', async (t) => {
  t.true(sameRoutes && Object.values(sameMethods).every(Boolean) && Object.values(bodiesDeclared).every(Boolean));
  t.true(progressFits && eventsFit && Object.values(answersFit).every((methods) => Object.values(methods).every(Boolean)));
  const { repo } = await knowledgeRepo();
  const server = await startFor(repo);
  try {
    const get = async (p: string) => {
      const answer = await request(server.port, { path: p, headers: session(server) });
      t.is(answer.status, 200, `${p}: ${answer.body}`);
      return answer.json as Record<string, unknown>;
    };
    t.deepEqual(Object.keys(await get('/api/status')).sort(), Object.keys(statusFields).sort());
    const topic = Object.keys(await get('/api/topic?path=security/auth'));
    t.deepEqual(
      topic.sort(),
      Object.keys(topicFields)
        .filter((key) => key !== 'source')
        .sort(),
    );
  } finally {
    await server.close();
    await cleanup(repo);
  }
});
