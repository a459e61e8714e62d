/**
 * One LoCoMo conversation through brv, as bench/locomo.ts runs it: a fresh git repository, the
 * generated topics written as `.html` files into a folder and imported with `Brv.importFolder` (brv's
 * bulk write path: same validator, one commit), then every question asked verbatim, top 50, timed.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Brv } from '../../src/service/brv.js';
import { internals, openBrv } from '../../test/helpers/service.js';
import { localStateDir } from '../../src/store/layout.js';
import type { Category, Conversation, Dialogue } from './locomo-data.js';
import { countWords, scoreQuestion, type QuestionMetrics, type RankedDoc } from './locomo-metrics.js';
import { brvRetriever, type QueryResult, type Retriever } from './locomo-query.js';
import { generateTopics, type GeneratedTopic, type TopicOptions, type Variant } from './locomo-topics.js';

const QUERY_LIMIT = 50;

export interface QuestionRun {
  readonly id: string;
  readonly category: Category;
  readonly metrics: QuestionMetrics;
  readonly latencyMs: number;
  /** Per evidence turn (in the question's order): 1-based rank of the first returned doc holding it, or null. */
  readonly evidenceRanks: ReadonlyArray<number | null>;
  readonly returned: number;
}

export interface ConversationRun {
  readonly sampleId: string;
  readonly variant: Variant;
  readonly retriever: string;
  readonly topics: number;
  /** Bytes of the generated topic files. */
  readonly topicBytes: number;
  /** Wall clock of `Brv.importFolder` (validation, blobs, trees, one commit). */
  readonly importMs: number;
  /** Bytes under the repository's .git after import. */
  readonly gitBytes: number;
  /** Wall clock of making the retriever (the stand-in builds its index here; brv.query builds lazily). */
  readonly retrieverMs: number;
  /** The first question's latency: includes any lazy index build. */
  readonly firstQueryMs: number;
  /** What the first answer's `metadata.index` said about the index (brv.query: build kind and time). */
  readonly index: { readonly build?: string; readonly buildMs?: number } | undefined;
  /** Bytes of brv's query index on disk after the questions (0 if it keeps none). */
  readonly indexBytes: number;
  readonly questions: readonly QuestionRun[];
  /** One list per `RunOptions.rankings` entry, in its order (the first is `questions`); `[questions]` without it. */
  readonly questionsByRanking: ReadonlyArray<readonly QuestionRun[]>;
}

export type RetrieverFactory = (brv: Brv) => Promise<Retriever>;

/** brv.query when the service has it; otherwise `fallback` (or an error). */
export function preferBrv(fallback?: RetrieverFactory): RetrieverFactory {
  return async (brv) => {
    const real = brvRetriever(brv);
    if (real) return real;
    if (fallback) return fallback(brv);
    throw new Error('Brv.query does not exist in this checkout; pass --retriever stand-in to measure the harness with the Lunr stand-in.');
  };
}

/** Maps returned documents to what they hold; documents the bench did not generate hold nothing. Duplicates count once. */
export function rankedDocs(result: QueryResult, byPath: ReadonlyMap<string, GeneratedTopic>): RankedDoc[] {
  const seen = new Set<string>();
  const docs: RankedDoc[] = [];
  for (const doc of result.matchedDocs) {
    const topicPath = doc.topicPath ?? doc.path.replace(/\.html$/, '');
    if (seen.has(topicPath)) continue;
    seen.add(topicPath);
    const topic = byPath.get(topicPath);
    docs.push({ turns: topic?.turns ?? [], session: topic?.session, words: countWords(doc.rendered_md ?? '') });
  }
  return docs;
}

/** Documents of the corpus holding at least one of `evidence` (the ideal ranking's length for NDCG). */
export function relevantCount(evidence: readonly string[], topicsByTurn: ReadonlyMap<string, readonly string[]>): number {
  return new Set(evidence.flatMap((id) => topicsByTurn.get(id) ?? [])).size;
}

function evidenceRanks(evidence: readonly string[], docs: readonly RankedDoc[]): Array<number | null> {
  return evidence.map((id) => {
    const index = docs.findIndex((d) => d.turns.includes(id));
    return index < 0 ? null : index + 1;
  });
}

function indexInfo(value: unknown): ConversationRun['index'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { build, buildMs } = value as Record<string, unknown>;
  return { build: typeof build === 'string' ? build : undefined, buildMs: typeof buildMs === 'number' ? buildMs : undefined };
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

export interface RunOptions {
  readonly variant: Variant;
  readonly retriever: RetrieverFactory;
  readonly topicOptions?: TopicOptions;
  /** Topics to curate instead of `generateTopics(…)` (experiments with other structures); sees only the dialogue. */
  readonly topics?: (dialogue: Dialogue) => GeneratedTopic[];
  /**
   * Rankings to ask every question with, in turn, over the same imported repository and index
   * (--ablate: `undefined` is the default ranking, else `QueryOptions.ranking` switches). Default: `[undefined]`.
   */
  readonly rankings?: ReadonlyArray<Readonly<Record<string, boolean>> | undefined>;
  /** Further query options per entry of `rankings` (bench/locomo.ts --hybrid: `hybrid`, `fusion`). */
  readonly extra?: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>;
  /** Called after each question (progress). */
  readonly onQuestion?: (done: number, total: number) => void;
}

export async function runConversation(conversation: Conversation, options: RunOptions): Promise<ConversationRun> {
  const { dialogue, questions } = conversation;
  const topics = options.topics ? options.topics(dialogue) : generateTopics(dialogue, options.variant, options.topicOptions);
  const byPath = new Map(topics.map((t) => [t.path, t]));
  const topicsByTurn = new Map<string, string[]>();
  for (const topic of topics) for (const id of topic.turns) topicsByTurn.set(id, [...(topicsByTurn.get(id) ?? []), topic.path]);

  return withImportedConversation(dialogue, topics, async ({ repoDir, brv, topicBytes, importMs }) => {
    const gitBytes = await directoryBytes(path.join(repoDir, '.git'));

    const retrieverStart = performance.now();
    const retriever = await options.retriever(brv);
    const retrieverMs = performance.now() - retrieverStart;

    const rankings = options.rankings ?? [undefined];
    const byRanking: QuestionRun[][] = [];
    let index: ConversationRun['index'];
    for (const [r, ranking] of rankings.entries()) {
      const runs: QuestionRun[] = [];
      for (const question of questions) {
        const start = performance.now();
        const result = await retriever.query(question.question, {
          limit: QUERY_LIMIT,
          ...(ranking ? { ranking } : {}),
          ...(options.extra?.[r] ?? {}),
        });
        const latencyMs = performance.now() - start;
        if (byRanking.length === 0 && runs.length === 0) index = indexInfo(result.metadata.index);
        const docs = rankedDocs(result, byPath).slice(0, QUERY_LIMIT);
        runs.push({
          id: question.id,
          category: question.category,
          metrics: scoreQuestion(question.evidence, docs, relevantCount(question.evidence, topicsByTurn)),
          latencyMs,
          evidenceRanks: evidenceRanks(question.evidence, docs),
          returned: docs.length,
        });
        options.onQuestion?.(byRanking.length * questions.length + runs.length, rankings.length * questions.length);
      }
      byRanking.push(runs);
    }
    const runs = byRanking[0]!;
    return {
      sampleId: dialogue.sampleId,
      variant: options.variant,
      retriever: retriever.name,
      topics: topics.length,
      topicBytes,
      importMs,
      gitBytes,
      retrieverMs,
      firstQueryMs: runs[0]?.latencyMs ?? 0,
      index,
      indexBytes: await directoryBytes(localStateDir(internals(brv).repo.location.commonDir, 'index')),
      questions: runs,
      questionsByRanking: byRanking,
    };
  });
}

export interface ImportedConversation {
  readonly repoDir: string;
  readonly brv: Brv;
  /** Bytes of the generated topic files. */
  readonly topicBytes: number;
  /** Wall clock of `Brv.importFolder`. */
  readonly importMs: number;
}

/**
 * A fresh git repository holding `topics`, written as `.html` files into a folder and imported with
 * `Brv.importFolder` (brv's bulk write path: same validator, one commit); `use` runs with it open,
 * and everything is removed afterwards. bench/locomo.ts and bench/locomo-qa.ts build their
 * repositories this way.
 */
export function withImportedConversation<R>(
  dialogue: Dialogue,
  topics: readonly GeneratedTopic[],
  use: (imported: ImportedConversation) => Promise<R>,
): Promise<R> {
  return withImportedTopics(dialogue.sampleId, topics, use);
}

/** As withImportedConversation, for any generated topics; `name` labels the temporary folder and errors. */
export async function withImportedTopics<R>(
  name: string,
  topics: readonly GeneratedTopic[],
  use: (imported: ImportedConversation) => Promise<R>,
): Promise<R> {
  const work = await mkdtemp(path.join(tmpdir(), `brv-locomo-${name.replace(/[^\w-]/g, '_')}-`));
  try {
    const repoDir = path.join(work, 'repo');
    const folder = path.join(work, 'topics');
    await mkdir(repoDir);
    await execa('git', ['init', '-q', repoDir]);
    let topicBytes = 0;
    for (const topic of topics) {
      const file = path.join(folder, `${topic.path}.html`);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, topic.html);
      topicBytes += Buffer.byteLength(topic.html);
    }
    const brv = await openBrv(repoDir);
    try {
      const importStart = performance.now();
      const imported = await brv.knowledge.importTree({ directory: folder }, {});
      const importMs = performance.now() - importStart;
      if (!imported.ok || imported.added.length !== topics.length) {
        const problems = imported.problems.slice(0, 3).map((p) => `${p.file}: ${p.errors.map((e) => e.message).join('; ')}`);
        throw new Error(`${name}: import failed (${imported.added.length}/${topics.length} added). ${problems.join(' | ')}`);
      }
      return await use({ repoDir, brv, topicBytes, importMs });
    } finally {
      brv.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
