/**
 * Tables for bench/locomo.ts: one per variant, rows = category groups, columns = metrics, with the
 * reference figures of /work/shared/reference/retrieval-bench.md ("Baselines to beat") under the
 * rows they were measured on.
 */
import type { GroupResult, MetricName } from './locomo-metrics.js';
import type { Variant } from './locomo-topics.js';

export interface Column {
  readonly metric: MetricName;
  readonly label: string;
}

const percent = (metric: MetricName) => !['mrr', 'ndcg@10'].includes(metric);

export const COLUMNS: Readonly<Record<Variant, readonly Column[]>> = {
  turn: [
    { metric: 'recall@5', label: 'R@5' },
    { metric: 'recall@10', label: 'R@10' },
    { metric: 'recall@25', label: 'R@25' },
    { metric: 'recall@50', label: 'R@50' },
    { metric: 'mrr', label: 'MRR' },
    { metric: 'ndcg@10', label: 'NDCG@10' },
    { metric: 'budget@500', label: 'B500' },
    { metric: 'budget@1000', label: 'B1000' },
    { metric: 'budget@2000', label: 'B2000' },
  ],
  session: [
    { metric: 'any@1', label: 'any@1' },
    { metric: 'any@2', label: 'any@2' },
    { metric: 'any@3', label: 'any@3' },
    { metric: 'any@5', label: 'any@5' },
    { metric: 'any@10', label: 'any@10' },
    { metric: 'all@1', label: 'all@1' },
    { metric: 'all@2', label: 'all@2' },
    { metric: 'all@3', label: 'all@3' },
    { metric: 'all@5', label: 'all@5' },
    { metric: 'all@10', label: 'all@10' },
    { metric: 'srec@1', label: 'srec@1' },
    { metric: 'srec@2', label: 'srec@2' },
    { metric: 'srec@3', label: 'srec@3' },
    { metric: 'srec@5', label: 'srec@5' },
    { metric: 'srec@10', label: 'srec@10' },
    { metric: 'mrr', label: 'MRR' },
    { metric: 'ndcg@10', label: 'NDCG@10' },
    { metric: 'budget@500', label: 'B500' },
    { metric: 'budget@1000', label: 'B1000' },
    { metric: 'budget@2000', label: 'B2000' },
  ],
};

export interface Baseline {
  readonly label: string;
  /** Group key (see GROUPS in locomo-metrics.ts) the figures were measured on. */
  readonly group: string;
  /** Recalls in percent, MRR/NDCG as fractions, as the reference table prints them. */
  readonly figures: Partial<Record<MetricName, number>>;
}

/** retrieval-bench.md, "Baselines to beat" (same data, same protocol). */
export const BASELINES: Readonly<Record<Variant, readonly Baseline[]>> = {
  turn: [
    {
      label: 'BM25 (Lunr-like)',
      group: '1-5',
      figures: { 'recall@5': 57.6, 'recall@10': 64.7, 'recall@25': 72.9, 'recall@50': 78.2, mrr: 0.49, 'ndcg@10': 0.508 },
    },
    { label: 'DRAGON (paper)', group: '1-5', figures: { 'recall@5': 56.7, 'recall@10': 66.2, 'recall@25': 76.7, 'recall@50': 82.7 } },
    { label: 'BM25 (Lunr-like)', group: '4', figures: { 'recall@10': 71.9 } },
    { label: 'BM25 (Lunr-like)', group: '1', figures: { 'recall@10': 36.0 } },
    { label: 'BM25 (Lunr-like)', group: '2', figures: { 'recall@10': 70.9 } },
    { label: 'BM25 (Lunr-like)', group: '3', figures: { 'recall@10': 31.7 } },
    { label: 'BM25 (Lunr-like)', group: '5', figures: { 'recall@10': 71.8 } },
  ],
  // Its "session recall_any @2/@5/@10" is printed under srec@k: see the note in locomo-metrics.ts.
  session: [
    {
      label: 'BM25 (Lunr-like)',
      group: '1-5',
      figures: { 'srec@2': 78.7, 'srec@5': 88.9, 'srec@10': 94.0, 'all@5': 84.2, mrr: 0.813, 'ndcg@10': 0.83 },
    },
  ],
};

/** A mean fraction as the table shows it: recalls in percent (1 decimal), MRR/NDCG with 3 decimals. */
export function displayValue(metric: MetricName, fraction: number): number {
  if (Number.isNaN(fraction)) return Number.NaN;
  return percent(metric) ? Math.round(fraction * 1000) / 10 : Math.round(fraction * 1000) / 1000;
}

function cell(metric: MetricName, value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  return percent(metric) ? value.toFixed(1) : value.toFixed(3);
}

export function formatTable(variant: Variant, groups: readonly GroupResult[]): string {
  const columns = COLUMNS[variant];
  const header = ['', 'n', ...columns.map((c) => c.label), 'p50 ms', 'p95 ms'];
  const rows: string[][] = [];
  for (const group of groups) {
    rows.push([
      group.label,
      String(group.n),
      ...columns.map((c) => cell(c.metric, displayValue(c.metric, group.means[c.metric]))),
      Number.isNaN(group.latencyMs.p50) ? '–' : group.latencyMs.p50.toFixed(1),
      Number.isNaN(group.latencyMs.p95) ? '–' : group.latencyMs.p95.toFixed(1),
    ]);
    for (const baseline of BASELINES[variant].filter((b) => b.group === group.key)) {
      rows.push([
        `  ${baseline.label}`,
        '',
        ...columns.map((c) => (baseline.figures[c.metric] === undefined ? '' : cell(c.metric, baseline.figures[c.metric]))),
        '',
        '',
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
