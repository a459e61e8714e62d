/**
 * bench/hybrid-table: the lexical-vs-hybrid tables of docs/archive/bench-notebook-2026.md ("Hybrid retrieval") from the
 * results files that `bench/locomo.ts --hybrid` and `bench/coding.ts --hybrid` write: one row per
 * configuration, per category, the metrics given (default: LoCoMo turns R@5 / R@10 / MRR).
 *
 *   node --import tsx bench/hybrid-table.ts bench/results/locomo-turn-tune-hybrid.json [--metrics recall@5,recall@10,mrr]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { metrics: { type: 'string' } } });
const LOCOMO_GROUPS: Record<string, string> = {
  '4': 'single',
  '1': 'multi',
  '2': 'temporal',
  '3': 'open',
  '5': 'advers',
  '1-5': 'all 1–5',
};

for (const file of positionals) {
  const report = JSON.parse(await readFile(file, 'utf8'));
  const coding = Array.isArray(report.ablation);
  const rows: Array<{ label: string; groups: Array<{ key: string; n: number; metrics: Record<string, number> }> }> = coding
    ? report.ablation
    : report.configurations;
  const metrics = (
    values.metrics ?? (coding ? 'recall@1,recall@5,mrr' : report.variant === 'session' ? 'srec@5,all@5,mrr' : 'recall@5,recall@10,mrr')
  ).split(',');
  const keys = coding ? rows[0]!.groups.map((g) => g.key) : Object.keys(LOCOMO_GROUPS);
  const name = (key: string) => (coding ? key : LOCOMO_GROUPS[key]!);
  console.log(`\n${report.title}\n`);
  const n = (key: string) => rows[0]!.groups.find((g) => g.key === key)?.n ?? 0;
  console.log(`| configuration | ${keys.map((k) => `${name(k)} (${n(k)})`).join(' | ')} |`);
  console.log(`|---|${keys.map(() => '---:').join('|')}|`);
  const show = (m: string, v: number | undefined) =>
    v === undefined || Number.isNaN(v)
      ? '–'
      : coding && m !== 'mrr' && !m.startsWith('ndcg')
        ? (v * 100).toFixed(1)
        : m === 'mrr' || m.startsWith('ndcg')
          ? v.toFixed(3).replace(/^0/, '')
          : v.toFixed(1);
  for (const row of rows) {
    const cells = keys.map((k) => {
      const g = row.groups.find((x) => x.key === k);
      return metrics.map((m) => show(m, g?.metrics[m])).join(' / ');
    });
    console.log(`| ${row.label} | ${cells.join(' | ')} |`);
  }
  console.log(`\n(${metrics.join(' / ')} per category)`);
}
