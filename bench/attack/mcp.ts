/**
 * bench/attack/mcp: issue 9's MCP campaign at full size: 1,000 tool calls sent at once over one stdio
 * connection (queries, searches, reads, lists, a curate in ten, hostile calls), raw JSON-RPC (see
 * test/attack/lib/mcp.ts). Every call must be answered as it should be, every curate recorded, and
 * the server must still be healthy. Usage:
 *   node --import tsx bench/attack/mcp.ts [--calls 1000] [--rounds 3] [--no-curates]
 * Writes bench/results/attack-mcp.json; exits 1 when a call was lost or answered wrongly.
 */
import { brvJson, cleanup, git, makeRepo } from '../../test/helpers/repo.js';
import { put } from '../../test/helpers/knowledge.js';
import { fsckProblems } from '../../test/attack/lib/processes.js';
import { answerOf, concurrentCalls, RawMcp } from '../../test/attack/lib/mcp.js';
import { argValue, percentiles, writeReport } from '../lib/report.js';

const calls = Number(argValue('calls', '1000'));
const rounds = Number(argValue('rounds', '3'));
const curates = !process.argv.includes('--no-curates');

const repo = await makeRepo();
const outside = await makeRepo();
await brvJson(repo, ['init']);
await put(repo, 'team/known', '<bv-rule id="r1">A known rule about JWT.</bv-rule>');
const mcp = await RawMcp.start(repo);
const findings: string[] = [];
const perRound = [];
for (let round = 0; round < rounds; round++) {
  const report = await concurrentCalls(mcp, calls, outside, { curates });
  const files = (await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).split('\n');
  const lost = report.written.filter((topic) => !files.includes(`${topic}.html`));
  findings.push(...report.wrong.map((w) => `round ${round}: ${w}`), ...lost.map((l) => `round ${round}: curate lost: ${l}`));
  perRound.push({
    wallMs: report.wallMs,
    answered: report.answered,
    wrong: report.wrong.length,
    curates: report.curatesWritten,
    lost: lost.length,
    latency: percentiles(report.latenciesMs),
  });
  console.error(
    `round ${round}: ${report.answered}/${calls} answered in ${report.wallMs} ms, ${report.wrong.length} wrong, ${lost.length} curates lost`,
  );
  // Each round writes the same paths: remove them so the next round's curates are new topics again.
  if (round < rounds - 1) await brvJson(repo, ['rm', '--recursive', 'mcp']);
}
const healthy = !answerOf(await mcp.callTool('brv-list', {})).isError && mcp.alive;
const fsck = await fsckProblems(repo);
if (!healthy) findings.push(`server unhealthy after the rounds: ${mcp.stderr.slice(0, 500)}`);
if (fsck) findings.push(`git fsck: ${fsck}`);
await mcp.close();
await cleanup(repo, outside);
const result = { calls, rounds, curates, perRound, healthyAfter: healthy, findings };
console.log(JSON.stringify(result, null, 2));
await writeReport('attack-mcp', result);
if (findings.length > 0) process.exitCode = 1;
