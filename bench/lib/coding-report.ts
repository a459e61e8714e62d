/**
 * Tables for bench/coding.ts: per category and overall (rows) × metrics (columns), and the ablation
 * table (rows = ranking configurations, columns = one metric per category).
 */
import { aggregateGraded, type GradedGroup, type GradedMetricName, type GradedQuestion } from './graded-metrics.js';

export const CODING_COLUMNS: ReadonlyArray<{ metric: GradedMetricName; label: string }> = [
  { metric: 'recall@1', label: 'R@1' },
  { metric: 'recall@3', label: 'R@3' },
  { metric: 'recall@5', label: 'R@5' },
  { metric: 'recall@10', label: 'R@10' },
  { metric: 'recall_all@5', label: 'all@5' },
  { metric: 'mrr', label: 'MRR' },
  { metric: 'ndcg@10', label: 'NDCG@10' },
  { metric: 'budget@500', label: 'B500' },
  { metric: 'budget@1000', label: 'B1000' },
];

const fraction = (metric: GradedMetricName) => metric === 'mrr' || metric === 'ndcg@10';

/** A mean as printed: recalls in percent (1 decimal), MRR/NDCG as fractions (3 decimals). */
function gradedCell(metric: GradedMetricName, value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  return fraction(metric) ? value.toFixed(3) : (value * 100).toFixed(1);
}

/** Markdown table: one row per category group, then overall. */
export function formatGradedTable(groups: readonly GradedGroup[]): string {
  const header = ['category', 'n', ...CODING_COLUMNS.map((c) => c.label), 'p50 ms'];
  const rows = groups.map((g) => [
    g.key,
    String(g.n),
    ...CODING_COLUMNS.map((c) => gradedCell(c.metric, g.means[c.metric])),
    Number.isNaN(g.latencyMs.p50) ? '–' : g.latencyMs.p50.toFixed(1),
  ]);
  const line = (r: readonly string[]) => `| ${r.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** Ablation: rows = configurations, columns = `metrics` per category then overall. */
export function formatGradedAblation(
  rows: ReadonlyArray<{ label: string; questions: readonly GradedQuestion[] }>,
  categories: readonly string[],
  metrics: ReadonlyArray<{ metric: GradedMetricName; label: string }>,
): string {
  const keys = [...categories, 'overall'];
  const header = ['configuration', ...keys.flatMap((key) => metrics.map((m) => `${m.label} ${key}`))];
  const body = rows.map(({ label, questions }) => {
    const groups = new Map(aggregateGraded(questions, categories).map((g) => [g.key, g]));
    return [label, ...keys.flatMap((key) => metrics.map((m) => gradedCell(m.metric, groups.get(key)?.means[m.metric])))];
  });
  const line = (r: readonly string[]) => `| ${r.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...body.map(line)].join('\n');
}
