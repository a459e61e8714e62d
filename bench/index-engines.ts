/**
 * bench/index-engines: why brv has its own index format. Lunr, MiniSearch and brv's binary segments
 * (src/query) index the same synthetic topics (bench/lib/synthetic.ts, parsed with validateTopicHtml,
 * fields from documentFromTopic) at 1,000 and 10,000 topics, brv's also at 100,000. For each: build
 * time, serialised size, load time (from a buffer in-process, and in a fresh Node process — what every
 * `brv query` pays), in-process query time, and for brv the cost of the first query after one curate.
 *
 *   node --import tsx bench/index-engines.ts [--sizes 1000,10000] [--big 100000] [--runs 15] [--fresh 12]
 *
 * `--big 0` skips 100,000. Parsed documents are cached in the OS temp directory (generating 100,000
 * topics takes minutes). Prints a table and writes bench/results/index-engines.json.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import lunr from 'lunr';
import MiniSearch, { type Options as MiniSearchOptions, type SearchOptions as MiniSearchSearchOptions } from 'minisearch';
import { documentFromTopic, FIELDS, type FieldName, type SegmentInput } from '../src/index/document.js';
import { search } from '../src/search/search.js';
import { buildSegment, mergeSegments, Segment } from '../src/index/segment.js';
import { compact, liveView, type SegmentStack } from '../src/index/stack.js';
import { validateTopicHtml } from '../src/topic/validate.js';
import { syntheticTopic } from './lib/synthetic.js';
import { argValue, percentiles, writeReport } from './lib/report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);

/** Agent-style questions over the synthetic vocabulary; the last two exercise prefix matching. */
const QUERIES = [
  'how do we rotate jwt tokens',
  'postgres replica timeout',
  'idempotent webhook retries',
  'kafka consumer',
  'expired session in redis',
  'feature flag rollout with stripe',
  'why does the cache invalidate stale snapshots',
  'grafana alert on a metric',
  'tenant permission roles',
  'terraform kubernetes build pipeline',
  'kube',
  'observab',
];

// ByteRover's MiniSearch configuration (brv-spec §3.2) over brv's fields.
const MINISEARCH_OPTIONS: MiniSearchOptions<SegmentInput> = {
  idField: 'path',
  fields: [...FIELDS],
  storeFields: ['title'],
  extractField: (doc, field) => (field === 'path' ? doc.path : doc.fields[field as FieldName]),
};
const MINISEARCH_SEARCH: MiniSearchSearchOptions = { boost: { title: 3, path: 1.5, meta: 2, key: 1.5 }, prefix: true, fuzzy: 0.2 };
const LUNR_BOOST: Record<string, number> = { title: 3, path: 1.5, meta: 2, key: 1.5, body: 1 };

const ms = (start: number) => performance.now() - start;
/**
 * This process's peak RSS. Not `resourceUsage().maxRSS`: a child spawned by a large parent inherits
 * the parent's high-water mark through exec on Linux; VmHWM belongs to the new address space.
 */
const peakRssMiB = () => Number(/VmHWM:\s*(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => percentiles(values).p50;

// ---------------------------------------------------------------------------------------------
// Documents (cached as JSON lines, keyed by the code that makes them)

function cacheFile(n: number): string {
  const hash = createHash('sha256');
  for (const file of ['bench/lib/synthetic.ts', 'src/index/document.ts', 'src/topic/text.ts', 'src/topic/hast.ts'])
    hash.update(readFileSync(path.join(root, file)));
  return path.join(tmpdir(), `brv-bench-index-docs-${n}-${hash.digest('hex').slice(0, 12)}.jsonl`);
}

function makeDocument(i: number): SegmentInput {
  const topic = syntheticTopic(i);
  const result = validateTopicHtml(topic.html);
  if (!result.ok) throw new Error(`synthetic topic ${i} is invalid: ${JSON.stringify(result.errors)}`);
  return { ...documentFromTopic(topic.path, result.topic.root), blob: createHash('sha1').update(topic.html).digest('hex') };
}

/** Makes (or finds) the cache of the first `n` documents; returns its file. */
async function ensureDocuments(n: number): Promise<string> {
  const file = cacheFile(n);
  if (existsSync(file)) return file;
  const temp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(temp);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    if (!out.write(`${JSON.stringify(makeDocument(i))}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    if (i % 10_000 === 9_999) console.error(`  generated ${i + 1} of ${n} documents (${round(ms(start) / 1000)} s)`);
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  renameSync(temp, file);
  return file;
}

async function* documentChunks(file: string, size: number): AsyncGenerator<SegmentInput[]> {
  let chunk: SegmentInput[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue;
    chunk.push(JSON.parse(line) as SegmentInput);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

async function loadDocuments(n: number): Promise<SegmentInput[]> {
  const docs: SegmentInput[] = [];
  for await (const chunk of documentChunks(await ensureDocuments(n), 10_000)) docs.push(...chunk);
  return docs;
}

// ---------------------------------------------------------------------------------------------
// Engines

interface Engine {
  name: string;
  build(docs: SegmentInput[]): Uint8Array | string;
  /** From serialised form to something that answers `query`. */
  load(data: Uint8Array | string): (query: string) => number;
  /** Source of a fresh-process script: argv[2] = index file, argv[3] = query; prints timings. */
  child: string;
  extension: string;
}

const ENGINES: Engine[] = [
  {
    name: 'lunr',
    build: (docs) =>
      JSON.stringify(
        lunr(function () {
          this.ref('id');
          for (const field of FIELDS) this.field(field, { boost: LUNR_BOOST[field] });
          for (const doc of docs) this.add({ ...doc.fields, id: doc.path });
        }),
      ),
    load: (data) => {
      const index = lunr.Index.load(JSON.parse(data as string));
      return (query) => index.search(query).length;
    },
    extension: 'json',
    child: `
      import { readFileSync } from 'node:fs';
      import lunr from 'lunr';
      const a = performance.now();
      const text = readFileSync(process.argv[2], 'utf8');
      const b = performance.now();
      const index = lunr.Index.load(JSON.parse(text));
      const c = performance.now();
      const hits = index.search(process.argv[3]).length;
      const d = performance.now();
      console.log(JSON.stringify({ readyMs: a, readMs: b - a, loadMs: c - b, queryMs: d - c, hits, maxRssMiB: Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024 }));`,
  },
  {
    name: 'minisearch',
    build: (docs) => {
      const index = new MiniSearch<SegmentInput>(MINISEARCH_OPTIONS);
      index.addAll(docs);
      return JSON.stringify(index);
    },
    load: (data) => {
      const index = MiniSearch.loadJSON<SegmentInput>(data as string, MINISEARCH_OPTIONS);
      return (query) => index.search(query, MINISEARCH_SEARCH).length;
    },
    extension: 'json',
    child: `
      import { readFileSync } from 'node:fs';
      import MiniSearch from 'minisearch';
      const a = performance.now();
      const text = readFileSync(process.argv[2], 'utf8');
      const b = performance.now();
      const index = MiniSearch.loadJSON(text, { idField: 'path', fields: ${JSON.stringify(FIELDS)}, storeFields: ['title'] });
      const c = performance.now();
      const hits = index.search(process.argv[3], ${JSON.stringify(MINISEARCH_SEARCH)}).length;
      const d = performance.now();
      console.log(JSON.stringify({ readyMs: a, readMs: b - a, loadMs: c - b, queryMs: d - c, hits, maxRssMiB: Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024 }));`,
  },
  {
    name: 'brv',
    build: (docs) => buildSegment(docs),
    load: (data) => {
      const stack: SegmentStack = { segments: [Segment.open(data as Uint8Array)], deleted: new Set() };
      return (query) => search(stack, query, { limit: 10 }).hits.length;
    },
    extension: 'seg',
    child: `
      import { readFileSync } from 'node:fs';
      import { Segment } from './src/index/segment.ts';
      import { search } from './src/search/search.ts';
      const a = performance.now();
      const bytes = readFileSync(process.argv[2]);
      const b = performance.now();
      const stack = { segments: [Segment.open(bytes)], deleted: new Set() };
      const c = performance.now();
      const hits = search(stack, process.argv[3], { limit: 10 }).hits.length;
      const d = performance.now();
      console.log(JSON.stringify({ readyMs: a, readMs: b - a, loadMs: c - b, queryMs: d - c, hits, maxRssMiB: Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024 }));`,
  },
];

/** Bundles a child script the way the CLI ships (esbuild, one ESM file), so start-up is realistic. */
async function bundle(name: string, source: string, dir: string): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = path.join(dir, `${name}.mjs`);
  await build({
    stdin: { contents: source, resolveDir: root, sourcefile: `${name}-child.ts`, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    outfile,
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __brvCreateRequire } from 'node:module'; const require = __brvCreateRequire(import.meta.url);",
    },
  });
  return outfile;
}

interface FreshRun {
  wallMs: number;
  readyMs: number;
  readMs: number;
  loadMs: number;
  queryMs: number;
  hits: number;
  maxRssMiB: number;
}

function fresh(script: string, file: string, query: string): FreshRun {
  const start = performance.now();
  const result = spawnSync(process.execPath, [script, file, query], { encoding: 'utf8' });
  const wallMs = ms(start);
  if (result.status !== 0) throw new Error(`${script} failed: ${result.stderr}`);
  return { wallMs, ...(JSON.parse(result.stdout) as Omit<FreshRun, 'wallMs'>) };
}

function floorRun(): number {
  const start = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return ms(start);
}

function summarizeFresh(runs: FreshRun[]) {
  const pick = (key: keyof FreshRun) => percentiles(runs.map((r) => r[key]));
  return {
    wallMs: pick('wallMs'),
    readyMs: pick('readyMs'),
    readMs: pick('readMs'),
    loadMs: pick('loadMs'),
    firstQueryMs: pick('queryMs'),
    maxRssMiB: pick('maxRssMiB'),
  };
}

function queryTimes(run: (query: string) => number, runs: number) {
  const samples: number[] = [];
  for (const query of QUERIES) {
    for (let i = 0; i < 3; i++) run(query);
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      run(query);
      samples.push(ms(start));
    }
  }
  return percentiles(samples);
}

// ---------------------------------------------------------------------------------------------
// Child mode: brv at 100,000 topics in its own process, so its peak RSS is its own.

async function bigChild(n: number, out: string, chunked: boolean): Promise<void> {
  const file = await ensureDocuments(n);
  const start = performance.now();
  let bytes: Uint8Array;
  if (chunked) {
    // What a full rebuild does in src/index/tree-index.ts: small segments per chunk, then one merge.
    const parts: Segment[] = [];
    for await (const chunk of documentChunks(file, 2000)) parts.push(Segment.open(buildSegment(chunk)));
    bytes = mergeSegments(parts.map((segment) => ({ segment })));
  } else {
    const docs: SegmentInput[] = [];
    for await (const chunk of documentChunks(file, 10_000)) docs.push(...chunk);
    bytes = buildSegment(docs);
  }
  const buildMs = ms(start);
  writeFileSync(out, bytes);
  console.log(JSON.stringify({ buildMs, bytes: bytes.length, maxRssMiB: peakRssMiB() }));
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (argValue('child', '') === 'big')
    return bigChild(Number(argValue('n', '100000')), argValue('out', ''), argValue('chunked', 'yes') === 'yes');

  const sizes = argValue('sizes', '1000,10000').split(',').map(Number);
  const big = Number(argValue('big', '100000'));
  const runs = Number(argValue('runs', '15'));
  const freshRuns = Number(argValue('fresh', '12'));
  const work = path.join(tmpdir(), `brv-bench-index-engines-${process.pid}`);
  mkdirSync(work, { recursive: true });

  // The same parse for every engine: how long a topic takes to become an IndexDocument.
  const parseStart = performance.now();
  for (let i = 0; i < 500; i++) makeDocument(i);
  const parseMsPerTopic = ms(parseStart) / 500;

  const allDocs = await loadDocuments(Math.max(...sizes));
  const scripts = new Map<string, string>();
  for (const engine of ENGINES) scripts.set(engine.name, await bundle(engine.name, engine.child, work));

  const results: Record<string, Record<number, Record<string, unknown>>> = {};
  const files: Array<{ engine: Engine; size: number; file: string }> = [];
  for (const size of sizes) {
    const docs = allDocs.slice(0, size);
    for (const engine of ENGINES) {
      const buildRuns = engine.name === 'lunr' && size >= 10_000 ? 1 : 3;
      const builds: number[] = [];
      let data: Uint8Array | string = '';
      for (let i = 0; i < buildRuns; i++) {
        const start = performance.now();
        data = engine.build(docs);
        builds.push(ms(start));
      }
      const file = path.join(work, `${engine.name}-${size}.${engine.extension}`);
      writeFileSync(file, data);
      files.push({ engine, size, file });
      const loads: number[] = [];
      let run: (query: string) => number = () => 0;
      for (let i = 0; i < 5; i++) {
        // Reading the bytes back as a query process would: for ours, open plus a first query (it is lazy).
        const raw = readFileSync(file);
        const start = performance.now();
        run = engine.load(engine.extension === 'json' ? raw.toString('utf8') : raw);
        if (engine.name === 'brv') run(QUERIES[0]!);
        loads.push(ms(start));
      }
      const query = queryTimes(run, runs);
      (results[engine.name] ??= {})[size] = {
        buildMs: round(median(builds)),
        bytes: statSync(file).size,
        loadFromBufferMs: round(median(loads), 2),
        queryMs: query,
      };
      console.error(
        `${engine.name} ${size}: build ${round(median(builds))} ms, ${statSync(file).size} bytes, load ${round(median(loads), 2)} ms, query p50 ${query.p50} ms`,
      );
    }
  }

  // brv after one curate at the largest size: a one-topic segment on top, the first query pays it.
  const size = Math.max(...sizes);
  const base = Segment.open(readFileSync(files.find((f) => f.engine.name === 'brv' && f.size === size)!.file));
  const changed = { ...makeDocument(size + 1), path: allDocs[17]!.path };
  const incremental: number[] = [];
  const full: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const stack: SegmentStack = { segments: [base, Segment.open(buildSegment([changed]))], deleted: new Set() };
    liveView(stack);
    search(stack, QUERIES[0]!, { limit: 10 });
    incremental.push(ms(start));
  }
  for (let i = 0; i < 2; i++) {
    const start = performance.now();
    const stack: SegmentStack = {
      segments: [Segment.open(buildSegment([...allDocs.slice(0, size).filter((d) => d.path !== changed.path), changed]))],
      deleted: new Set(),
    };
    search(stack, QUERIES[0]!, { limit: 10 });
    full.push(ms(start));
  }
  const deltas: SegmentStack = {
    segments: [
      base,
      ...Array.from({ length: 8 }, (_, i) =>
        Segment.open(buildSegment([{ ...makeDocument(size + 10 + i), path: allDocs[100 + i]!.path }])),
      ),
    ],
    deleted: new Set([allDocs[5]!.path]),
  };
  const compactStart = performance.now();
  compact(deltas);
  const compactMs = ms(compactStart);
  const afterCurate = {
    topics: size,
    firstQueryAfterOneCurateMs: round(median(incremental)),
    fullRebuildAndQueryMs: round(median(full)),
    queryWith8DeltaSegmentsMs: queryTimes((q) => search(deltas, q, { limit: 10 }).hits.length, runs),
    compact8DeltasMs: round(compactMs),
  };
  console.error(
    `after one curate at ${size}: ${afterCurate.firstQueryAfterOneCurateMs} ms (full rebuild ${afterCurate.fullRebuildAndQueryMs} ms), compaction ${afterCurate.compact8DeltasMs} ms`,
  );

  // brv at 100,000: build in a child process (peak RSS), chunked as tree-index.ts does and in one go.
  let bigResult: Record<string, unknown> | undefined;
  if (big > 0) {
    console.error(`building ${big} topics (documents are generated on the first run: minutes)…`);
    const bigFile = path.join(work, `brv-${big}.seg`);
    const child = (chunked: boolean) => {
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', self, '--child', 'big', '--n', String(big), '--out', bigFile, '--chunked', chunked ? 'yes' : 'no'],
        { encoding: 'utf8', cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 },
      );
      if (run.status !== 0) throw new Error(`the ${big}-topic build failed`);
      return JSON.parse(run.stdout.trim().split('\n').pop()!) as { buildMs: number; bytes: number; maxRssMiB: number };
    };
    const chunked = child(true);
    const single = child(false);
    const bigBytes = readFileSync(bigFile);
    const bigLoads: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      search({ segments: [Segment.open(bigBytes)], deleted: new Set() }, QUERIES[0]!, { limit: 10 });
      bigLoads.push(ms(start));
    }
    const bigStack: SegmentStack = { segments: [Segment.open(bigBytes)], deleted: new Set() };
    bigResult = {
      topics: big,
      chunkedBuild: { buildMs: round(chunked.buildMs), bytes: chunked.bytes, maxRssMiB: round(chunked.maxRssMiB) },
      singleBuild: { buildMs: round(single.buildMs), bytes: single.bytes, maxRssMiB: round(single.maxRssMiB) },
      queryMs: queryTimes((q) => search(bigStack, q, { limit: 10 }).hits.length, runs),
    };
    files.push({ engine: ENGINES.find((e) => e.name === 'brv')!, size: big, file: bigFile });
    (results.brv ??= {})[big] = {
      buildMs: round(single.buildMs),
      bytes: single.bytes,
      loadFromBufferMs: round(median(bigLoads), 2),
      queryMs: bigResult.queryMs,
    };
  }

  // Fresh processes, round-robin over every index so machine drift hits them alike.
  const freshSamples = new Map<string, FreshRun[]>(files.map((f) => [f.file, []]));
  const floor: number[] = [];
  for (let i = 0; i < freshRuns + 1; i++) {
    const query = QUERIES[i % QUERIES.length]!;
    const warmup = i === 0;
    const f = floorRun();
    if (!warmup) floor.push(f);
    for (const { engine, file } of files) {
      const run = fresh(scripts.get(engine.name)!, file, query);
      if (!warmup) freshSamples.get(file)!.push(run);
    }
  }
  for (const { engine, size: n, file } of files) (results[engine.name] ??= {})[n]!.freshProcess = summarizeFresh(freshSamples.get(file)!);

  // Table
  const floorP50 = percentiles(floor).p50;
  const lines = [
    `Machine floor (node -e 0): p50 ${floorP50} ms. Parse + documentFromTopic: ${round(parseMsPerTopic, 2)} ms per topic (same for every engine, not included below).`,
    '',
    '| engine | topics | build | size | load from buffer (brv: open + first query) | fresh process: wall p50 | of which read + load p50 | first query | in-process query p50 / p95 | process peak RSS |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const engine of ENGINES) {
    for (const [n, r] of Object.entries(results[engine.name] ?? {}).sort((a, b) => Number(a[0]) - Number(b[0]))) {
      const fr = r.freshProcess as ReturnType<typeof summarizeFresh> | undefined;
      const q = r.queryMs as ReturnType<typeof percentiles>;
      const build = r.buildMs as number;
      lines.push(
        `| ${engine.name} | ${Number(n).toLocaleString('en')} | ${build >= 1000 ? `${round(build / 1000, 2)} s` : `${round(build)} ms`} | ${(Number(r.bytes) / 2 ** 20).toFixed(1)} MiB | ${r.loadFromBufferMs === undefined ? '—' : `${r.loadFromBufferMs} ms`} | ${fr ? `${fr.wallMs.p50} ms` : '—'} | ${fr ? `${round(fr.readMs.p50 + fr.loadMs.p50)} ms` : '—'} | ${fr ? `${fr.firstQueryMs.p50} ms` : '—'} | ${q.p50} / ${q.p95} ms | ${fr ? `${Math.round(fr.maxRssMiB.p50)} MiB` : '—'} |`,
      );
    }
  }
  lines.push('');
  lines.push(
    `brv after one curate at ${afterCurate.topics.toLocaleString('en')} topics: one-topic segment built + stack opened + first query ${afterCurate.firstQueryAfterOneCurateMs} ms (a full rebuild + query: ${afterCurate.fullRebuildAndQueryMs} ms); query p50/p95 with 8 one-topic delta segments ${afterCurate.queryWith8DeltaSegmentsMs.p50} / ${afterCurate.queryWith8DeltaSegmentsMs.p95} ms; compacting them ${afterCurate.compact8DeltasMs} ms.`,
  );
  if (bigResult) {
    const c = bigResult.chunkedBuild as { buildMs: number; bytes: number; maxRssMiB: number };
    const s = bigResult.singleBuild as { buildMs: number; bytes: number; maxRssMiB: number };
    lines.push(
      `brv at ${big.toLocaleString('en')} topics: build in 2,000-topic chunks + merge ${round(c.buildMs / 1000, 2)} s, peak RSS ${Math.round(c.maxRssMiB)} MiB (documents streamed); one buildSegment over all documents in memory ${round(s.buildMs / 1000, 2)} s, peak RSS ${Math.round(s.maxRssMiB)} MiB.`,
    );
  }
  console.log(lines.join('\n'));
  rmSync(work, { recursive: true, force: true });
  await writeReport('index-engines', {
    sizes,
    big,
    runs,
    freshRuns,
    queries: QUERIES,
    floorMs: percentiles(floor),
    parseMsPerTopic: round(parseMsPerTopic, 3),
    engines: results,
    afterCurate,
    big100k: bigResult,
    table: lines,
  });
}

await main();
