import test from 'ava';
import { allProbes, runProbes, sampleProbes } from './lib/probes.js';

// Issue 9, campaign 3 (every probe, ~600: bench/attack/probes.ts). Hostile topic paths, branch, remote
// and alias names, URLs, export and connector targets through the real CLI in a sandbox.

test('path, ref and URL injection probes: nothing runs, nothing is written outside the repository, refusals change nothing', async (t) => {
  const probes = sampleProbes({ paths: 2, names: 2, urls: 4 });
  t.true(new Set(probes.map((p) => p.surface)).size >= 25, 'every surface is probed');
  const results = await runProbes(probes);
  t.deepEqual(
    results.filter((r) => r.problems.length > 0),
    [],
  );
  t.is(results.length, probes.length);
});

test('the probe set covers every hostile value, none is a known failure, and the sample runs the fd:: transports', (t) => {
  const probes = allProbes();
  t.true(probes.length > 500);
  t.deepEqual(
    probes.filter((p) => p.known),
    [],
  );
  // fd:: made git wait on brv's own file descriptors until killed, before transports were allow-listed.
  const sampled = new Set(sampleProbes({ paths: 2, names: 2, urls: 4 }).map((p) => p.payload));
  t.true(sampled.has('fd::0') && sampled.has('fd::7,8'));
});
