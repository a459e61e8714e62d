/**
 * bench/cold-vs-reference: issue 34, points 1 and 2, as ratios measured side by side in one run.
 *
 * Two repositories whose topics arrived by `git fast-import` (as a fetch brings them: one pack, no
 * per-blob cache, no index): `--long` chat-session topics of ~5,000 words each (the shape of
 * bench/cold-query.ts) and `--short` synthetic engineering topics (bench/lib/synthetic.ts). On each,
 * `--runs` rounds, each running in rotated order:
 *
 * - brv cold:  `node dist/cli/main.js query "<q>" --format json` after deleting `.git/brv` (no index,
 *   no per-blob cache: what a fresh clone, a `--depth 1` clone or a fresh `fast-import` has);
 * - ref cold:  `python3 bm25.py query "<q>" --format json` after deleting its cache (`.git/bm25-reference`);
 * - brv warm, ref warm: the same again, with what the cold runs left (brv's background maintenance,
 *   which a cold query starts, is waited for first: it must not run into the next measurement);
 * - floor:     `node -e 0`.
 *
 * Each round uses its own question, the same for every command of the round. Prints p50 wall and CPU
 * (user + system, git children included) of each, and the ratios: brv cold / ref cold (point 1,
 * target ≤ 1.5), brv warm − floor (point 2: ≤ 30 ms at 1,000 topics, ≤ 60 ms at 10,000). Checks
 * point 1's "same answer": the cold query's paths and order against the warm one's, every round.
 * `--warm-only 1000` adds corpora measured warm only (brv warm and the floor), for point 2.
 * Writes bench/results/cold-vs-reference.json.
 *
 * Usage: npm run build && node --import tsx bench/cold-vs-reference.ts [--runs 9] [--long 50] [--short 10000]
 *   [--warm-only 1000] [--limit 10] [--cli dist/cli/main.js] [--reference ../shared/reference/bm25-reference/bm25.py]
 *   [--without-extra-ca-certs] [--name cold-vs-reference]
 * `--long 0` or `--short 0` leaves a corpus out.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argValue, BENCH_ENV, CLI, percentiles, waitForMaintenance, writeReport } from './lib/report.js';
import { syntheticQuestions, syntheticTopic } from './lib/synthetic.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(argValue('runs', '9'));
const long = Number(argValue('long', '50'));
const short = Number(argValue('short', '10000'));
const warmOnly = argValue('warm-only', '1000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const limit = argValue('limit', '10');
const cli = path.resolve(argValue('cli', CLI));
const reference = path.resolve(argValue('reference', path.join(ROOT, '../shared/reference/bm25-reference/bm25.py')));
const withoutExtraCa = process.argv.includes('--without-extra-ca-certs');
const env: Record<string, string | undefined> = {
  ...(withoutExtraCa ? Object.fromEntries(Object.entries(BENCH_ENV).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS')) : BENCH_ENV),
  BRV_TRACE: undefined,
};
if (!existsSync(reference)) throw new Error(`no reference CLI at ${reference} (--reference <bm25.py>)`);

// ------------------------------------------------------------------ corpora

const VOCABULARY = [
  'alpha', 'budget', 'camera', 'design', 'evening', 'forest', 'garden', 'hiking', 'island', 'journey',
  'kitchen', 'lemon', 'museum', 'notebook', 'orange', 'piano', 'quartz', 'recipe', 'sunset', 'travel',
  'weekend', 'painting', 'violin', 'pottery', 'camping', 'bakery', 'guitar', 'festival', 'marathon', 'puppy',
]; // prettier-ignore

/** bench/cold-query.ts's long topic: a chat session of 40 turns of 125 words (~5,000 words, ~36 KB). */
function sessionTopic(index: number): string {
  let state = index * 7919 + 17;
  const word = () => VOCABULARY[(state = (state * 1103515245 + 12345) % 2147483648) % VOCABULARY.length]!;
  const items: string[] = [];
  for (let t = 0; t < 40; t++) items.push(`<li>${t % 2 ? 'user' : 'assistant'}: ${Array.from({ length: 125 }, word).join(' ')}.</li>`);
  return `<bv-topic path="sessions/s_${index}" title="Session ${index}" summary="Chat session ${index}">\n  <bv-structure><ul>\n${items.join('\n')}\n</ul></bv-structure>\n</bv-topic>\n`;
}

/** Questions over the long topics: three of its words each, different every round. */
function longQuestions(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const pick = (k: number) => VOCABULARY[(i * 7 + k * 11) % VOCABULARY.length]!;
    return `which ${pick(0)} ${pick(1)} did the user mention with the ${pick(2)}`;
  });
}

/** One commit on refs/brv/heads/main holding every file, as `git fast-import` input. */
function fastImportStream(files: Iterable<[string, string]>): string {
  const parts = ['commit refs/brv/heads/main', 'committer bench <bench@example.com> 1700000000 +0000', 'data 5', 'bench'];
  for (const [file, content] of [['.brv/format', '1\n'] as [string, string], ...files]) {
    parts.push(`M 100644 inline ${file}`, `data ${Buffer.byteLength(content)}`, content);
  }
  return `${parts.join('\n')}\n`;
}

interface Corpus {
  name: string;
  topics: number;
  bytes: number;
  repo: string;
  questions: string[];
  warmOnly: boolean;
}

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-cold-ref-'));

async function corpus(
  name: string,
  topics: number,
  files: Array<[string, string]>,
  questions: string[],
  onlyWarm = false,
): Promise<Corpus> {
  const repo = path.join(work, name);
  await execa('git', ['init', '-q', repo], { env, extendEnv: false });
  await execa('git', ['fast-import', '--quiet'], { cwd: repo, env, extendEnv: false, input: fastImportStream(files) });
  const bytes = files.reduce((sum, [, html]) => sum + Buffer.byteLength(html), 0);
  return { name, topics, bytes, repo, questions, warmOnly: onlyWarm };
}

// ------------------------------------------------------------------ measuring

interface Run {
  ms: number;
  cpuMs: number;
  maxRssMiB: number;
  stdout: string;
}

async function timed(command: string, args: string[], cwd: string): Promise<Run> {
  const start = process.hrtime.bigint();
  const result = await execa('/usr/bin/time', ['-f', '%M %U %S', command, ...args], { cwd, env, extendEnv: false });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const [rss, user, system] = result.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
  return { ms, cpuMs: (user + system) * 1000, maxRssMiB: Math.round(rss / 1024), stdout: result.stdout };
}

/** The paths a `query --format json` printed, in order (brv's and the reference's envelope are the same). */
function paths(run: Run): string[] {
  const parsed = JSON.parse(run.stdout) as { success: boolean; data: { matchedDocs: Array<{ path: string }> } };
  if (!parsed.success) throw new Error(`the query failed: ${run.stdout.slice(0, 300)}`);
  return parsed.data.matchedDocs.map((d) => d.path);
}

type Command = 'brvCold' | 'brvWarm' | 'refCold' | 'refWarm' | 'floor';

async function measure(c: Corpus) {
  const samples: Record<Command, Run[]> = { brvCold: [], brvWarm: [], refCold: [], refWarm: [], floor: [] };
  const maintenanceMs: number[] = [];
  let mismatches = 0;
  const overlap: number[] = [];
  const brv = (q: string) => timed('node', [cli, 'query', q, '--limit', limit, '--format', 'json'], c.repo);
  const ref = (q: string) => timed('python3', [reference, 'query', q, '--limit', limit, '--format', 'json'], c.repo);
  // Warm-up: an index (and the reference's cache) for the warm-only corpora and the first warm runs.
  await brv(c.questions[0]!);
  await waitForMaintenance(c.repo);
  for (let round = 0; round < runs; round++) {
    const q = c.questions[round % c.questions.length]!;
    const got: Partial<Record<Command, Run>> = {};
    const steps: Record<Command, () => Promise<void>> = {
      brvCold: async () => {
        await rm(path.join(c.repo, '.git', 'brv'), { recursive: true, force: true });
        got.brvCold = await brv(q);
        const started = performance.now();
        await waitForMaintenance(c.repo);
        maintenanceMs.push(performance.now() - started);
      },
      brvWarm: async () => {
        got.brvWarm = await brv(q);
      },
      refCold: async () => {
        await rm(path.join(c.repo, '.git', 'bm25-reference'), { recursive: true, force: true });
        got.refCold = await ref(q);
      },
      refWarm: async () => {
        got.refWarm = await ref(q);
      },
      floor: async () => {
        got.floor = await timed('node', ['-e', '0'], c.repo);
      },
    };
    // Cold before warm for each tool (the warm run uses what the cold one left); which tool goes
    // first, and where the floor falls, rotate round by round.
    const orders: Command[][] = c.warmOnly
      ? [
          ['brvWarm', 'floor'],
          ['floor', 'brvWarm'],
        ]
      : [
          ['brvCold', 'refCold', 'brvWarm', 'refWarm', 'floor'],
          ['refCold', 'brvCold', 'floor', 'refWarm', 'brvWarm'],
          ['floor', 'brvCold', 'refCold', 'refWarm', 'brvWarm'],
          ['refCold', 'floor', 'brvCold', 'brvWarm', 'refWarm'],
        ];
    for (const step of orders[round % orders.length]!) await steps[step]();
    for (const [name, run] of Object.entries(got)) samples[name as Command].push(run);
    if (got.brvCold && got.brvWarm) {
      const cold = paths(got.brvCold);
      const warm = paths(got.brvWarm);
      if (cold.join('\n') !== warm.join('\n')) {
        mismatches++;
        console.error(
          `  round ${round + 1}: the cold answer differs from the warm one:\n    cold ${cold.join(' ')}\n    warm ${warm.join(' ')}`,
        );
      }
      if (got.refCold) {
        const theirs = new Set(paths(got.refCold));
        overlap.push(warm.length === 0 ? 1 : warm.filter((p) => theirs.has(p)).length / warm.length);
      }
    }
    const show = (name: Command) => (got[name] ? `${name} ${Math.round(got[name].ms)}/${Math.round(got[name].cpuMs)}` : '');
    console.error(`${c.name} round ${round + 1}: ${(Object.keys(steps) as Command[]).map(show).filter(Boolean).join('  ')} (ms wall/CPU)`);
  }
  const p = (name: Command) => ({
    wallMs: percentiles(samples[name].map((r) => r.ms)),
    cpuMs: percentiles(samples[name].map((r) => r.cpuMs)),
    maxRssMiB: samples[name].length ? Math.max(...samples[name].map((r) => r.maxRssMiB)) : undefined,
  });
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const figures = { brvCold: p('brvCold'), brvWarm: p('brvWarm'), refCold: p('refCold'), refWarm: p('refWarm'), floor: p('floor') };
  const coldRatio = c.warmOnly ? undefined : ratio(figures.brvCold.wallMs.p50, figures.refCold.wallMs.p50);
  const coldCpuRatio = c.warmOnly ? undefined : ratio(figures.brvCold.cpuMs.p50, figures.refCold.cpuMs.p50);
  // Point 2: brv's warm query over the floor, paired round by round.
  const warmOver = percentiles(samples.brvWarm.map((r, i) => r.ms - samples.floor[i]!.ms));
  return {
    corpus: c.name,
    topics: c.topics,
    bytes: c.bytes,
    runs,
    ...figures,
    coldOverReference: coldRatio,
    coldOverReferenceCpu: coldCpuRatio,
    warmOverFloorMs: warmOver,
    maintenanceAfterColdMs: maintenanceMs.length ? percentiles(maintenanceMs) : undefined,
    coldAnswerMismatches: c.warmOnly ? undefined : mismatches,
    top10OverlapWithReference: overlap.length ? Math.round((overlap.reduce((a, b) => a + b, 0) / overlap.length) * 100) / 100 : undefined,
  };
}

// ------------------------------------------------------------------ run

const loadAtStart = os.loadavg().map((l) => Math.round(l * 10) / 10);
const results = [];
try {
  const corpora: Corpus[] = [];
  if (long > 0) {
    const files = Array.from({ length: long }, (_, i): [string, string] => [`sessions/s_${i}.html`, sessionTopic(i)]);
    corpora.push(await corpus(`long-${long}`, long, files, longQuestions(runs)));
  }
  const shortCorpus = async (size: number, onlyWarm: boolean) => {
    const files = Array.from({ length: size }, (_, i): [string, string] => {
      const t = syntheticTopic(i);
      return [`${t.path}.html`, t.html];
    });
    return corpus(`short-${size}${onlyWarm ? '-warm' : ''}`, size, files, syntheticQuestions(size, runs), onlyWarm);
  };
  if (short > 0) corpora.push(await shortCorpus(short, false));
  for (const size of warmOnly) if (size !== short) corpora.push(await shortCorpus(size, true));
  for (const c of corpora) results.push(await measure(c));
} finally {
  await rm(work, { recursive: true, force: true });
}

const ms = (v: number | undefined) => (v === undefined ? '-' : `${Math.round(v)}`);
console.log(
  `\nfirst query with no index, brv against the reference BM25 CLI (p50 of ${runs}, ms wall / CPU; NODE_EXTRA_CA_CERTS ${env.NODE_EXTRA_CA_CERTS ? 'set' : 'not set'}):`,
);
console.log(
  'corpus              brv cold     ref cold     cold ratio (wall, CPU)  brv warm   ref warm   node -e 0   warm − floor  same answer',
);
for (const r of results) {
  const pair = (f: { wallMs: { p50: number; n: number }; cpuMs: { p50: number } }) =>
    f.wallMs.n === 0 ? '-' : `${ms(f.wallMs.p50)}/${ms(f.cpuMs.p50)}`;
  console.log(
    [
      r.corpus.padEnd(18),
      pair(r.brvCold).padStart(10),
      pair(r.refCold).padStart(12),
      (r.coldOverReference === undefined ? '-' : `×${r.coldOverReference}, ×${r.coldOverReferenceCpu}`).padStart(24),
      pair(r.brvWarm).padStart(10),
      pair(r.refWarm).padStart(10),
      pair(r.floor).padStart(11),
      `${ms(r.warmOverFloorMs.p50)} ms`.padStart(13),
      r.coldAnswerMismatches === undefined ? '-' : r.coldAnswerMismatches === 0 ? 'yes' : `NO (${r.coldAnswerMismatches})`,
    ].join(' '),
  );
}
const loadAverage = { start: loadAtStart, end: os.loadavg().map((l) => Math.round(l * 10) / 10) };
console.log(`load average (1, 5, 15 min): ${loadAverage.start.join(' ')} at the start, ${loadAverage.end.join(' ')} at the end`);
await writeReport(argValue('name', withoutExtraCa ? 'cold-vs-reference-without-extra-ca' : 'cold-vs-reference'), {
  cli: path.relative(ROOT, cli),
  reference: path.relative(ROOT, reference),
  extraCaCerts: env.NODE_EXTRA_CA_CERTS !== undefined,
  // Over ~2 on these 2-core machines, wall times stretch with the queueing: read the CPU ratio beside the wall one.
  loadAverage,
  limit: Number(limit),
  targets: { coldOverReference: 1.5, warmOverFloorMs: { 1000: 30, 10000: 60 } },
  corpora: results,
});
