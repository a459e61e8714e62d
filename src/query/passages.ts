import { wantedTerms } from './analyze.js';

/**
 * Passage-level evidence for long topics: the share of the question's distinct terms that occur
 * together in one passage (a line or list item of the rendered markdown). A topic whose best
 * passage answers the whole question is a better answer than one that spreads the words over
 * unrelated lines — what BM25 over the whole topic cannot see.
 */
export function bestPassageCoverage(markdown: string, questionTerms: ReadonlySet<string>): number {
  if (questionTerms.size === 0) return 0;
  let best = 0;
  for (const passage of markdown.split(/\n+/)) {
    if (passage.length < 3) continue;
    let found = 0;
    const seen = new Set<string>();
    for (const term of wantedTerms(passage, questionTerms)) {
      if (!seen.has(term)) {
        seen.add(term);
        found++;
      }
    }
    if (found > best) {
      best = found;
      if (best === questionTerms.size) break;
    }
  }
  return best / questionTerms.size;
}
