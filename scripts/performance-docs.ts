/**
 * Writes docs/performance.md from the benches' results (bench/results/*.json): `npm run docs:performance`.
 * For each target, the latest figure any results file holds for it, its date, the floor measured in the
 * same run and the command that produced it. test/performance-docs.test.ts fails when the committed file
 * and the results differ.
 *
 * Each bench's results file is read by the targets that know its shape (`read` below).
 * bench/results/notebook-2026.json holds the last figure the lab notebook
 * (docs/archive/bench-notebook-2026.md) gave for each target, copied from it: those runs' files were not
 * committed. A newer results file of the same target takes its place.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PERFORMANCE_DOCS_FILE = path.join(ROOT, 'docs', 'performance.md');
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

/** One results file: what `writeReport` (bench/lib/report.ts) wrote. */
export interface Result {
  file: string;
  benchmark: string;
  date: string;
  command: string | undefined;
  data: Record<string, unknown>;
}

/** A target's figure from one results file. */
interface Figure {
  figure: string;
  floor?: string | undefined;
  met: boolean | string;
}

interface Target {
  id: string;
  area: 'Speed and scale' | 'Retrieval quality' | 'Safety campaigns';
  what: string;
  goal: string;
  /** The figure a results file of `benchmark` holds for this target, if any. */
  benchmark: string;
  read: (data: Record<string, unknown>) => Figure | undefined;
}

// --- reading JSON of a known shape without trusting it

function at(value: unknown, ...keys: Array<string | number>): unknown {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function num(value: unknown, ...keys: Array<string | number>): number | undefined {
  const found = at(value, ...keys);
  return typeof found === 'number' && Number.isFinite(found) ? found : undefined;
}

/** The element of `list` whose `key` is `value` (a size row of query.json, a group of locomo-*.json). */
function row(list: unknown, key: string, value: unknown): unknown {
  return Array.isArray(list) ? list.find((item) => at(item, key) === value) : undefined;
}

const ms = (value: number) => `${value >= 1000 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1)} ms`;
const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;

/** "p50 X ms" beside its floor, as the protocol asks (bench/README.md): the figure and the floor's multiple. */
function overFloor(p50: number, floor: number | undefined): string | undefined {
  return floor === undefined ? undefined : `node -e 0 ${ms(floor)} (×${(p50 / floor).toFixed(2)})`;
}

function warmQuery(topics: number, goalMs: number): Target['read'] {
  return (data) => {
    const size = row(data.results, 'topics', topics);
    const p50 = num(size, 'queryEndToEnd', 'p50');
    if (p50 === undefined) return undefined;
    const floor = num(size, 'nodeFloor', 'p50');
    return {
      figure: `p50 ${ms(p50)}, p95 ${ms(num(size, 'queryEndToEnd', 'p95') ?? NaN)}`,
      floor: overFloor(p50, floor),
      met: p50 <= goalMs,
    };
  };
}

function locomo(group: string, metric: string, goal: number): Target['read'] {
  return (data) => {
    if (at(data, 'options', 'split') !== 'all' || at(data, 'retriever') !== 'brv.retrieval.query') return undefined;
    const value = num(row(data.groups, 'key', group), 'metrics', metric);
    if (value === undefined) return undefined;
    return { figure: metric === 'mrr' ? value.toFixed(3) : value.toFixed(1), met: value >= goal };
  };
}

/** Attack campaigns: nothing found is the goal. */
function campaign(
  count: (data: Record<string, unknown>) => number | undefined,
  size: (data: Record<string, unknown>) => string,
): Target['read'] {
  return (data) => {
    const found = count(data);
    return found === undefined ? undefined : { figure: `${found} found, ${size(data)}`, met: found === 0 };
  };
}

const length = (value: unknown) => (Array.isArray(value) ? value.length : typeof value === 'number' ? value : undefined);

export const TARGETS: readonly Target[] = [
  {
    id: 'query-warm-1000',
    area: 'Speed and scale',
    what: '`brv query` end to end, warm, 1,000 topics',
    goal: '≤ 100 ms p50',
    benchmark: 'query',
    read: warmQuery(1000, 100),
  },
  {
    id: 'query-warm-10000',
    area: 'Speed and scale',
    what: '`brv query` end to end, warm, 10,000 topics',
    goal: '≤ 200 ms p50',
    benchmark: 'query',
    read: warmQuery(10000, 200),
  },
  {
    id: 'query-in-process-10000',
    area: 'Speed and scale',
    what: 'query in process (index opened per query), 10,000 topics',
    goal: '≤ 10 ms p50',
    benchmark: 'query',
    read: (data) => {
      const p50 = num(row(data.results, 'topics', 10000), 'inProcessMs', 'p50');
      return p50 === undefined ? undefined : { figure: `p50 ${ms(p50)}`, met: p50 <= 10 };
    },
  },
  {
    id: 'first-after-curate-10000',
    area: 'Speed and scale',
    what: 'first query after one curate, 10,000 topics (compaction off the query path)',
    goal: 'no spike: p95 within +100 ms of the warm p50',
    benchmark: 'query',
    read: (data) => {
      const size = row(data.results, 'topics', 10000);
      const p95 = num(size, 'firstAfterCurate', 'p95');
      const warm = num(size, 'queryEndToEnd', 'p50');
      if (p95 === undefined || warm === undefined) return undefined;
      return {
        figure: `p50 ${ms(num(size, 'firstAfterCurate', 'p50') ?? NaN)}, p95 ${ms(p95)}, max ${ms(num(size, 'firstAfterCurate', 'max') ?? NaN)} (warm p50 ${ms(warm)})`,
        floor: overFloor(warm, num(size, 'nodeFloor', 'p50')),
        met: p95 <= warm + 100,
      };
    },
  },
  {
    id: 'full-build-10000',
    area: 'Speed and scale',
    what: 'full index build, 10,000 topics, index and per-blob cache deleted',
    goal: '≤ 3 s',
    benchmark: 'query',
    read: (data) => {
      const build = num(row(data.results, 'topics', 10000), 'rebuildColdCache', 'indexBuildMs');
      return build === undefined ? undefined : { figure: seconds(build), met: build <= 3000 };
    },
  },
  {
    id: 'full-build-100000',
    area: 'Speed and scale',
    what: 'full index build, 100,000 topics, nothing cached',
    goal: '≤ 40 s, ≤ 500 MB',
    benchmark: 'cold-build',
    read: (data) => {
      const run = row(data.results, 'size', 100000);
      const wall = num(run, 'cold', 'ms');
      const cpu = num(run, 'cold', 'cpuMs');
      const rss = num(run, 'cold', 'maxRssMiB');
      if (wall === undefined || rss === undefined) return undefined;
      // On a shared machine the wall time carries other jobs' load; the CPU time is the build's own.
      const time = cpu === undefined ? seconds(wall) : `${seconds(wall)} wall, ${seconds(cpu)} CPU`;
      return { figure: `${time}, ${rss} MiB`, met: Math.min(wall, cpu ?? wall) <= 40_000 && rss <= 500 };
    },
  },
  {
    id: 'import-100000',
    area: 'Speed and scale',
    what: '`brv import` of 100,000 topics, peak RSS',
    goal: '≤ 500 MiB',
    benchmark: 'cold-build',
    read: (data) => {
      const rss = num(row(data.results, 'size', 100000), 'import', 'maxRssMiB');
      return rss === undefined ? undefined : { figure: `${rss} MiB`, met: rss <= 500 };
    },
  },
  {
    id: 'cold-first-query',
    area: 'Speed and scale',
    what: 'first query in a fresh repository, 50 long topics (a clone: no index, no cache)',
    goal: '≤ 250 ms p50',
    benchmark: 'cold-query',
    read: (data) => {
      const p50 = num(data, 'firstQueryMs', 'p50');
      if (p50 === undefined) return undefined;
      const ca = data.extraCaCerts === true ? 'NODE_EXTRA_CA_CERTS set' : 'NODE_EXTRA_CA_CERTS not set';
      return { figure: `p50 ${ms(p50)} (${ca})`, floor: overFloor(p50, num(data, 'nodeFloorMs', 'p50')), met: p50 <= 250 };
    },
  },
  {
    id: 'cold-first-query-plain-node',
    area: 'Speed and scale',
    what: 'the same, without `NODE_EXTRA_CA_CERTS` (as most users run)',
    goal: '≤ 250 ms p50',
    benchmark: 'cold-query-without-extra-ca',
    read: (data) => {
      const p50 = num(data, 'firstQueryMs', 'p50');
      if (p50 === undefined) return undefined;
      return { figure: `p50 ${ms(p50)}`, floor: overFloor(p50, num(data, 'nodeFloorMs', 'p50')), met: p50 <= 250 };
    },
  },
  ...(
    [
      ['long-50', '50 long topics (~5,000 words each)'],
      ['short-10000', '10,000 short topics'],
    ] as const
  ).map(([corpus, topics]): Target => ({
    id: `cold-vs-reference-${corpus}`,
    area: 'Speed and scale',
    what: `first query with no index (fast-imported, \`.git/brv\` deleted) over the reference BM25 CLI's, ${topics}, same run (issue 34)`,
    goal: '≤ ×1.5 p50',
    benchmark: 'cold-vs-reference',
    read: (data) => {
      const c = row(data.corpora, 'corpus', corpus);
      const ratio = num(c, 'coldOverReference');
      const brv = num(c, 'brvCold', 'wallMs', 'p50');
      const reference = num(c, 'refCold', 'wallMs', 'p50');
      if (ratio === undefined || brv === undefined || reference === undefined) return undefined;
      const cpu = num(c, 'coldOverReferenceCpu');
      const load = num(data, 'loadAverage', 'start', 0);
      return {
        figure: `×${ratio} (${ms(brv)} against ${ms(reference)}; CPU ×${cpu}; same answer as warm: ${num(c, 'coldAnswerMismatches') === 0 ? 'yes' : 'no'}${load === undefined ? '' : `; load ${load}`})`,
        floor: overFloor(brv, num(c, 'floor', 'wallMs', 'p50')),
        met: ratio <= 1.5,
      };
    },
  })),
  ...(
    [
      ['short-1000-warm', 1000, 30],
      ['short-10000', 10000, 60],
    ] as const
  ).map(([corpus, topics, goal]): Target => ({
    id: `warm-over-floor-${topics}`,
    area: 'Speed and scale',
    what: `warm \`query\` end to end minus \`node -e 0\`, paired in one run, ${topics.toLocaleString('en-US')} topics (issue 34)`,
    goal: `≤ ${goal} ms`,
    benchmark: 'cold-vs-reference',
    read: (data) => {
      const c = row(data.corpora, 'corpus', corpus);
      const over = num(c, 'warmOverFloorMs', 'p50');
      const floor = num(c, 'floor', 'wallMs', 'p50');
      if (over === undefined || floor === undefined) return undefined;
      const load = num(data, 'loadAverage', 'start', 0);
      return {
        figure: `${ms(over)} over the floor${load === undefined ? '' : ` (load ${load})`}`,
        floor: `node -e 0 ${ms(floor)}`,
        met: over <= goal,
      };
    },
  })),
  {
    id: 'curate-continuation-10000',
    area: 'Speed and scale',
    what: 'curate continuation end to end, 10,000 topics',
    goal: '≤ 250 ms p50',
    benchmark: 'curate',
    read: (data) => {
      const size = row(data.results, 'topics', 10000);
      const p50 = num(size, 'continuation', 'p50');
      if (p50 === undefined) return undefined;
      return {
        figure: `p50 ${ms(p50)}, p95 ${ms(num(size, 'continuation', 'p95') ?? NaN)}`,
        floor: overFloor(p50, num(data, 'nodeFloor', 'p50')),
        met: p50 <= 250,
      };
    },
  },
  {
    id: 'mcp-warm-10000',
    area: 'Speed and scale',
    what: 'warm `brv-query` through a real MCP client, 10,000 topics',
    goal: '≤ 20 ms p50 in the server',
    benchmark: 'mcp',
    read: (data) => {
      const server = num(data, 'warmServerQuery', 'p50');
      if (data.topics !== 10000 || server === undefined) return undefined;
      return { figure: `server p50 ${ms(server)}, round trip p50 ${ms(num(data, 'warmRoundTrip', 'p50') ?? NaN)}`, met: server <= 20 };
    },
  },
  {
    id: 'webui-search',
    area: 'Speed and scale',
    what: '`brv webui`: `GET /api/search` round trip, 10,000 topics',
    goal: '≤ 50 ms server side',
    benchmark: 'webui',
    read: (data) => {
      const p50 = num(data, 'search', 'p50');
      if (data.topics !== 10000 || p50 === undefined) return undefined;
      return { figure: `p50 ${ms(p50)}, p95 ${ms(num(data, 'search', 'p95') ?? NaN)}`, met: p50 <= 50 };
    },
  },
  {
    id: 'webui-page-load',
    area: 'Speed and scale',
    what: '`brv webui`: first page load until the tree shows, 10,000 topics',
    goal: '≤ 500 ms p50',
    benchmark: 'webui',
    read: (data) => {
      const p50 = num(data, 'pageLoad', 'p50');
      if (data.topics !== 10000 || p50 === undefined) return undefined;
      return { figure: `p50 ${ms(p50)}, p95 ${ms(num(data, 'pageLoad', 'p95') ?? NaN)}`, met: p50 <= 500 };
    },
  },
  {
    id: 'webui-load',
    area: 'Speed and scale',
    what: '`brv webui`: 1,000 event streams and 200 requests/s, then one curate',
    goal: 'no error; every stream gets the event',
    benchmark: 'webui',
    read: (data) => {
      const errors = num(data, 'load', 'errors');
      const clients = num(data, 'load', 'clients');
      if (errors === undefined || clients === undefined) return undefined;
      const reached = num(data, 'load', 'eventReached') ?? 0;
      return {
        figure: `${errors} errors of ${num(data, 'load', 'requests') ?? '?'} requests; event reached ${reached} of ${clients} streams; peak RSS ${num(data, 'load', 'serverPeakRssMiB') ?? '?'} MiB`,
        met: errors === 0 && reached === clients,
      };
    },
  },
  {
    id: 'tui-first-paint',
    area: 'Speed and scale',
    what: '`brv` (the REPL): first paint in a real terminal, 10,000 topics',
    goal: '≤ 400 ms p50',
    benchmark: 'tui-startup',
    read: (data) => {
      if (data.topics !== 10000 || !Array.isArray(data.rows)) return undefined;
      const paint = num(data.rows[1], 'p50');
      if (paint === undefined) return undefined;
      return { figure: `p50 ${ms(paint)}`, floor: overFloor(paint, num(data.rows[0], 'p50')), met: paint <= 400 };
    },
  },
  {
    id: 'read-time-import',
    area: 'Speed and scale',
    what: 'warm query with the read-time import of fetched knowledge, nothing moved (B/A)',
    goal: '≤ +5 %',
    benchmark: 'arrival',
    read: () => undefined, // bench/arrival.ts prints its table and writes no results file yet
  },
  {
    id: 'locomo-turn-r5',
    area: 'Retrieval quality',
    what: 'LoCoMo, topic per turn, all 10 conversations: evidence recall@5, cats 1–5',
    goal: '≥ 70',
    benchmark: 'locomo-turn',
    read: locomo('1-5', 'recall@5', 70),
  },
  {
    id: 'locomo-multihop-r10',
    area: 'Retrieval quality',
    what: 'LoCoMo, topic per turn: multi-hop recall@10 (DRAGON 46.6)',
    goal: '≥ 55',
    benchmark: 'locomo-turn',
    read: locomo('1', 'recall@10', 55),
  },
  {
    id: 'locomo-session-all5',
    area: 'Retrieval quality',
    what: 'LoCoMo, topic per session: recall_all@5, cats 1–4',
    goal: '≥ 90',
    benchmark: 'locomo-session',
    read: locomo('1-4', 'all@5', 90),
  },
  {
    id: 'locomo-session-mrr',
    area: 'Retrieval quality',
    what: 'LoCoMo, topic per session: MRR, cats 1–4',
    goal: '≥ 0.88',
    benchmark: 'locomo-session',
    read: locomo('1-4', 'mrr', 0.88),
  },
  {
    id: 'never-below-bm25',
    area: 'Retrieval quality',
    what: 'figures below the Lunr BM25 stand-in: three corpora (LoCoMo as turns, sessions, haystacks; coding; long documents) × tune and validate × every category',
    goal: 'none',
    benchmark: 'against-bm25',
    read: (data) => {
      const below = num(data, 'below');
      const compared = num(data, 'compared');
      if (below === undefined || compared === undefined) return undefined;
      const p = num(data, 'significant', 'below');
      return {
        figure: `${below} of ${compared} below, ${num(data, 'above') ?? '?'} above${p === undefined ? '' : `; ${p} of those below differ with p < 0.05`}`,
        met: below === 0,
      };
    },
  },
  {
    id: 'attack-kill9',
    area: 'Safety campaigns',
    what: 'kill -9 at seeded points of every write path',
    goal: 'nothing lost or broken',
    benchmark: 'attack-kill9',
    read: campaign(
      (data) => num(data, 'problems'),
      (data) => `${num(data, 'runs') ?? '?'} runs, ${num(data, 'killedWhileRunning') ?? '?'} killed while running`,
    ),
  },
  {
    id: 'attack-fuzz-topics',
    area: 'Safety campaigns',
    what: 'fuzzed hostile topics through the validator and the writer',
    goal: 'nothing executable stored',
    benchmark: 'attack-fuzz-topics',
    read: campaign(
      (data) =>
        typeof data.unsafeStored === 'number' ? data.unsafeStored + (num(data, 'storedProblems') ?? 0) : data.failure ? 1 : undefined,
      (data) => `${num(data, 'cases') ?? '?'} cases`,
    ),
  },
  {
    id: 'attack-probes',
    area: 'Safety campaigns',
    what: 'path, ref and URL injection through every CLI surface',
    goal: 'no finding',
    benchmark: 'attack-probes',
    read: campaign(
      (data) => length(data.findings),
      (data) => `${num(data, 'probes') ?? '?'} probes`,
    ),
  },
  {
    id: 'attack-concurrency',
    area: 'Safety campaigns',
    what: 'concurrent curates racing merges and rejects',
    goal: 'nothing lost',
    benchmark: 'attack-concurrency',
    read: campaign(
      (data) => num(data, 'lostOrBroken'),
      (data) => `${num(data, 'rounds') ?? '?'} rounds × ${num(data, 'writers') ?? '?'} writers`,
    ),
  },
  {
    id: 'attack-mcp',
    area: 'Safety campaigns',
    what: '1,000 MCP tool calls at once, hostile ones among them',
    goal: 'every call answered right, nothing lost',
    benchmark: 'attack-mcp',
    read: campaign(
      (data) => length(data.findings),
      (data) => `${num(data, 'rounds') ?? '?'} rounds of ${num(data, 'calls') ?? '?'} calls`,
    ),
  },
  {
    id: 'attack-render-oracle',
    area: 'Safety campaigns',
    what: 'hostile vectors, fuzz topics and real outputs in five Markdown renderers',
    goal: 'nothing live',
    benchmark: 'attack-render-oracle',
    read: campaign(
      (data) => {
        const parts = [
          num(data, 'corpus', 'findings'),
          num(data, 'fuzz', 'findings'),
          num(data, 'outputs', 'liveOutputs'),
          num(data, 'model', 'liveOutputs'),
        ];
        return parts.some((part) => part === undefined) ? undefined : parts.reduce((sum: number, part) => sum + part!, 0);
      },
      () => 'corpus, fuzz, real outputs and model replies',
    ),
  },
  {
    id: 'attack-oversized-blobs',
    area: 'Safety campaigns',
    what: 'a 600 MB planted topic blob through diff, show, read and merge',
    goal: 'typed `too-large`, memory far below the blob',
    benchmark: 'attack-oversized-blobs',
    read: () => undefined, // its runs are a list of commands; the notebook's table is the figure
  },
];

// --- the notebook's figures (copied from docs/archive/bench-notebook-2026.md)

interface NotebookFigure extends Figure {
  target: string;
  date: string;
  command: string;
  section: string;
}

function notebookFigures(result: Result): NotebookFigure[] {
  const list = result.data.figures;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    const target = at(item, 'target');
    const date = at(item, 'date');
    const figure = at(item, 'figure');
    const command = at(item, 'command');
    const section = at(item, 'section');
    const met = at(item, 'met');
    const floor = at(item, 'floor');
    if (typeof target !== 'string' || typeof date !== 'string' || typeof figure !== 'string' || typeof command !== 'string') return [];
    if (typeof section !== 'string' || (typeof met !== 'boolean' && typeof met !== 'string')) return [];
    return [{ target, date, figure, command, section, met, floor: typeof floor === 'string' ? floor : undefined }];
  });
}

// --- choosing and rendering

interface Row extends Figure {
  date: string;
  command: string;
  source: string;
}

export function readResults(dir: string = RESULTS_DIR): Result[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  return files.flatMap((name) => {
    const data = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as unknown;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
    const record = data as Record<string, unknown>;
    if (typeof record.benchmark !== 'string' || typeof record.date !== 'string') return [];
    const command = typeof record.command === 'string' ? record.command : undefined;
    return [{ file: name, benchmark: record.benchmark, date: record.date, command, data: record }];
  });
}

/** The latest figure of each target: from the results files that hold one, the notebook's among them. */
export function latestFigures(results: readonly Result[]): Map<string, Row> {
  const latest = new Map<string, Row>();
  const offer = (id: string, row: Row) => {
    const current = latest.get(id);
    if (!current || row.date > current.date) latest.set(id, row);
  };
  for (const result of results) {
    if (result.benchmark === 'notebook-2026') {
      for (const figure of notebookFigures(result)) offer(figure.target, { ...figure, source: `notebook, "${figure.section}"` });
      continue;
    }
    for (const target of TARGETS) {
      if (target.benchmark !== result.benchmark) continue;
      const figure = target.read(result.data);
      if (figure)
        offer(target.id, {
          ...figure,
          date: result.date,
          command: result.command ?? `(not recorded; bench/${result.benchmark})`,
          source: `bench/results/${result.file}`,
        });
    }
  }
  return latest;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const metText = (met: boolean | string) => (met === true ? 'yes' : met === false ? '**no**' : met);

export function renderPerformanceDocs(results: readonly Result[]): string {
  const latest = latestFigures(results);
  const lines = [
    '# Performance',
    '',
    '<!-- Generated from bench/results/*.json by `npm run docs:performance`; do not edit by hand. -->',
    '',
    "Each target, the latest figure measured for it, the floor measured in the same run (`node -e 0`, and the figure's",
    'multiple of it), the date and the command. Speed targets are read as ratios against that floor: the machines',
    'measured on differ by 2–3×, and a figure taken on one is compared only with figures of the same run',
    '([bench/README.md](../bench/README.md), "The A/B protocol"). "notebook" rows are the last figure the lab notebook',
    'gave ([archive/bench-notebook-2026.md](archive/bench-notebook-2026.md), in the section named); a bench run that',
    "writes the target's results file replaces them. Why each figure is what it is: [decisions/](decisions/).",
  ];
  const areas = ['Speed and scale', 'Retrieval quality', 'Safety campaigns'] as const;
  for (const area of areas) {
    lines.push(
      '',
      `## ${area}`,
      '',
      '| target | goal | latest figure | floor | met | date | command | from |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const target of TARGETS.filter((t) => t.area === area)) {
      const found = latest.get(target.id);
      if (!found) {
        lines.push(`| ${cell(target.what)} | ${cell(target.goal)} | not measured | | | | \`bench/${target.benchmark}\` | |`);
        continue;
      }
      lines.push(
        `| ${cell(target.what)} | ${cell(target.goal)} | ${cell(found.figure)} | ${cell(found.floor ?? '')} | ${cell(metText(found.met))} | ${found.date.slice(0, 10)} | \`${cell(found.command)}\` | ${cell(found.source)} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  writeFileSync(PERFORMANCE_DOCS_FILE, renderPerformanceDocs(readResults()));
  process.stdout.write(`wrote ${path.relative(process.cwd(), PERFORMANCE_DOCS_FILE)}\n`);
}
