/**
 * bench/mcp: `brv-query` through a real MCP client against a spawned `brv mcp` over stdio, in a
 * tree of N topics. The server keeps the repository and its index open between calls, so after the
 * first call a query costs no process start. Usage: npm run bench:mcp [-- --topics 10000 --runs 50]
 * Reports the first call (index build or load), then warm calls: the time the server reports for
 * the query itself and the client's round trip. Writes bench/results/mcp.json.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syntheticQuestions, writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const topics = Number(argValue('topics', '10000'));
const runs = Number(argValue('runs', '50'));

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-mcp-'));
const repo = path.join(work, 'repo');
await mkdir(repo);
await execa('git', ['init', '-q', repo], { env: BENCH_ENV });
await writeSyntheticTopics(path.join(work, 'topics'), topics);
await execa('node', [CLI, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: repo, env: BENCH_ENV });
console.error(`prepared ${topics} topics`);

const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd: repo, env: BENCH_ENV, stderr: 'inherit' });
const client = new Client({ name: 'brv-bench', version: '1.0.0' });
await client.connect(transport);

async function query(words: string): Promise<{ roundTrip: number; server: number }> {
  const start = process.hrtime.bigint();
  const result = await client.callTool({ name: 'brv-query', arguments: { query: words, limit: 10 } });
  const roundTrip = Number(process.hrtime.bigint() - start) / 1e6;
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  if (result.isError) throw new Error(text);
  const server = Number(/in (\d+)ms/.exec(text)?.[1] ?? NaN);
  return { roundTrip, server };
}

const asked = syntheticQuestions(topics, runs + 1);
const first = await query(asked[0]!);
const roundTrips: number[] = [];
const serverTimes: number[] = [];
for (const question of asked.slice(1)) {
  const { roundTrip, server } = await query(question);
  roundTrips.push(roundTrip);
  if (Number.isFinite(server)) serverTimes.push(server);
}
await client.close();

const result = {
  topics,
  runs,
  firstCallMs: Math.round(first.roundTrip),
  warmRoundTrip: percentiles(roundTrips),
  warmServerQuery: percentiles(serverTimes),
};
console.log(JSON.stringify(result, null, 2));
await writeReport('mcp', result);
await rm(work, { recursive: true, force: true });
