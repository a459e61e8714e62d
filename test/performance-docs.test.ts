import test from 'ava';
import { readFile } from 'node:fs/promises';
import {
  latestFigures,
  PERFORMANCE_DOCS_FILE,
  readResults,
  renderPerformanceDocs,
  TARGETS,
  type Result,
} from '../scripts/performance-docs.js';

test('docs/performance.md is the table generated from bench/results (run npm run docs:performance)', async (t) => {
  const docs = await readFile(PERFORMANCE_DOCS_FILE, 'utf8');
  t.is(docs, renderPerformanceDocs(readResults()), 'docs/performance.md is out of date: run npm run docs:performance');
  // Every target has a row, measured or not.
  for (const target of TARGETS) t.true(docs.includes(`| ${target.what.replaceAll('|', '\\|')} |`), target.id);
});

test("every figure copied from the notebook names a target, a date, a command and the notebook's section", async (t) => {
  const notebook = readResults().find((r) => r.benchmark === 'notebook-2026');
  t.truthy(notebook, 'bench/results/notebook-2026.json');
  const figures = notebook!.data.figures as Array<Record<string, unknown>>;
  const ids = new Set(TARGETS.map((target) => target.id));
  const archive = await readFile(new URL('../docs/archive/bench-notebook-2026.md', import.meta.url), 'utf8');
  for (const figure of figures) {
    t.true(ids.has(String(figure.target)), `unknown target ${String(figure.target)}`);
    t.regex(String(figure.date), /^\d{4}-\d\d-\d\d/);
    t.regex(String(figure.command), /^(node|npm) /);
    // A section named with "…" is cut short: its start must be a heading of the archive.
    const section = String(figure.section).split('…')[0]!;
    t.true(archive.includes(`# ${section}`), `no section "${section}" in the archive`);
  }
  t.is(new Set(figures.map((f) => f.target)).size, figures.length, 'one figure per target');
});

const result = (benchmark: string, date: string, data: Record<string, unknown>): Result => ({
  file: `${benchmark}.json`,
  benchmark,
  date,
  command: `node --import tsx bench/${benchmark}.ts`,
  data: { benchmark, date, ...data },
});

test('the latest figure wins, a results file over an older notebook figure, and each reads its own shape', (t) => {
  const notebook = result('notebook-2026', '2026-12-05T00:00:00Z', {
    figures: [
      { target: 'query-warm-1000', date: '2026-12-03', figure: 'p50 167.3 ms', met: false, command: 'node x', section: 's' },
      { target: 'cold-first-query', date: '2026-12-03', figure: 'p50 467 ms', met: false, command: 'node y', section: 's' },
    ],
  });
  // The shapes bench/query.ts, bench/cold-query.ts, bench/against-bm25.ts and bench/locomo.ts write.
  const query = result('query', '2026-12-06T00:40:00Z', {
    results: [
      {
        topics: 1000,
        queryEndToEnd: { p50: 93, p95: 108.7 },
        nodeFloor: { p50: 62 },
        inProcessMs: { p50: 3.4 },
        firstAfterCurate: { p50: 132.9, p95: 208.3, max: 208.3 },
      },
    ],
  });
  const older = result('cold-query', '2026-12-01T00:00:00Z', { firstQueryMs: { p50: 300 }, nodeFloorMs: { p50: 100 }, extraCaCerts: true });
  const bm25 = result('against-bm25', '2026-12-06T00:31:00Z', { compared: 182, below: 8, above: 159, significant: { below: 0 } });
  const turns = result('locomo-turn', '2026-12-06T00:32:00Z', {
    options: { split: 'all' },
    retriever: 'brv.retrieval.query',
    groups: [
      { key: '1-5', metrics: { 'recall@5': 63.7 } },
      { key: '1', metrics: { 'recall@10': 44.2 } },
    ],
  });
  const halfOnly = result('locomo-turn', '2026-12-07T00:00:00Z', {
    options: { split: 'tune' },
    retriever: 'brv.retrieval.query',
    groups: [],
  });
  const latest = latestFigures([notebook, query, older, bm25, turns, halfOnly]);

  const warm = latest.get('query-warm-1000')!;
  t.is(warm.figure, 'p50 93.0 ms, p95 108.7 ms');
  t.is(warm.floor, 'node -e 0 62.0 ms (×1.50)');
  t.is(warm.met, true);
  t.is(warm.source, 'bench/results/query.json');
  t.is(latest.get('query-warm-10000'), undefined, 'a size the run did not measure');
  t.is(latest.get('cold-first-query')!.figure, 'p50 467 ms', 'the notebook is newer than that results file');
  t.is(latest.get('never-below-bm25')!.figure, '8 of 182 below, 159 above; 0 of those below differ with p < 0.05');
  t.false(latest.get('never-below-bm25')!.met);
  t.is(latest.get('locomo-turn-r5')!.figure, '63.7', 'a half-split run is not the all-10 figure');
  t.is(latest.get('locomo-multihop-r10')!.figure, '44.2');
});

test('a target nothing measured says so', (t) => {
  const docs = renderPerformanceDocs([]);
  t.regex(docs, /\| `brv query` end to end, warm, 1,000 topics \| ≤ 100 ms p50 \| not measured \|/);
});
