/**
 * bench/cold-query: the first `brv query` in a fresh repository whose topics arrived as a clone or
 * fetch brings them — written with `git fast-import`, so there is no per-blob cache and no index —
 * end to end (process start to exit). Each run is a new repository of `--topics` long chat-session
 * topics (`--turns` turns of `--words` words each: 40 × 125 ≈ 5,000 words, ~36 KB, by default).
 * Prints wall and CPU time (user + system, git included; CPU is the figure to compare on a shared
 * machine) as p50 over `--runs` repositories, beside the floor `node -e 0`; writes bench/results/cold-query.json.
 * Usage: node --import tsx bench/cold-query.ts [--runs 7 --topics 50 --turns 40 --words 125 --cli dist/cli/main.js]
 *   [--without-extra-ca-certs]
 * When NODE_EXTRA_CA_CERTS is set (as in some sandboxes and corporate set-ups), every Node process
 * parses that certificate bundle before it runs any code: ~35 ms of `node -e 0` on the machine of
 * docs/archive/bench-notebook-2026.md. `--without-extra-ca-certs` runs brv and the floor without it, as most users run.
 */
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { argValue, BENCH_ENV, CLI, percentiles, waitForMaintenance, writeReport } from './lib/report.js';

const runs = Number(argValue('runs', '7'));
const topics = Number(argValue('topics', '50'));
const turns = Number(argValue('turns', '40'));
const words = Number(argValue('words', '125'));
const withoutExtraCa = process.argv.includes('--without-extra-ca-certs');
const env: Record<string, string | undefined> = withoutExtraCa
  ? Object.fromEntries(Object.entries(BENCH_ENV).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS'))
  : BENCH_ENV;
const extraCaCerts = env.NODE_EXTRA_CA_CERTS !== undefined;
/** Another build to compare (e.g. the base commit's dist/cli/main.js). */
const cli = path.resolve(argValue('cli', CLI));

const VOCABULARY = [
  'alpha', 'budget', 'camera', 'design', 'evening', 'forest', 'garden', 'hiking', 'island', 'journey',
  'kitchen', 'lemon', 'museum', 'notebook', 'orange', 'piano', 'quartz', 'recipe', 'sunset', 'travel',
  'weekend', 'painting', 'violin', 'pottery', 'camping', 'bakery', 'guitar', 'festival', 'marathon', 'puppy',
]; // prettier-ignore

/** A deterministic chat session as a topic: a `<ul>` of turns, the shape of a held-out session topic. */
function sessionTopic(index: number): string {
  let state = index * 7919 + 17;
  const word = () => VOCABULARY[(state = (state * 1103515245 + 12345) % 2147483648) % VOCABULARY.length]!;
  const items: string[] = [];
  for (let t = 0; t < turns; t++) {
    const text = Array.from({ length: words }, word).join(' ');
    items.push(`<li>${t % 2 ? 'user' : 'assistant'}: ${text}.</li>`);
  }
  return `<bv-topic path="sessions/s_${index}" title="Session ${index}" summary="Chat session ${index}">\n  <bv-structure><ul>\n${items.join('\n')}\n</ul></bv-structure>\n</bv-topic>\n`;
}

/** One commit on refs/brv/heads/main holding every topic, written by `git fast-import` as a fetch would bring it. */
function fastImportStream(): string {
  const files: Array<[string, string]> = [['.brv/format', '1\n']];
  for (let i = 0; i < topics; i++) files.push([`sessions/s_${i}.html`, sessionTopic(i)]);
  const parts = ['commit refs/brv/heads/main', 'committer bench <bench@example.com> 1700000000 +0000', 'data 5', 'bench'];
  for (const [file, content] of files) {
    parts.push(`M 100644 inline ${file}`, `data ${Buffer.byteLength(content)}`, content);
  }
  return parts.join('\n') + '\n';
}

async function timed(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ ms: number; cpuMs: number; maxRssMiB: number; stdout: string; stderr: string }> {
  const start = process.hrtime.bigint();
  const result = await execa('/usr/bin/time', ['-f', '%M %U %S', command, ...args], { cwd, env, extendEnv: false });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const [rss, user, system] = result.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
  return { ms, cpuMs: (user + system) * 1000, maxRssMiB: Math.round(rss / 1024), stdout: result.stdout, stderr: result.stderr };
}

const stream = fastImportStream();
const floor = [];
const first = [];
for (let run = 0; run < runs; run++) {
  const repo = await mkdtemp(path.join(tmpdir(), 'brv-bench-cold-'));
  try {
    await execa('git', ['init', '-q', repo], { env });
    await execa('git', ['fast-import', '--quiet'], { cwd: repo, env, input: stream });
    floor.push(await timed('node', ['-e', '0'], repo));
    const result = await timed(
      'node',
      [cli, 'query', 'which pottery festival did the user visit', '--limit', '50', '--format', 'json'],
      repo,
    );
    const data = JSON.parse(result.stdout).data as { matchedDocs: unknown[] };
    if (data.matchedDocs.length === 0) throw new Error('the query found nothing: the tree was not indexed');
    first.push(result);
    await waitForMaintenance(repo); // started in the background: it caches what the query extracted
    console.error(`run ${run + 1}: ${Math.round(result.ms)} ms wall, ${Math.round(result.cpuMs)} ms CPU`);
    if (process.env.BRV_TRACE) console.error(result.stderr);
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}
const summary = {
  topics,
  extraCaCerts,
  bytesPerTopic: Buffer.byteLength(sessionTopic(0)),
  firstQueryMs: percentiles(first.map((r) => r.ms)),
  firstQueryCpuMs: percentiles(first.map((r) => r.cpuMs)),
  firstQueryMaxRssMiB: Math.max(...first.map((r) => r.maxRssMiB)),
  nodeFloorMs: percentiles(floor.map((r) => r.ms)),
  nodeFloorCpuMs: percentiles(floor.map((r) => r.cpuMs)),
};
console.log(
  `cold first query, ${topics} topics of ${summary.bytesPerTopic} bytes, ${runs} fresh repositories: ` +
    `p50 ${Math.round(summary.firstQueryMs.p50)} ms wall, ${Math.round(summary.firstQueryCpuMs.p50)} ms CPU, ` +
    `peak ${summary.firstQueryMaxRssMiB} MiB (node -e 0: ${Math.round(summary.nodeFloorMs.p50)} ms wall, ${Math.round(summary.nodeFloorCpuMs.p50)} ms CPU)` +
    `; NODE_EXTRA_CA_CERTS ${extraCaCerts ? 'set' : 'not set'}`,
);
console.log(`wrote ${await writeReport(withoutExtraCa ? 'cold-query-without-extra-ca' : 'cold-query', summary)}`);
