/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009) of a lexical and a dense ranking: each
 * item scores Σ weight / (k + rank) over the lists it is in (ranks from 1). Rank-based, so the
 * lists' scores (BM25F, cosine) need no calibration against each other. Deterministic: ties go to
 * the better lexical rank, then the better dense rank, then the key. Pure; hybrid retrieval's
 * parameters (`DEFAULT_FUSION`) were chosen on the tune halves (docs/archive/bench-notebook-2026.md, "Hybrid retrieval").
 */
export interface FusionOptions {
  /** RRF's constant: larger flattens the difference between the first ranks. */
  readonly k: number;
  /** The dense list's weight relative to the lexical list's (1). */
  readonly denseWeight: number;
}

/**
 * Chosen on the tune halves (docs/archive/bench-notebook-2026.md, "Hybrid retrieval"): with the embedding model measured
 * (USE-lite, whose dense ranking alone reaches 44.5 recall@10 on LoCoMo turns against the lexical
 * 70.7), RRF's usual k 60 and equal weights cost MRR everywhere (turns .532 → .425, coding .845 →
 * .725); a small k and a light dense weight keep the lexical order at the top and let the dense
 * side break ties and fill the tail: k 2, weight 0.2 was the one setting of the grid (k 2–120,
 * weight 0.2–1.5) never below lexical on any category of turns or coding.
 */
export const DEFAULT_FUSION: FusionOptions = { k: 2, denseWeight: 0.2 };

export interface Fused<K> {
  readonly key: K;
  readonly score: number;
  /** 1-based ranks in each list; undefined when not in it. */
  readonly lexicalRank: number | undefined;
  readonly denseRank: number | undefined;
}

export function reciprocalRankFusion<K extends string>(
  lexical: readonly K[],
  dense: readonly K[],
  options: FusionOptions = DEFAULT_FUSION,
): Array<Fused<K>> {
  const ranks = new Map<K, { lexicalRank?: number; denseRank?: number }>();
  lexical.forEach((key, i) => {
    const entry = ranks.get(key) ?? {};
    entry.lexicalRank ??= i + 1;
    ranks.set(key, entry);
  });
  dense.forEach((key, i) => {
    const entry = ranks.get(key) ?? {};
    entry.denseRank ??= i + 1;
    ranks.set(key, entry);
  });
  const fused = [...ranks].map(([key, { lexicalRank, denseRank }]) => ({
    key,
    score:
      (lexicalRank === undefined ? 0 : 1 / (options.k + lexicalRank)) +
      (denseRank === undefined ? 0 : options.denseWeight / (options.k + denseRank)),
    lexicalRank,
    denseRank,
  }));
  const last = Number.POSITIVE_INFINITY;
  return fused.sort(
    (a, b) =>
      b.score - a.score ||
      (a.lexicalRank ?? last) - (b.lexicalRank ?? last) ||
      (a.denseRank ?? last) - (b.denseRank ?? last) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/** The best score an item can have (first in both lists): fused scores divided by it fall in (0, 1]. */
export function bestFusedScore(options: FusionOptions = DEFAULT_FUSION): number {
  return 1 / (options.k + 1) + options.denseWeight / (options.k + 1);
}
