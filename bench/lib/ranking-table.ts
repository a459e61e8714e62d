/**
 * The corpora of `npm run bench:ranking` side by side (issue 34, point 4): per corpus, half and
 * category, brv's default ranking beside the Lunr BM25 stand-in over the same topics, each figure with
 * the paired 95 % interval of brv − BM25 over the row's questions (bench/lib/paired.ts); and, from an
 * --ablate run, each default ranking feature's own effect (default − the default with that feature
 * off) with its interval. Reads the results files the retrieval benches wrote (bench/results/).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { inGroup, pairedInterval, type PairedInterval } from './paired.js';

export interface RankingPair {
  readonly corpus: string;
  /** File names in the results folder, `{split}` replaced. */
  readonly brv: string;
  readonly standIn: string;
  /** The figures of bench/against-bm25.ts's table. */
  readonly metrics: readonly string[];
  /** The two figures of the side-by-side table: a recall and MRR. */
  readonly headline: readonly [string, string];
}

export const RANKING_PAIRS: readonly RankingPair[] = [
  {
    corpus: 'LoCoMo, topic per turn',
    brv: 'locomo-turn-{split}',
    standIn: 'locomo-turn-{split}-stand-in',
    metrics: ['recall@5', 'recall@10', 'mrr'],
    headline: ['recall@5', 'mrr'],
  },
  {
    corpus: 'LoCoMo, topic per session',
    brv: 'locomo-session-{split}',
    standIn: 'locomo-session-{split}-stand-in',
    metrics: ['srec@5', 'all@5', 'mrr'],
    headline: ['srec@5', 'mrr'],
  },
  {
    corpus: 'LoCoMo, sessions in haystacks of 50',
    brv: 'locomo-session-haystack50-{split}',
    standIn: 'locomo-session-haystack50-{split}-stand-in',
    metrics: ['srec@5', 'all@5', 'mrr'],
    headline: ['srec@5', 'mrr'],
  },
  {
    corpus: 'coding-project knowledge',
    brv: 'coding-{split}',
    standIn: 'coding-{split}-stand-in',
    metrics: ['recall@1', 'recall@5', 'recall_all@5', 'mrr'],
    headline: ['recall@5', 'mrr'],
  },
  {
    corpus: 'long documents',
    brv: 'docs-{split}',
    standIn: 'docs-{split}-stand-in',
    metrics: ['recall@1', 'recall@5', 'recall@10', 'mrr'],
    headline: ['recall@5', 'mrr'],
  },
];

interface Group {
  readonly key: string;
  readonly label?: string;
  readonly n: number;
  readonly metrics: Readonly<Record<string, number>>;
}

interface QuestionRecord {
  readonly id: string;
  readonly category: string | number;
  readonly metrics?: Readonly<Record<string, number>>;
}

interface Configuration {
  readonly label: string;
  readonly groups: readonly Group[];
  readonly questions?: readonly QuestionRecord[];
}

interface Results {
  readonly groups: readonly Group[];
  readonly questions?: readonly QuestionRecord[];
  /** --ablate runs: locomo.ts writes `configurations`, coding.ts `ablation`. */
  readonly configurations?: readonly Configuration[];
  readonly ablation?: readonly Configuration[];
}

async function load(file: string): Promise<Results | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

/** Per-question values of one metric (fractions in every bench's per-question records). */
function values(questions: readonly QuestionRecord[] | undefined, metric: string): Map<string, number> {
  return new Map((questions ?? []).flatMap((q) => (q.metrics?.[metric] === undefined ? [] : [[q.id, q.metrics[metric]!] as const])));
}

export interface Figure {
  readonly metric: string;
  /** Means over the row's questions, fractions (recalls too). */
  readonly brv: number;
  readonly bm25: number;
  /** brv − BM25, paired per question. */
  readonly difference: PairedInterval;
}

export interface SideBySideRow {
  readonly corpus: string;
  readonly split: string;
  readonly category: string;
  readonly n: number;
  readonly figures: readonly Figure[];
  /** Every figure's interval reaches 0 or above (brv is not below BM25 beyond chance). */
  readonly atOrAbove: boolean;
}

const mean = (map: ReadonlyMap<string, number>, ids: readonly string[]) =>
  ids.length === 0 ? Number.NaN : ids.reduce((sum, id) => sum + (map.get(id) ?? 0), 0) / ids.length;

/** brv's default ranking against the stand-in, per corpus, split and category; pairs without both files are left out. */
export async function sideBySide(folder: string, splits: readonly string[]): Promise<{ rows: SideBySideRow[]; missing: string[] }> {
  const rows: SideBySideRow[] = [];
  const missing: string[] = [];
  for (const split of splits) {
    for (const pair of RANKING_PAIRS) {
      const file = (name: string) => path.join(folder, `${name.replace('{split}', split)}.json`);
      const [brv, standIn] = await Promise.all([load(file(pair.brv)), load(file(pair.standIn))]);
      if (!brv?.questions || !standIn?.questions) {
        missing.push(`${pair.corpus}, ${split}`);
        continue;
      }
      for (const group of brv.groups) {
        const ids = brv.questions.filter((q) => inGroup(group.key, q.category)).map((q) => q.id);
        const figures = pair.headline.map((metric) => {
          const [a, b] = [values(brv.questions, metric), values(standIn.questions, metric)];
          return { metric, brv: mean(a, ids), bm25: mean(b, ids), difference: pairedInterval(ids, a, b) };
        });
        rows.push({
          corpus: pair.corpus,
          split,
          category: group.label ?? group.key,
          n: ids.length,
          figures,
          atOrAbove: figures.every((f) => f.difference.high >= -1e-12),
        });
      }
    }
  }
  return { rows, missing };
}

export interface FeatureRow {
  readonly corpus: string;
  readonly split: string;
  readonly category: string;
  readonly n: number;
  /** The configuration compared with the default: `− feature`, or `all off (plain BM25F)`. */
  readonly configuration: string;
  /** default − configuration, paired per question: > 0 means the feature (or all of them) helps. */
  readonly figures: ReadonlyArray<{ readonly metric: string; readonly difference: PairedInterval }>;
  /** Every interval reaches 0 or above: the feature is not a loss beyond chance. */
  readonly atOrAbove: boolean;
}

/** Each feature's own effect on the default ranking, from --ablate runs' configurations. */
export async function featureEffects(folder: string, splits: readonly string[]): Promise<FeatureRow[]> {
  const rows: FeatureRow[] = [];
  for (const split of splits) {
    for (const pair of RANKING_PAIRS) {
      const results = await load(path.join(folder, `${pair.brv.replace('{split}', split)}.json`));
      const configurations = results?.configurations ?? results?.ablation;
      const base = configurations?.[0];
      if (!results || !configurations || !base?.questions) continue;
      const categories = new Map((results.questions ?? []).map((q) => [q.id, q.category]));
      for (const configuration of configurations.slice(1)) {
        for (const group of results.groups) {
          const ids = base.questions.filter((q) => inGroup(group.key, q.category ?? categories.get(q.id)!)).map((q) => q.id);
          const figures = pair.headline.map((metric) => ({
            metric,
            difference: pairedInterval(ids, values(base.questions, metric), values(configuration.questions, metric)),
          }));
          rows.push({
            corpus: pair.corpus,
            split,
            category: group.label ?? group.key,
            n: ids.length,
            configuration: configuration.label,
            figures,
            atOrAbove: figures.every((f) => f.difference.high >= -1e-12),
          });
        }
      }
    }
  }
  return rows;
}

/** A figure as printed: recalls in percent (1 decimal), MRR as a fraction (3 decimals). */
function shown(metric: string, value: number, signed = false): string {
  const text = metric === 'mrr' ? value.toFixed(3) : (value * 100).toFixed(1);
  return signed && value >= 0 ? `+${text}` : text.replace('-', '−');
}

function interval(metric: string, d: PairedInterval): string {
  return `${shown(metric, d.mean, true)} [${shown(metric, d.low, true)}, ${shown(metric, d.high, true)}]`;
}

/** Markdown: one row per corpus, split and category; the recall (R@5: LoCoMo sessions' srec@5) and MRR with brv − BM25 and its 95 % interval. */
export function formatSideBySide(rows: readonly SideBySideRow[]): string {
  const lines = [
    '| corpus | half | category | n | R@5 brv / BM25 | Δ [95 % CI] | MRR brv / BM25 | Δ [95 % CI] | ≥ BM25 |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | :---: |',
  ];
  for (const row of rows) {
    const cells = row.figures.flatMap((f) => [`${shown(f.metric, f.brv)} / ${shown(f.metric, f.bm25)}`, interval(f.metric, f.difference)]);
    lines.push(
      `| ${row.corpus} | ${row.split} | ${row.category} | ${row.n} | ${cells.join(' | ')} | ${row.atOrAbove ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

/** Markdown: per corpus and category, each feature's effect (default − feature off) with its interval; losses marked. */
export function formatFeatureEffects(rows: readonly FeatureRow[]): string {
  const lines = [
    '| corpus | half | category | n | configuration | R@5: default − it [95 % CI] | MRR: default − it [95 % CI] | not a loss |',
    '| --- | --- | --- | ---: | --- | ---: | ---: | :---: |',
  ];
  for (const row of rows) {
    const cells = row.figures.map((f) => interval(f.metric, f.difference));
    lines.push(
      `| ${row.corpus} | ${row.split} | ${row.category} | ${row.n} | ${row.configuration} | ${cells.join(' | ')} | ${row.atOrAbove ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}
