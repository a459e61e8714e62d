// The status line's facts: where you are and what waits. Read through the service, after the
// first paint (a large tree's count must not hold the prompt back).
import path from 'node:path';
import type { Brv } from '../service/brv.js';

export interface StatusFacts {
  repository: string;
  branch: string;
  topics: number;
  pendingReviews: number;
  /** Against the branch's remote copy; absent when it has none. */
  upstream?: { remote: string; ahead: number; behind: number };
}

export async function readStatus(brv: Brv): Promise<StatusFacts> {
  const branch = await brv.refreshBranch();
  const [status, reviews, upstreams] = await Promise.all([
    brv.setup.status(),
    brv.review.pending(),
    brv.history.upstreams().catch(() => []),
  ]);
  const up = upstreams.find((u) => u.branch === branch);
  return {
    repository: path.basename(status.repository),
    branch,
    topics: status.topics,
    pendingReviews: reviews.tasks.length,
    ...(up ? { upstream: { remote: up.remote, ahead: up.ahead, behind: up.behind } } : {}),
  };
}

/** One line: `myapp · main · 1,204 topics · 2 reviews · origin ↑1 ↓0`. */
export function statusText(facts: StatusFacts | undefined): string {
  if (!facts) return 'brv · reading the repository…';
  const parts = [
    facts.repository,
    facts.branch,
    `${facts.topics.toLocaleString('en-US')} topic${facts.topics === 1 ? '' : 's'}`,
    facts.pendingReviews === 0 ? 'no reviews' : `${facts.pendingReviews} review${facts.pendingReviews === 1 ? '' : 's'} pending`,
  ];
  if (facts.upstream) parts.push(`${facts.upstream.remote} ↑${facts.upstream.ahead} ↓${facts.upstream.behind}`);
  return parts.join(' · ');
}
