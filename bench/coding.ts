/**
 * bench/coding: retrieval quality on the second corpus, coding-project knowledge as agents curate it
 * (fixtures/coding-corpus/, see its README), and on any corpus of the same form (`--corpus
 * fixtures/docs-corpus`: long documents, issue 34; its categories and name in its corpus.json). No LLM. Each project's topic folder is imported into a
 * fresh git repository through `brv.knowledge.importTree` (the import must be clean: no skip, no
 * repair), each question of that project is asked verbatim through `brv.retrieval.query` (top 50:
 * the code `brv query --format json` runs) and scored against its graded judgments
 * (bench/lib/graded-metrics.ts): recall@1/3/5/10, recall_all@5, MRR, NDCG@10, per category and overall.
 *
 *   node --import tsx bench/coding.ts [--corpus DIR] [--split all|tune|validate] [--ablate] [--try=LIST]
 *     [--retriever brv|stand-in]
 *
 * --split: within each (project, category) group, questions in file order, 0-based; tune = even-indexed,
 * validate = odd-indexed (bench/lib/coding-data.ts).
 * --ablate: every question with the default ranking, then with each ranking feature off alone
 * (`QueryOptions.ranking`), then all off (plain BM25F), over the same import (as bench/locomo.ts);
 * --try=LIST the default and the listed rankings only (as bench/locomo.ts).
 * --retriever stand-in: the Lunr BM25 stand-in of bench/lib/locomo-query.ts over the same topics.
 * Writes bench/results/<corpus name>[-<split>][-stand-in].json (coding-…, docs-…) (figures and question ids, ranks of judged topics).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CORPUS, loadCodingCorpus, missingJudgments, splitQuestions } from './lib/coding-data.js';
import { CODING_COLUMNS, formatGradedAblation, formatGradedTable } from './lib/coding-report.js';
import { runProject, type CodingQuestionRun, type ProjectRun } from './lib/coding-run.js';
import { aggregateGraded } from './lib/graded-metrics.js';
import { chosenConfigurations, SPLITS, type Split, type Configuration } from './lib/locomo-ablate.js';
import { percentile } from './lib/locomo-metrics.js';
import { standInRetriever } from './lib/locomo-query.js';
import { preferBrv, type RetrieverFactory } from './lib/locomo-run.js';
import { measuredSource, writeReport } from './lib/report.js';

const usage =
  'usage: node --import tsx bench/coding.ts [--corpus DIR] [--split all|tune|validate] [--ablate] [--try=LIST] [--retriever brv|stand-in]';
function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: DEFAULT_CORPUS },
    split: { type: 'string', default: 'all' },
    ablate: { type: 'boolean', default: false },
    try: { type: 'string' },
    hybrid: { type: 'boolean', default: false },
    'hybrid-grid': { type: 'boolean', default: false },
    'fusion-k': { type: 'string' },
    'fusion-w': { type: 'string' },
    retriever: { type: 'string', default: 'brv' },
  },
});
const split = SPLITS.includes(values.split as Split) ? (values.split as Split) : fail(`Unknown --split ${values.split}.`);
const retrieverFactory: RetrieverFactory =
  values.retriever === 'brv'
    ? preferBrv()
    : values.retriever === 'stand-in'
      ? standInRetriever
      : fail(`Unknown --retriever ${values.retriever}.`);
const configurations: Configuration[] = chosenConfigurations(values, fail);

const source = await measuredSource();

const corpus = await loadCodingCorpus(path.resolve(values.corpus));
const missing = missingJudgments(corpus);
if (missing.length > 0) fail(`Judged paths that are not topics: ${missing.slice(0, 10).join(', ')}`);
const questions = splitQuestions(corpus.questions, split);
const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

const runs: ProjectRun[] = [];
for (const project of corpus.projects) {
  const asked = questions.filter((q) => q.project === project.name);
  if (asked.length === 0) continue;
  const run = await runProject(project, asked, {
    retriever: retrieverFactory,
    rankings: configurations.map((c) => c.ranking),
    extra: configurations.map((c) => c.extra),
    onQuestion: (done, total) => {
      if (process.stderr.isTTY) process.stderr.write(`\r${project.name}: ${done}/${total}`);
    },
  });
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  const latencies = run.questionsByRanking[0]!.map((q) => q.latencyMs);
  console.error(
    `${project.name}: ${run.topics} topics imported in ${round(run.importMs)} ms, ${asked.length} questions × ${configurations.length} rankings, ` +
      `query p50 ${round(percentile(latencies, 50))} ms (first ${round(run.firstQueryMs)} ms); retriever ${run.retriever}`,
  );
  runs.push(run);
}

const byRanking = (i: number): CodingQuestionRun[] => runs.flatMap((r) => r.questionsByRanking[i]!);
const answered = byRanking(0);
const groups = aggregateGraded(answered, corpus.categories);
const retriever = [...new Set(runs.map((r) => r.retriever))].join(' / ');
const topics = runs.reduce((sum, r) => sum + r.topics, 0);
const title = `${corpus.name === 'coding' ? 'Coding corpus' : `Corpus ${corpus.name}`}: ${split === 'all' ? '' : `${split} split, `}${runs.length} projects, ${topics} topics, ${answered.length} questions; retriever ${retriever}`;
console.log(`\n${title}\nbrv ${source.commit?.slice(0, 10) ?? '?'}${source.srcDirty ? ' + uncommitted changes in src/' : ''}`);
console.log(formatGradedTable(groups));
if (values.ablate || values.hybrid || values.try !== undefined) {
  const rows = configurations.map((c, i) => ({ label: c.label, questions: byRanking(i) }));
  for (const metric of CODING_COLUMNS.filter((c) => ['recall@1', 'recall@5', 'recall_all@5', 'mrr', 'ndcg@10'].includes(c.metric))) {
    console.log(`\nAblation, ${split} split, ${metric.label} (each row one feature off):`);
    console.log(formatGradedAblation(rows, corpus.categories, [metric]));
  }
}
console.log(
  '\nrecalls in %: a hit when a grade-2 (answering) topic is in the top k; all@5 = every grade-2 topic in the top 5; NDCG graded (grade 2/1)\n',
);

const name = `${corpus.name}${split === 'all' ? '' : `-${split}`}${retriever.startsWith('brv.') ? '' : '-stand-in'}${values.hybrid ? '-hybrid' : ''}`;
await writeReport(name, {
  title,
  retriever,
  source,
  options: { split, queryLimit: 50, ablate: values.ablate },
  data: { projects: runs.map((r) => ({ name: r.project, topics: r.topics, importMs: round(r.importMs) })), questions: answered.length },
  units: { recall: 'fraction', mrr: 'fraction', ndcg: 'fraction', latency: 'ms' },
  groups: groups.map((g) => ({ key: g.key, n: g.n, metrics: g.means, latencyMs: g.latencyMs })),
  ablation:
    values.ablate || values.hybrid || values.try !== undefined
      ? configurations.map((c, i) => ({
          label: c.label,
          ranking: c.ranking ?? null,
          options: c.extra ?? null,
          groups: aggregateGraded(byRanking(i), corpus.categories).map((g) => ({ key: g.key, n: g.n, metrics: g.means })),
          questions: byRanking(i).map((q) => ({ id: q.id, category: q.category, metrics: q.metrics })),
        }))
      : undefined,
  questions: answered.map((q) => ({
    id: q.id,
    category: q.category,
    ranks: q.ranks,
    // Per question (fractions), so that bench/against-bm25.ts can pair them with another run's.
    metrics: q.metrics,
    top: q.top,
    returned: q.returned,
    latencyMs: round(q.latencyMs, 2),
  })),
});
