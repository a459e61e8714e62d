/**
 * Issue 35, point 12: a date that names no day (2026-13-45, 2026-02-29) is refused with the typed
 * `invalid-date` error by every command that takes one (--since/--until of query and search, a date
 * given to --at), never read as some other day or as no filter. In process; the dashboard's API too.
 */
import test from 'ava';
import { brvJson, cleanup, curateTopic, makeRepo, reply } from '../helpers/repo.js';
import { request, session, startFor } from '../web/http.js';

test('--since, --until and --at refuse dates that are no day of the calendar; real days still work', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await curateTopic(repo, reply('ops/release', 'Release', '<bv-timestamp>2026-02-28</bv-timestamp><bv-rule>Tag every release.</bv-rule>'));
  for (const args of [
    ['search', 'release', '--since', '2026-13-45'],
    ['query', 'release', '--until', '2026-02-29'],
    ['search', 'release', '--since', '2026-00-10'],
    ['read', 'ops/release', '--at', '2026-13-45'],
    ['search', 'release', '--at', '2026-02-30T10:00'],
  ]) {
    const run = await brvJson(repo, args);
    t.is(run.exitCode, 1, args.join(' '));
    t.is(run.json?.data.error.kind, 'invalid-date', `${args.join(' ')}: ${run.stdout}`);
    t.regex(run.json?.data.error.message ?? '', /20\d\d-\d\d-\d\d/);
  }
  const fine = await brvJson(repo, ['search', 'release', '--since', '2026-02-28', '--until', '2028-02-29']);
  t.is(fine.json?.data.results[0].topicPath, 'ops/release', fine.stdout);
  t.true((await brvJson(repo, ['read', 'ops/release', '--at', '2099-12-31'])).json?.success);

  const server = await startFor(repo);
  t.teardown(() => server.close());
  const answer = await request(server.port, { path: '/api/search?q=release&since=2026-13-45', headers: session(server) });
  t.is(answer.status, 400);
  t.is(answer.json.error.kind, 'invalid-date');
});
