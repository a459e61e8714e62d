// The web API's shared types (src/web/api-types.ts) against the server's answers. The first half is checked by
// `npm run typecheck` (tsc over test/): the route table's inferred answers must fit the shared types exactly —
// assignable, and with no field the shared type lacks — so a change of a result's shape on either side fails the
// type check, not a browser. The second half checks the same at run time for answers built by spreading.
import test from 'ava';
import type { ApiRoutes, StatusResponse, TopicResponse } from '../../src/web/api-types.js';
import type { apiRoutes } from '../../src/web/server.js';
import type { treeRoutes } from '../../src/web/tree-routes.js';
import { cleanup } from '../helpers/repo.js';
import { knowledgeRepo, request, session, startFor } from './http.js';

type Server = ReturnType<typeof apiRoutes> & ReturnType<typeof treeRoutes>;
type Answer<P extends keyof Server, M extends keyof Server[P]> = Server[P][M] extends (...args: never[]) => Promise<infer R> ? R : never;

/** Each member of S (a union is taken member by member) is assignable to T and has no field T lacks. */
type Fits<S, T> = S extends unknown ? ([S] extends [T] ? ([Exclude<keyof S, keyof T>] extends [never] ? true : false) : false) : never;
/** Fits, also for an array's elements. */
type DeepFits<S, T> =
  S extends ReadonlyArray<infer SE> ? (T extends ReadonlyArray<infer TE> ? DeepFits<SE, TE> : false) : Fits<S, T> | FieldsFit<S, T>;
type FieldsFit<S, T> = S extends object
  ? { [K in keyof S & keyof T]: S[K] extends object ? DeepFits<S[K], T[K]> : true }[keyof S & keyof T]
  : true;
/** true only when every check is true (a `false` anywhere, or `boolean`, fails). */
type All<X> = [false] extends [X] ? false : true;

// Every declared endpoint is in the route table, and the route table's typed part declares nothing else.
const sameRoutes: [Exclude<keyof ApiRoutes, keyof Server>, Exclude<keyof Server, keyof ApiRoutes>] extends [never, never] ? true : false =
  true;
const answersFit: {
  [P in keyof ApiRoutes & keyof Server]: { [M in keyof ApiRoutes[P] & keyof Server[P]]: All<DeepFits<Answer<P, M>, ApiRoutes[P][M]>> };
} = {
  '/api/status': { GET: true },
  '/api/topic': { GET: true },
  '/api/topic/history': { GET: true },
  '/api/search': { GET: true },
  '/api/changes': { GET: true },
  '/api/tree': { GET: true },
  '/api/sources': { GET: true },
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
  t.true(sameRoutes && Object.values(answersFit).every((methods) => Object.values(methods).every(Boolean)));
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
