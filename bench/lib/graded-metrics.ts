/**
 * Retrieval metrics over graded judgments (pure), for corpora whose questions are judged per topic
 * rather than per evidence turn (bench/coding.ts). A question's judgments map topic paths to a grade:
 * 2 = the topic answers it, 1 = related or partial. The answer is the ranked list of returned topic
 * paths (duplicates already removed).
 *
 * - recall@k = 1 if any grade-2 topic is among the top k, else 0 ("hit rate"; grade-1 topics do not count).
 * - recall_all@k = 1 if every grade-2 topic is among the top k (for `multi` questions: all the pieces).
 * - MRR = 1 / rank of the first grade-2 topic among all returned (0 if none).
 * - NDCG@10 (graded) = DCG@10 / IDCG@10, DCG = Σ grade_i / log2(i + 1) over ranks i = 1..10 (linear
 *   gain), the ideal ranking putting every judged topic first, highest grade first.
 * - budget@B: as bench/locomo, returned topics taken in rank order while their words add up to ≤ B;
 *   1 if a grade-2 topic is among them.
 *
 * Per-question values are fractions in [0, 1]; `aggregateGraded` averages them per category.
 */
import { percentile } from './locomo-metrics.js';

export const GRADED_KS = [1, 3, 5, 10] as const;
export const GRADED_BUDGETS = [500, 1000] as const;
const NDCG_K = 10;

export type Grade = 1 | 2;
export type Judgments = Readonly<Record<string, Grade>>;

export type GradedMetricName =
  `recall@${(typeof GRADED_KS)[number]}` | 'recall_all@5' | 'mrr' | 'ndcg@10' | `budget@${(typeof GRADED_BUDGETS)[number]}`;

const GRADED_METRIC_NAMES: readonly GradedMetricName[] = [
  ...GRADED_KS.map((k) => `recall@${k}` as const),
  'recall_all@5',
  'mrr',
  'ndcg@10',
  ...GRADED_BUDGETS.map((b) => `budget@${b}` as const),
];

export type GradedMetrics = Record<GradedMetricName, number>;

/** A returned topic: its path and the words of its returned text. */
export interface ReturnedTopic {
  readonly path: string;
  readonly words: number;
}

const answers = (judgments: Judgments) => Object.keys(judgments).filter((p) => judgments[p] === 2);

function hitAt(judgments: Judgments, ranked: readonly string[], k: number): number {
  return ranked.slice(0, k).some((p) => judgments[p] === 2) ? 1 : 0;
}

function allAt(judgments: Judgments, ranked: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  const wanted = answers(judgments);
  return wanted.length > 0 && wanted.every((p) => top.has(p)) ? 1 : 0;
}

/** 1-based rank of the first grade-2 topic, or undefined. */
function firstAnswerRank(judgments: Judgments, ranked: readonly string[]): number | undefined {
  const index = ranked.findIndex((p) => judgments[p] === 2);
  return index < 0 ? undefined : index + 1;
}

export function gradedNdcgAt(judgments: Judgments, ranked: readonly string[], k: number): number {
  const discount = (i: number) => 1 / Math.log2(i + 2);
  let dcg = 0;
  ranked.slice(0, k).forEach((p, i) => (dcg += (judgments[p] ?? 0) * discount(i)));
  const ideal = Object.values(judgments)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, i) => sum + grade * discount(i), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

function budgetHit(judgments: Judgments, returned: readonly ReturnedTopic[], budget: number): number {
  let words = 0;
  for (const topic of returned) {
    if (words + topic.words > budget) return 0;
    words += topic.words;
    if (judgments[topic.path] === 2) return 1;
  }
  return 0;
}

export function scoreGraded(judgments: Judgments, returned: readonly ReturnedTopic[]): GradedMetrics {
  const ranked = returned.map((r) => r.path);
  const metrics = {} as GradedMetrics;
  for (const k of GRADED_KS) metrics[`recall@${k}`] = hitAt(judgments, ranked, k);
  metrics['recall_all@5'] = allAt(judgments, ranked, 5);
  const rank = firstAnswerRank(judgments, ranked);
  metrics.mrr = rank === undefined ? 0 : 1 / rank;
  metrics['ndcg@10'] = gradedNdcgAt(judgments, ranked, NDCG_K);
  for (const b of GRADED_BUDGETS) metrics[`budget@${b}`] = budgetHit(judgments, returned, b);
  return metrics;
}

export interface GradedQuestion {
  readonly category: string;
  readonly metrics: GradedMetrics;
  readonly latencyMs: number;
}

export interface GradedGroup {
  readonly key: string;
  readonly n: number;
  readonly means: GradedMetrics;
  readonly latencyMs: { readonly p50: number; readonly p95: number };
}

/** One group per category (in `categories` order), then `overall` (every question). */
export function aggregateGraded(questions: readonly GradedQuestion[], categories: readonly string[]): GradedGroup[] {
  const group = (key: string, members: readonly GradedQuestion[]): GradedGroup => {
    const means = {} as GradedMetrics;
    for (const name of GRADED_METRIC_NAMES) {
      means[name] = members.length === 0 ? Number.NaN : members.reduce((sum, q) => sum + q.metrics[name], 0) / members.length;
    }
    const latencies = members.map((q) => q.latencyMs);
    return { key, n: members.length, means, latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) } };
  };
  return [
    ...categories.map((c) =>
      group(
        c,
        questions.filter((q) => q.category === c),
      ),
    ),
    group('overall', questions),
  ];
}
