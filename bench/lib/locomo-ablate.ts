/**
 * The validation discipline of issue 12 for bench/locomo.ts: conversations split into a tune half
 * and a validate half, and the ablation table (each ranking feature off, one at a time).
 *
 * Split: conversations in the order of the data file, 0-based; tune = even-indexed (0, 2, 4, …),
 * validate = odd-indexed (1, 3, 5, …). Deterministic, and the same for both variants. Decide on
 * validate what was tuned on tune.
 */
import { OPTIONAL_RANKING_FEATURES, RANKING_FEATURES, type RankingSwitches } from '../../src/search/query-topics.js';
import { aggregate, type MetricName, type ScoredQuestion } from './locomo-metrics.js';
import { BASELINES, displayValue } from './locomo-report.js';
import type { Variant } from './locomo-topics.js';

export const SPLITS = ['all', 'tune', 'validate'] as const;
export type Split = (typeof SPLITS)[number];

/** The conversations of a split (see the module comment). */
export function splitConversations<T>(conversations: readonly T[], split: Split): T[] {
  if (split === 'all') return [...conversations];
  const parity = split === 'tune' ? 0 : 1;
  return conversations.filter((_, i) => i % 2 === parity);
}

export interface Configuration {
  readonly label: string;
  /** `undefined`: the default ranking (everything on). */
  readonly ranking: RankingSwitches | undefined;
  /** Further query options (--hybrid: `hybrid`, `fusion`). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * --hybrid: lexical (`hybrid: false`), hybrid with the default fusion, and with `--hybrid-grid` the
 * fusion parameters around it (RRF k, the dense list's weight), each over the same import. Needs an
 * embedding model connected through the environment (BRV_LLM_PROVIDER, BRV_LLM_BASE_URL,
 * BRV_LLM_EMBEDDING_MODEL: bench/embedding-server.mjs).
 */
function hybridConfigurations(
  grid: boolean,
  ks: readonly number[] = [10, 30, 60, 120],
  weights: readonly number[] = [0.5, 1, 1.5],
): Configuration[] {
  const configurations: Configuration[] = [
    { label: 'lexical', ranking: undefined, extra: { hybrid: false } },
    { label: 'hybrid (default)', ranking: undefined, extra: { hybrid: true } },
  ];
  if (grid) {
    for (const k of ks)
      for (const denseWeight of weights)
        configurations.push({
          label: `hybrid k${k} w${denseWeight}`,
          ranking: undefined,
          extra: { hybrid: true, fusion: { k, denseWeight } },
        });
    // The dense ranking alone (lexical results only past the dense list's depth), for reference.
    configurations.push({ label: 'dense alone', ranking: undefined, extra: { hybrid: true, fusion: { k: 60, denseWeight: 1000 } } });
  }
  return configurations;
}

/** The options that choose what a retrieval bench runs (shared by bench/locomo.ts and bench/coding.ts). */
export interface ConfigurationOptions {
  hybrid?: boolean;
  'hybrid-grid'?: boolean;
  'fusion-k'?: string;
  'fusion-w'?: string;
  ablate?: boolean;
  /** Rankings to compare with the default: comma-separated, each `feature` or `feature+-other` (`-` = off). */
  try?: string;
}

/** The configurations the options ask for: --hybrid [--hybrid-grid …], --ablate, or the default ranking alone. */
export function chosenConfigurations(values: ConfigurationOptions, fail: (message: string) => never): Configuration[] {
  if (values.hybrid && !process.env.BRV_LLM_EMBEDDING_MODEL)
    fail('--hybrid needs an embedding model: BRV_LLM_PROVIDER, BRV_LLM_BASE_URL, BRV_LLM_EMBEDDING_MODEL (bench/embedding-server.mjs).');
  const numbers = (text: string | undefined) => text?.split(',').map(Number);
  if (values.hybrid) return hybridConfigurations(values['hybrid-grid'] ?? false, numbers(values['fusion-k']), numbers(values['fusion-w']));
  if (values.try !== undefined) return tryConfigurations(values.try, fail);
  return values.ablate ? ablationConfigurations() : [{ label: 'default', ranking: undefined }];
}

/**
 * --try a,b+-c: the default, then each listed ranking (features joined by `+`, `-name` = off,
 * `name` = on), then all off (plain BM25F): a quick comparison of candidate features.
 */
export function tryConfigurations(list: string, fail: (message: string) => never): Configuration[] {
  const known = new Set<string>([...RANKING_FEATURES, ...OPTIONAL_RANKING_FEATURES]);
  const tried = list
    .split(',')
    .filter((entry) => entry !== '')
    .map((entry): Configuration => {
      const ranking: Record<string, boolean> = {};
      for (const part of entry.split('+')) {
        const off = part.startsWith('-');
        const name = off ? part.slice(1) : part;
        if (!known.has(name)) fail(`Unknown ranking feature ${name} in --try.`);
        ranking[name] = !off;
      }
      return { label: entry, ranking: ranking as RankingSwitches };
    });
  const ablation = ablationConfigurations();
  return [ablation[0]!, ...tried, ablation.at(-1)!];
}

/** Everything on, then each feature off alone, then everything off (plain BM25F). */
export function ablationConfigurations(): Configuration[] {
  return [
    { label: 'all on (default)', ranking: undefined },
    ...RANKING_FEATURES.map((feature) => ({ label: `− ${feature}`, ranking: { [feature]: false } })),
    ...OPTIONAL_RANKING_FEATURES.map((feature) => ({ label: `+ ${feature}`, ranking: { [feature]: true } })),
    { label: 'all off (plain BM25F)', ranking: Object.fromEntries(RANKING_FEATURES.map((f) => [f, false])) },
  ];
}

/** Category groups in the table's column order (keys of locomo-metrics.ts GROUPS). */
const GROUP_KEYS = ['4', '1', '2', '3', '5', '1-4', '1-5'] as const;
const METRICS: Readonly<Record<Variant, ReadonlyArray<{ metric: MetricName; label: string }>>> = {
  turn: [
    { metric: 'recall@5', label: 'R@5' },
    { metric: 'recall@10', label: 'R@10' },
  ],
  session: [
    { metric: 'srec@5', label: 'srec@5' },
    { metric: 'all@5', label: 'all@5' },
    { metric: 'mrr', label: 'MRR' },
  ],
};

const cell = (metric: MetricName, value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '–' : metric === 'mrr' ? value.toFixed(3) : value.toFixed(1);

/**
 * One Markdown table: rows = configurations (and the published Lunr-like BM25 baseline, where it
 * has figures), columns = per-category R@5 and R@10 (turn) or srec@5 / all@5 / MRR (session), overall last.
 */
export function formatAblation(variant: Variant, rows: ReadonlyArray<{ label: string; questions: readonly ScoredQuestion[] }>): string {
  const metrics = METRICS[variant];
  const header = ['configuration', ...GROUP_KEYS.flatMap((key) => metrics.map((m) => `${m.label} ${key}`))];
  const body = rows.map(({ label, questions }) => {
    const groups = new Map(aggregate(questions).map((g) => [g.key, g]));
    return [
      label,
      ...GROUP_KEYS.flatMap((key) => metrics.map((m) => cell(m.metric, displayValue(m.metric, groups.get(key)?.means[m.metric] ?? NaN)))),
    ];
  });
  const baseline = [
    'BM25 Lunr-like (published, all 10)',
    ...GROUP_KEYS.flatMap((key) =>
      metrics.map((m) => {
        const value = BASELINES[variant].find((b) => b.group === key && b.figures[m.metric] !== undefined)?.figures[m.metric];
        return value === undefined ? '' : cell(m.metric, value);
      }),
    ),
  ];
  const line = (r: readonly string[]) => `| ${r.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...body.map(line), line(baseline)].join('\n');
}
