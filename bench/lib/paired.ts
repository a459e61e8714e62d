/**
 * Two rankings compared question by question over the same questions: on how many each is better
 * (a per-question metric strictly higher), and the exact two-sided sign test over the questions where
 * they differ (ties dropped). A per-category figure below the baseline by one or two questions is
 * then read beside the chance of a difference at least that lopsided if neither ranking were better.
 */
export interface PairedComparison {
  readonly better: number;
  readonly worse: number;
  readonly tied: number;
  /** Two-sided exact sign test p-value (1 when every question is tied). */
  readonly p: number;
}

/** P(X ≤ k) × 2, capped at 1, for X ~ Binomial(better + worse, 1/2), k = the smaller count. */
export function signTestP(better: number, worse: number): number {
  const n = better + worse;
  if (n === 0) return 1;
  const k = Math.min(better, worse);
  // Summed in log space: 0.5^n underflows past n = 1074.
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let logSum = logTerm;
  for (let i = 0; i < k; i++) {
    logTerm += Math.log(n - i) - Math.log(i + 1);
    const high = Math.max(logSum, logTerm);
    logSum = high + Math.log(Math.exp(logSum - high) + Math.exp(logTerm - high));
  }
  return Math.min(1, 2 * Math.exp(logSum));
}

/** Pairs `a` and `b` by question id over `ids` (questions missing from either are left out). */
export function comparePaired(ids: Iterable<string>, a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): PairedComparison {
  let better = 0;
  let worse = 0;
  let tied = 0;
  for (const id of ids) {
    const [x, y] = [a.get(id), b.get(id)];
    if (x === undefined || y === undefined) continue;
    if (x > y + 1e-12) better++;
    else if (x < y - 1e-12) worse++;
    else tied++;
  }
  return { better, worse, tied, p: signTestP(better, worse) };
}

/**
 * Whether a question of `category` belongs to the report row `key`: the category itself, a range of
 * LoCoMo categories ("1-4", "1-5"), or every question ("overall").
 */
export function inGroup(key: string, category: string | number): boolean {
  if (key === 'overall') return true;
  const range = /^(\d+)-(\d+)$/.exec(key);
  if (range) return Number(category) >= Number(range[1]) && Number(category) <= Number(range[2]);
  return String(category) === key;
}

/** The mean of a − b over paired questions, with its 95 % interval. */
export interface PairedInterval {
  readonly n: number;
  readonly mean: number;
  readonly low: number;
  readonly high: number;
}

/** Student's t quantile for 97.5 % (two-sided 95 %): a table to 9 degrees of freedom, Cornish–Fisher beyond (error < 0.003). */
function t975(df: number): number {
  const table = [Number.NaN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262];
  if (df < table.length) return table[df]!;
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

/**
 * The paired 95 % interval of the mean difference a − b over `ids` (questions missing from either are
 * left out): the t interval of the per-question differences. With every difference equal (all ties)
 * the interval is that one value. Read "a is at or above b within the interval" as `high >= 0`.
 */
export function pairedInterval(ids: Iterable<string>, a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): PairedInterval {
  const differences: number[] = [];
  for (const id of ids) {
    const [x, y] = [a.get(id), b.get(id)];
    if (x !== undefined && y !== undefined) differences.push(x - y);
  }
  const n = differences.length;
  if (n === 0) return { n, mean: 0, low: 0, high: 0 };
  const mean = differences.reduce((sum, d) => sum + d, 0) / n;
  if (n === 1) return { n, mean, low: mean, high: mean };
  const variance = differences.reduce((sum, d) => sum + (d - mean) ** 2, 0) / (n - 1);
  const half = t975(n - 1) * Math.sqrt(variance / n);
  return { n, mean, low: mean - half, high: mean + half };
}
