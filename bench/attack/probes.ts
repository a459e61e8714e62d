/**
 * bench/attack/probes: issue 9's injection campaign at full size: every hostile topic path, branch,
 * remote and alias name, URL, export and connector target through every CLI surface that takes it,
 * in a sandbox with a sentinel command (see test/attack/lib/probes.ts). Usage:
 *   node --import tsx bench/attack/probes.ts [--surface <text>]
 * Writes bench/results/attack-probes.json; exits 1 on a finding that is not a known issue-9 failure.
 */
import { allProbes, runProbes } from '../../test/attack/lib/probes.js';
import { argValue, writeReport } from '../lib/report.js';

const only = argValue('surface', '');
const probes = allProbes().filter((p) => p.surface.includes(only));
const start = performance.now();
const results = await runProbes(probes, (r) => {
  if (r.problems.length > 0) console.error(`${r.known ? 'known' : 'FINDING'}: ${r.surface} ${r.payload}: ${r.problems.join('; ')}`);
});
const bySurface: Record<string, { probes: number; refused: number; findings: number; known: number }> = {};
for (const r of results) {
  const entry = (bySurface[r.surface] ??= { probes: 0, refused: 0, findings: 0, known: 0 });
  entry.probes++;
  if (r.exitCode !== 0) entry.refused++;
  if (r.problems.length > 0) entry[r.known ? 'known' : 'findings']++;
}
const failing = results.filter((r) => r.problems.length > 0);
const result = {
  probes: results.length,
  seconds: Math.round((performance.now() - start) / 1000),
  findings: failing.filter((r) => !r.known),
  knownFailures: failing.filter((r) => r.known),
  // Not an injection, but no error envelope either (issue 9: option-like values reach yargs' exception).
  stackTraces: results.filter((r) => r.stackTrace).map((r) => `${r.surface} ${r.payload}`),
  bySurface,
};
console.log(JSON.stringify(result, null, 2));
await writeReport('attack-probes', result);
if (result.findings.length > 0) process.exitCode = 1;
