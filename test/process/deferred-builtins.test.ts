import test from 'ava';
import { brv, curateTopic, makeRepo, reply } from '../helpers/repo.js';

/**
 * The launcher hands chunks a stand-in for node:crypto that loads it on first use (~3 ms a command
 * otherwise pays): a warm query hashes nothing, so it never loads it; a command that does hash or
 * draw random bytes gets the real module through the stand-in.
 */
const CRYPTO_LOADED = 'cli: node:crypto loaded';

test('a warm query never loads node:crypto; a curate, which needs it, loads it through the stand-in and works', async (t) => {
  const repo = await makeRepo();
  const written = await curateTopic(
    repo,
    reply('ops/deploy', 'Deploys', '<bv-rule severity="must">Deploy from the pipeline cache.</bv-rule>'),
  );
  t.truthy(written, 'the curate (session ids, temp names: node:crypto) went through');
  const trace = { BRV_TRACE: '1' };
  const curate = await brv(repo, ['curate', 'record something', '--format', 'json'], { env: trace });
  t.is(curate.exitCode, 0, curate.stderr);
  t.true(curate.stderr.includes(CRYPTO_LOADED), 'the kickoff made a session id with node:crypto');
  // The first query builds the index; the next ones hash its segment until its stamp is recorded
  // and settled (segment-stamps.ts: on a loaded machine that can take a few); then the query is warm.
  let warm = await brv(repo, ['query', 'deploy pipeline cache', '--format', 'json'], { env: trace });
  for (let i = 0; i < 8 && warm.stderr.includes(CRYPTO_LOADED); i++)
    warm = await brv(repo, ['query', 'deploy pipeline cache', '--format', 'json'], { env: trace });
  t.is(warm.exitCode, 0, warm.stderr);
  t.regex(warm.stdout, /ops\/deploy/);
  t.true(warm.stderr.includes('query: searched'), 'the trace is on');
  t.false(warm.stderr.includes(CRYPTO_LOADED), warm.stderr);
});
