// The status line's facts: where you are and what waits. Read through the service, after the
// first paint (a large tree's count must not hold the prompt back).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Brv } from '../service/brv.js';

export interface StatusFacts {
  repository: string;
  branch: string;
  topics: number;
  pendingReviews: number;
  /** Against the branch's remote copy; absent when it has none. */
  upstream?: { remote: string; ahead: number; behind: number; held?: string };
}

/** What Tab completes, by argument kind (read with the status: one listing serves both). */
export interface CompletionValues {
  topic: string[];
  branch: string[];
  remote: string[];
  review: string[];
  setting: string[];
  source: string[];
  /** Files of the work tree, for `@` mentions (read once, not with every change: see workTreeFiles). */
  file: string[];
}

export const NO_VALUES: CompletionValues = { topic: [], branch: [], remote: [], review: [], setting: [], source: [], file: [] };

/**
 * The status line's facts and the completion values, read together: the topic listing and the
 * pending reviews each once (a large tree's listing is the costly part), again after every change.
 */
export async function readRepository(brv: Brv): Promise<{ facts: StatusFacts; values: CompletionValues }> {
  const branch = await brv.refreshBranch();
  const [listed, reviews, upstreams, branches, remotes, settings, sources] = await Promise.all([
    brv.knowledge.list(),
    brv.review.pending(),
    brv.history.upstreams().catch(() => []),
    brv.history.branches({ all: true }).catch(() => []),
    brv.sharing.remotes().catch(() => []),
    brv.setup.settings().catch(() => []),
    brv.sharing.sources().catch(() => []),
  ]);
  const up = upstreams.find((u) => u.branch === branch);
  const { workTree, gitDir } = brv.repository;
  return {
    facts: {
      repository: path.basename(workTree ?? gitDir),
      branch,
      topics: listed.topics.length,
      pendingReviews: reviews.tasks.length,
      ...(up ? { upstream: { remote: up.remote, ahead: up.ahead, behind: up.behind, ...(up.held ? { held: up.held } : {}) } } : {}),
    },
    values: {
      topic: listed.topics.map(String),
      branch: branches.map((b) => b.branch),
      remote: remotes.map((r) => r.name),
      review: reviews.tasks.map((t) => t.taskId),
      setting: settings.map((s) => s.key),
      source: sources.map((s) => s.alias),
      file: [],
    },
  };
}

/**
 * Files of the work tree for `@file` completion, breadth first (a large tree's top levels first), at
 * most `limit`; .git and node_modules are skipped, and nothing is followed through a symbolic link.
 */
export async function workTreeFiles(root: string | undefined, limit = 20_000): Promise<string[]> {
  if (!root) return [];
  const files: string[] = [];
  const folders = [''];
  while (folders.length > 0 && files.length < limit) {
    const folder = folders.shift()!;
    const entries = await readdir(path.join(root, folder), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name === '.git' || entry.name === 'node_modules') continue;
      const relative = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) folders.push(relative);
      else if (entry.isFile() && files.length < limit) files.push(relative);
    }
  }
  return files;
}

/** One line: `myapp · main · 1,204 topics · 2 reviews · origin ↑1 ↓0` (`origin ↑0 ↓3 (/sync takes it)` when behind). */
export function statusText(facts: StatusFacts | undefined): string {
  if (!facts) return 'brv · reading the repository…';
  const parts = [
    facts.repository,
    facts.branch,
    `${facts.topics.toLocaleString('en-US')} topic${facts.topics === 1 ? '' : 's'}`,
    facts.pendingReviews === 0 ? 'no reviews' : `${facts.pendingReviews} review${facts.pendingReviews === 1 ? '' : 's'} pending`,
  ];
  // Fetched knowledge the branch lacks (diverged, held, or no local branch yet): say what takes it.
  if (facts.upstream)
    parts.push(
      `${facts.upstream.remote} ↑${facts.upstream.ahead} ↓${facts.upstream.behind}${
        facts.upstream.behind === 0 ? '' : facts.upstream.held ? ` (held: /review ${facts.upstream.held})` : ' (/sync takes it)'
      }`,
    );
  return parts.join(' · ');
}
