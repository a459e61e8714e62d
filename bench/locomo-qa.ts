/**
 * bench/locomo-qa: LLM-judged question answering on LoCoMo with the connected model (issue 15). Each
 * conversation is curated into a fresh repository as bench/locomo.ts does (bench/lib/locomo-run.ts
 * `withImportedConversation`), each question is answered by brv's own grounded answer
 * (`brv.retrieval.answer`, the code `brv query --answer` runs), and each answer is judged by the same
 * connected model per the LoCoMo/Mem0 LLM-as-a-judge protocol (bench/lib/locomo-qa.ts). Prints
 * accuracy per category and overall, tokens and cost, and writes bench/results/locomo-qa.json (or
 * --out). With no provider connected (`brv providers connect`, or BRV_LLM_PROVIDER/BRV_LLM_MODEL) it
 * prints "skipped: no provider" and exits 0.
 *
 *   node --import tsx bench/locomo-qa.ts <path-to-locomo10.json> [--conversations conv-26,conv-30 | 0,1]
 *     [--limit-questions N] [--limit K] [--variant session|turn] [--out file.json]
 *
 * --limit-questions: the first N questions of each conversation (file order); --limit: topics each
 * answer reads (default: the answer's own, 5). The data (CC BY-NC) is read at run time; the results
 * hold question ids, labels and figures, not question or answer text.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { isBrvError } from '../src/base/errors.js';
import type { LlmUsage } from '../src/models/llm/client.js';
import { connectionOf } from '../src/service/llm-connection.js';
import { internals } from '../test/helpers/service.js';
import { loadLocomo, type Conversation } from './lib/locomo-data.js';
import { accuracyTable, formatAccuracy, judgedText, judgeLabel, judgePrompt, type QaOutcome } from './lib/locomo-qa.js';
import { withImportedConversation } from './lib/locomo-run.js';
import { generateTopics, VARIANTS, type Variant } from './lib/locomo-topics.js';
import { measuredSource, writeReport } from './lib/report.js';

const usage =
  'usage: node --import tsx bench/locomo-qa.ts <path-to-locomo10.json> [--conversations a,b] [--limit-questions N] [--limit K] [--variant session|turn] [--out file.json]';

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    conversations: { type: 'string' },
    'limit-questions': { type: 'string' },
    limit: { type: 'string' },
    variant: { type: 'string', default: 'session' },
    out: { type: 'string' },
  },
});
const dataFile = positionals[0] ?? fail('Give the path to locomo10.json.');
const perConversation = values['limit-questions'] === undefined ? Infinity : Number(values['limit-questions']);
if (!(perConversation >= 1)) fail('--limit-questions takes a positive number.');
const topicLimit = values.limit === undefined ? undefined : Number(values.limit);
if (topicLimit !== undefined && !(Number.isInteger(topicLimit) && topicLimit >= 1 && topicLimit <= 50)) fail('--limit takes 1–50.');
const variant = VARIANTS.includes(values.variant as Variant) ? (values.variant as Variant) : fail(`Unknown --variant ${values.variant}.`);

// The bench runs like the CLI: the provider from BRV_LLM_* or the user's providers.json.
const connection = await connectionOf({ env: process.env, home: homedir() });
if (!connection) {
  console.log('skipped: no provider (connect one with brv providers connect <provider>, or set BRV_LLM_PROVIDER and BRV_LLM_MODEL)');
  process.exit(0);
}

const source = await measuredSource();
const every = await loadLocomo(dataFile);
const wanted = values.conversations
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const conversations: Conversation[] = wanted
  ? wanted.map(
      (w) =>
        every.find((c) => c.dialogue.sampleId === w) ??
        (/^\d+$/.test(w) ? every[Number(w)] : undefined) ??
        fail(`No conversation ${w} (give sample ids like ${every[0]?.dialogue.sampleId} or 0-based indexes).`),
    )
  : every;

const zero = (u: LlmUsage): LlmUsage => ({
  ...u,
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  embeddingTokens: 0,
  costUsd: 0,
});
function add(a: LlmUsage | undefined, b: LlmUsage): LlmUsage {
  if (!a) return b;
  return {
    ...b,
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    embeddingTokens: a.embeddingTokens + b.embeddingTokens,
    costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd,
  };
}
function since(before: LlmUsage, after: LlmUsage): LlmUsage {
  return add(after, {
    ...zero(after),
    requests: -before.requests,
    inputTokens: -before.inputTokens,
    outputTokens: -before.outputTokens,
    totalTokens: -before.totalTokens,
    embeddingTokens: -before.embeddingTokens,
    costUsd: before.costUsd === null ? null : -before.costUsd,
  });
}
/** Failures that no later question can escape: stop the run. */
const FATAL = new Set(['llm-auth', 'missing-api-key', 'no-provider', 'llm-rejected']);

const outcomes: QaOutcome[] = [];
let answerUsage: LlmUsage | undefined;
let judgeUsage: LlmUsage | undefined;
const started = performance.now();
for (const conversation of conversations) {
  const questions = conversation.questions.slice(0, perConversation);
  const topics = generateTopics(conversation.dialogue, variant);
  await withImportedConversation(conversation.dialogue, topics, async ({ brv }) => {
    const judge = await internals(brv).llm();
    if (!judge) throw new Error('The provider went away during the run.');
    for (const [i, question] of questions.entries()) {
      if (process.stderr.isTTY) process.stderr.write(`\r${conversation.dialogue.sampleId}: question ${i + 1}/${questions.length}`);
      try {
        const answered = await brv.retrieval.answer({ question: question.question, ...(topicLimit ? { limit: topicLimit } : {}) });
        answerUsage = add(answerUsage, answered.usage);
        const base = {
          id: question.id,
          category: question.category,
          notInKnowledge: answered.notInKnowledge,
          noModelCall: answered.usage.requests === 0,
          citations: answered.citations.length,
          rejectedCitations: answered.rejectedCitations.length,
        };
        if (question.category === 5) {
          outcomes.push({ ...base, correct: answered.notInKnowledge });
          continue;
        }
        const before = judge.usage();
        const reply = await judge.generate({
          prompt: judgePrompt(question.question, question.answer ?? '', judgedText(answered)),
          maxOutputTokens: 1024,
        });
        judgeUsage = add(judgeUsage, since(before, judge.usage()));
        const label = judgeLabel(reply);
        outcomes.push({ ...base, correct: label === 'CORRECT', ...(label ? { label } : {}) });
      } catch (error) {
        if (!isBrvError(error)) throw error;
        if (FATAL.has(error.kind)) {
          console.error(`\n${error.kind}: ${error.message}`);
          process.exit(1);
        }
        console.error(`\n${question.id}: ${error.kind}: ${error.message}`);
        outcomes.push({
          id: question.id,
          category: question.category,
          correct: false,
          notInKnowledge: false,
          noModelCall: false,
          citations: 0,
          rejectedCitations: 0,
          error: error.kind,
        });
      }
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  });
}

const rows = accuracyTable(outcomes);
const total = [answerUsage, judgeUsage].reduce<LlmUsage | undefined>((sum, u) => (u ? add(sum, u) : sum), undefined) ?? null;
const tokens = (u: LlmUsage | undefined) =>
  u
    ? `${u.requests} requests, ${u.inputTokens} tokens in, ${u.outputTokens} out${u.costUsd === null ? ', price unknown' : `, $${u.costUsd.toFixed(4)}`}`
    : 'none';
const title = `LoCoMo QA, LLM-judged (${variant} topics): ${conversations.length} conversation(s), ${outcomes.length} questions; answer and judge ${connection.spec.id} ${connection.connection.model}`;
console.log(`\n${title}\nbrv ${source.commit?.slice(0, 10) ?? '?'}${source.srcDirty ? ' + uncommitted changes in src/' : ''}`);
console.log(formatAccuracy(rows));
console.log(
  `answers: ${tokens(answerUsage)}\njudge: ${tokens(judgeUsage)}\nwall clock ${Math.round((performance.now() - started) / 100) / 10} s`,
);

const report = {
  title,
  variant,
  provider: connection.spec.id,
  model: connection.connection.model,
  topicLimit: topicLimit ?? 'default',
  protocol:
    'answers: brv.retrieval.answer; judge: LoCoMo/Mem0 LLM-as-a-judge (CORRECT/WRONG vs gold, generous), same model; overall = categories 1-4; category 5 correct iff not in the knowledge (no judge)',
  source,
  accuracy: rows,
  usage: { answers: answerUsage ?? null, judge: judgeUsage ?? null, total },
  questions: outcomes,
};
if (values.out) {
  await writeFile(
    path.resolve(values.out),
    `${JSON.stringify({ benchmark: 'locomo-qa', date: new Date().toISOString(), ...report }, null, 2)}\n`,
  );
  console.log(`wrote ${values.out}`);
} else {
  await writeReport(`locomo-qa-${variant}`, report);
}
process.exit(0);
