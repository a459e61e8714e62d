/**
 * bench/locomo: retrieval quality on LoCoMo without any LLM, by the protocol of
 * /work/shared/reference/retrieval-bench.md. Each conversation is curated into a fresh git repository
 * through brv's own write path (`Brv.importFolder`), each question is asked verbatim through brv's
 * query path (`Brv.query`, top 50, timed), and the returned topics are scored against the evidence.
 *
 *   node --import tsx bench/locomo.ts <path-to-locomo10.json> [--variant session|turn|all]
 *     [--limit-conversations N] [--turn-context none|previous] [--retriever brv|stand-in|auto]
 *     [--split all|tune|validate] [--ablate] [--try=LIST] [--haystack N]
 *
 * --split (issue 12's validation discipline): conversations in file order, 0-based; tune = the
 * even-indexed ones (0, 2, 4, 6, 8), validate = the odd-indexed (1, 3, 5, 7, 9); all (default) = every one.
 * --limit-conversations applies after the split. --ablate asks every question once with the default
 * ranking, once per ranking feature with that one feature off (`QueryOptions.ranking`), and once with
 * all of them off, over the same imported repository, and prints one Markdown table per variant
 * (bench/lib/locomo-ablate.ts); the usual table and results file are then the default ranking's.
 * --try=-timeWords,-questionDates: the default, then each listed ranking (`+` joins features, `-name`
 * switches one off; write `--try=…` when the list starts with `-`), then all off (`tryConfigurations`).
 *
 * --haystack N (session variant): each conversation's sessions padded to N topics with sessions of the
 * other conversations, credited with no evidence (bench/lib/locomo-topics.ts `haystackTopics`): the
 * shape of held-out chat-memory sets, ~50 sessions per question, where tree-size-gated features apply.
 *
 * --retriever brv (default) asks brv.retrieval.query; stand-in uses the Lunr BM25 stand-in of
 * bench/lib/locomo-query.ts (a check of the harness against the published baseline, labelled as such
 * everywhere); auto uses brv.retrieval.query when this checkout has it, else the stand-in. Prints one table per variant next to the
 * reference baselines and writes bench/results/locomo-<variant>.json. Progress goes to stderr.
 * The data (CC BY-NC) is read from its path at run time and never copied into the repository; the
 * results hold question ids and figures, not question text.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CATEGORY_NAMES, loadLocomo, type Conversation } from './lib/locomo-data.js';
import { chosenConfigurations, formatAblation, splitConversations, SPLITS, type Split, type Configuration } from './lib/locomo-ablate.js';
import { aggregate, percentile, type GroupResult } from './lib/locomo-metrics.js';
import { standInRetriever } from './lib/locomo-query.js';
import { BASELINES, COLUMNS, displayValue, formatTable } from './lib/locomo-report.js';
import { preferBrv, runConversation, type ConversationRun, type RetrieverFactory } from './lib/locomo-run.js';
import { haystackTopics, VARIANTS, type TurnContext, type Variant } from './lib/locomo-topics.js';
import { measuredSource, writeReport } from './lib/report.js';

const usage =
  'usage: node --import tsx bench/locomo.ts <path-to-locomo10.json> [--variant session|turn|all] [--limit-conversations N] [--turn-context none|previous] [--retriever brv|stand-in|auto] [--split all|tune|validate] [--ablate] [--try=LIST] [--haystack N]';

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    variant: { type: 'string', default: 'all' },
    'limit-conversations': { type: 'string' },
    'turn-context': { type: 'string', default: 'none' },
    retriever: { type: 'string', default: 'brv' },
    split: { type: 'string', default: 'all' },
    ablate: { type: 'boolean', default: false },
    try: { type: 'string' },
    hybrid: { type: 'boolean', default: false },
    'hybrid-grid': { type: 'boolean', default: false },
    'fusion-k': { type: 'string' },
    'fusion-w': { type: 'string' },
    haystack: { type: 'string' },
  },
});
const dataFile = positionals[0] ?? fail('Give the path to locomo10.json.');
const variants: Variant[] =
  values.variant === 'all'
    ? [...VARIANTS]
    : VARIANTS.includes(values.variant as Variant)
      ? [values.variant as Variant]
      : fail(`Unknown --variant ${values.variant}.`);
const limit = values['limit-conversations'] === undefined ? Infinity : Number(values['limit-conversations']);
if (!(limit >= 1)) fail('--limit-conversations takes a positive number.');
const turnContext = (
  ['none', 'previous'].includes(values['turn-context']!)
    ? values['turn-context']
    : fail(`Unknown --turn-context ${values['turn-context']}.`)
) as TurnContext;
const haystack = values.haystack === undefined ? undefined : Number(values.haystack);
if (haystack !== undefined && !(haystack >= 1)) fail('--haystack takes a positive number of topics.');
if (haystack !== undefined && values.variant !== 'session') fail('--haystack applies to --variant session.');
const split = SPLITS.includes(values.split as Split) ? (values.split as Split) : fail(`Unknown --split ${values.split}.`);
const configurations: Configuration[] = chosenConfigurations(values, fail);
const retrieverFactory: RetrieverFactory =
  values.retriever === 'auto'
    ? preferBrv(standInRetriever)
    : values.retriever === 'brv'
      ? preferBrv()
      : values.retriever === 'stand-in'
        ? standInRetriever
        : fail(`Unknown --retriever ${values.retriever}.`);

const source = await measuredSource();

const everyConversation = await loadLocomo(dataFile);
const conversations: Conversation[] = splitConversations(everyConversation, split).slice(0, limit);
for (const { log } of conversations) {
  for (const line of log.fixed) console.error(`evidence fixed   ${line}`);
  for (const line of log.dropped) console.error(`evidence dropped ${line}`);
  for (const id of log.skipped) console.error(`question skipped ${id} (no evidence)`);
}

const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

for (const variant of variants) {
  const runs: ConversationRun[] = [];
  for (const conversation of conversations) {
    const started = performance.now();
    const run = await runConversation(conversation, {
      variant,
      retriever: retrieverFactory,
      topicOptions: { turnContext },
      ...(haystack === undefined
        ? {}
        : {
            topics: (dialogue) =>
              haystackTopics(
                dialogue,
                everyConversation.map((c) => c.dialogue),
                haystack,
              ),
          }),
      rankings: configurations.map((c) => c.ranking),
      extra: configurations.map((c) => c.extra),
      onQuestion: (done, total) => {
        if (process.stderr.isTTY) process.stderr.write(`\r${variant} ${conversation.dialogue.sampleId}: question ${done}/${total}`);
      },
    });
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    if (runs.length === 0 || run.retriever !== runs[0]!.retriever) console.error(`retriever: ${run.retriever}`);
    runs.push(run);
    const latencies = run.questions.map((q) => q.latencyMs);
    console.error(
      `${variant} ${run.sampleId}: ${run.topics} topics imported in ${round(run.importMs)} ms, ${run.questions.length} questions, ` +
        `query p50 ${round(percentile(latencies, 50))} ms p95 ${round(percentile(latencies, 95))} ms (first ${round(run.firstQueryMs)} ms), total ${round((performance.now() - started) / 1000)} s`,
    );
  }

  const questions = runs.flatMap((r) => r.questions);
  const groups: GroupResult[] = aggregate(questions);
  const retriever = [...new Set(runs.map((r) => r.retriever))].join(' / ');
  const latencies = questions.map((q) => q.latencyMs);
  const topics = sum(runs.map((r) => r.topics));
  const build = {
    topics,
    importMsTotal: round(sum(runs.map((r) => r.importMs))),
    importMsPerConversation: runs.map((r) => ({
      sampleId: r.sampleId,
      topics: r.topics,
      importMs: round(r.importMs),
      topicBytes: r.topicBytes,
      gitBytes: r.gitBytes,
      retrieverMs: round(r.retrieverMs),
      firstQueryMs: round(r.firstQueryMs),
      index: r.index,
      indexBytes: r.indexBytes,
    })),
    topicBytesTotal: sum(runs.map((r) => r.topicBytes)),
    gitBytesTotal: sum(runs.map((r) => r.gitBytes)),
    retrieverMsTotal: round(sum(runs.map((r) => r.retrieverMs))),
    indexBuildMsTotal: round(sum(runs.map((r) => r.index?.buildMs ?? 0))),
    indexBytesTotal: sum(runs.map((r) => r.indexBytes)),
  };
  const latency = {
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    firstQueryP50: round(
      percentile(
        runs.map((r) => r.firstQueryMs),
        50,
      ),
    ),
    n: latencies.length,
  };

  const title = `LoCoMo, ${variant === 'session' ? `one topic per session${haystack ? ` in haystacks of ${haystack}` : ''}` : `one topic per turn${turnContext === 'previous' ? ' (with the previous turn as context)' : ''}`}: ${split === 'all' ? '' : `${split} split, `}${conversations.length} conversations, ${topics} topics, ${questions.length} questions; retriever ${retriever}`;
  console.log(`\n${title}\nbrv ${source.commit?.slice(0, 10) ?? '?'}${source.srcDirty ? ' + uncommitted changes in src/' : ''}`);
  console.log(formatTable(variant, groups));
  const builds = [...new Set(runs.map((r) => r.index?.build).filter(Boolean))].join('/');
  console.log(
    `import (Brv.importFolder) ${build.importMsTotal} ms total for ${topics} topics; topics ${round(build.topicBytesTotal / 1024)} KiB, .git after import ${round(build.gitBytesTotal / 1024)} KiB\n` +
      `index: ${builds ? `${builds} build ${build.indexBuildMsTotal} ms total (first query of each conversation), ` : ''}${round(build.indexBytesTotal / 1024)} KiB on disk` +
      `${build.retrieverMsTotal >= 1 ? `; retriever set-up ${build.retrieverMsTotal} ms total` : ''}\n` +
      `query latency (in process, wall clock around the call) p50 ${latency.p50} ms, p95 ${latency.p95} ms; first query per conversation p50 ${latency.firstQueryP50} ms`,
  );
  if (values.ablate || values.hybrid || values.try !== undefined) {
    console.log(
      `\n${values.hybrid ? 'Lexical and hybrid' : 'Ablation'}, ${variant} topics, ${split} split (recalls in %; each row one feature off):`,
    );
    console.log(
      formatAblation(
        variant,
        configurations.map((c, i) => ({ label: c.label, questions: runs.flatMap((r) => r.questionsByRanking[i]!) })),
      ),
    );
  }
  console.log(
    'recalls in %, budget B = evidence recall within B words of returned rendered_md; relevance for MRR/NDCG = topic holds any evidence turn\n',
  );

  // Only brv.query's figures are written as locomo-<variant>.json.
  const name = `locomo-${variant}${haystack ? `-haystack${haystack}` : ''}${split === 'all' ? '' : `-${split}`}${variant === 'turn' && turnContext === 'previous' ? '-context' : ''}${retriever.startsWith('brv.') ? '' : '-stand-in'}${values.hybrid ? '-hybrid' : ''}`;
  await writeReport(name, {
    title,
    variant,
    retriever,
    source,
    options: {
      turnContext: variant === 'turn' ? turnContext : undefined,
      limitConversations: Number.isFinite(limit) ? limit : undefined,
      split,
      haystack,
      queryLimit: 50,
    },
    data: {
      file: path.basename(dataFile),
      conversations: conversations.length,
      questions: questions.length,
      skipped: conversations.flatMap((c) => c.log.skipped),
      fixedEvidence: conversations.flatMap((c) => c.log.fixed),
      droppedEvidence: conversations.flatMap((c) => c.log.dropped),
    },
    units: { recall: 'percent', mrr: 'fraction', ndcg: 'fraction', latency: 'ms' },
    categories: CATEGORY_NAMES,
    groups: groups.map((g) => ({
      key: g.key,
      label: g.label,
      n: g.n,
      metrics: Object.fromEntries(
        Object.entries(g.means).map(([metric, value]) => [metric, displayValue(metric as keyof typeof g.means, value)]),
      ),
      latencyMs: { p50: round(g.latencyMs.p50), p95: round(g.latencyMs.p95) },
    })),
    columns: COLUMNS[variant].map((c) => c.metric),
    baselines: BASELINES[variant],
    configurations:
      values.hybrid || values.ablate || values.try !== undefined
        ? configurations.map((c, i) => ({
            label: c.label,
            ranking: c.ranking ?? null,
            options: c.extra ?? null,
            groups: aggregate(runs.flatMap((r) => r.questionsByRanking[i]!)).map((g) => ({
              key: g.key,
              n: g.n,
              metrics: Object.fromEntries(
                Object.entries(g.means).map(([metric, value]) => [metric, displayValue(metric as keyof typeof g.means, value)]),
              ),
            })),
            questions: runs
              .flatMap((r) => r.questionsByRanking[i]!)
              .map((q) => ({ id: q.id, category: q.category, evidenceRanks: q.evidenceRanks, metrics: q.metrics })),
          }))
        : undefined,
    latency,
    build,
    questions: questions.map((q) => ({
      id: q.id,
      category: q.category,
      evidenceRanks: q.evidenceRanks,
      // Per question (fractions), so that bench/against-bm25.ts can pair them with another run's.
      metrics: q.metrics,
      returned: q.returned,
      latencyMs: round(q.latencyMs, 2),
    })),
  });
}
