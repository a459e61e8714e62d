/**
 * One project of the coding corpus through brv, as bench/coding.ts runs it: a fresh git repository,
 * the project's topic folder imported with `brv.knowledge.importTree` (the write path `brv import`
 * runs: same validator, one commit), then each of the project's questions asked verbatim, top 50,
 * once per ranking configuration over the same import (--ablate), and scored against its judgments.
 */
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openBrv } from '../../test/helpers/service.js';
import type { CodingProject, CodingQuestion } from './coding-data.js';
import { scoreGraded, type GradedMetrics, type GradedQuestion, type ReturnedTopic } from './graded-metrics.js';
import { countWords } from './locomo-metrics.js';
import type { QueryResult } from './locomo-query.js';
import type { RetrieverFactory } from './locomo-run.js';

const QUERY_LIMIT = 50;

export interface CodingQuestionRun extends GradedQuestion {
  readonly id: string;
  /** 1-based rank of each judged topic (null: not returned). */
  readonly ranks: Readonly<Record<string, number | null>>;
  readonly returned: number;
  /** The first five returned topic paths (for reading misses). */
  readonly top: readonly string[];
  readonly metrics: GradedMetrics;
}

export interface ProjectRun {
  readonly project: string;
  readonly retriever: string;
  readonly topics: number;
  readonly importMs: number;
  readonly firstQueryMs: number;
  /** One list per ranking, in `rankings` order. */
  readonly questionsByRanking: ReadonlyArray<readonly CodingQuestionRun[]>;
}

/** Returned topic paths in rank order, duplicates once. */
export function returnedTopics(result: QueryResult): ReturnedTopic[] {
  const seen = new Set<string>();
  const topics: ReturnedTopic[] = [];
  for (const doc of result.matchedDocs) {
    const topicPath = doc.topicPath ?? doc.path.replace(/\.html$/, '');
    if (seen.has(topicPath)) continue;
    seen.add(topicPath);
    topics.push({ path: topicPath, words: countWords(doc.rendered_md ?? '') });
  }
  return topics;
}

export interface ProjectRunOptions {
  readonly retriever: RetrieverFactory;
  /** `undefined` = the default ranking, else `QueryOptions.ranking` switches. Default `[undefined]`. */
  readonly rankings?: ReadonlyArray<Readonly<Record<string, boolean>> | undefined>;
  /** Further query options per entry of `rankings` (bench --hybrid: `hybrid`, `fusion`). */
  readonly extra?: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>;
  readonly onQuestion?: (done: number, total: number) => void;
}

export async function runProject(
  project: CodingProject,
  questions: readonly CodingQuestion[],
  options: ProjectRunOptions,
): Promise<ProjectRun> {
  const work = await mkdtemp(path.join(tmpdir(), `brv-coding-${project.name}-`));
  try {
    await execa('git', ['init', '-q', work]);
    const brv = await openBrv(work);
    try {
      const importStart = performance.now();
      const imported = await brv.knowledge.importTree({ directory: project.directory }, {});
      const importMs = performance.now() - importStart;
      const problems = [
        ...imported.problems.map((p) => `${p.file}: ${p.errors.map((e) => e.message).join('; ')}`),
        ...imported.skipped.map((s) => `skipped ${JSON.stringify(s)}`),
        ...imported.repaired.map((r) => `repaired ${r.relative}`),
      ];
      if (!imported.ok || imported.added.length !== project.topics.length || problems.length > 0) {
        throw new Error(
          `${project.name}: import not clean (${imported.added.length}/${project.topics.length} added). ${problems.slice(0, 5).join(' | ')}`,
        );
      }
      const retriever = await options.retriever(brv);
      const rankings = options.rankings ?? [undefined];
      const byRanking: CodingQuestionRun[][] = [];
      let done = 0;
      for (const [r, ranking] of rankings.entries()) {
        const runs: CodingQuestionRun[] = [];
        for (const question of questions) {
          const start = performance.now();
          const result = await retriever.query(question.question, {
            limit: QUERY_LIMIT,
            ...(ranking ? { ranking } : {}),
            ...(options.extra?.[r] ?? {}),
          });
          const latencyMs = performance.now() - start;
          const returned = returnedTopics(result).slice(0, QUERY_LIMIT);
          const ranked = returned.map((r) => r.path);
          runs.push({
            id: question.id,
            category: question.category,
            metrics: scoreGraded(question.relevant, returned),
            latencyMs,
            ranks: Object.fromEntries(Object.keys(question.relevant).map((p) => [p, ranked.includes(p) ? ranked.indexOf(p) + 1 : null])),
            returned: returned.length,
            top: ranked.slice(0, 5),
          });
          options.onQuestion?.(++done, rankings.length * questions.length);
        }
        byRanking.push(runs);
      }
      return {
        project: project.name,
        retriever: retriever.name,
        topics: project.topics.length,
        importMs,
        firstQueryMs: byRanking[0]?.[0]?.latencyMs ?? 0,
        questionsByRanking: byRanking,
      };
    } finally {
      brv.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
