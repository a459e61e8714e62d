/**
 * bench/answer-gate: the data behind `relevantTopics` (src/models/llm/answer.ts), the rule that decides,
 * without a model, whether `brv query --answer` has anything to answer from. Each LoCoMo conversation
 * (one topic per session, imported as bench/locomo.ts does) is asked its own questions and the
 * questions of another conversation (index + 5: knowledge that is not there); for the top 5 topics it
 * records the top score and the best share of the question's content words one topic matched, and
 * prints how many of each kind each threshold would turn away. No model is called.
 *
 *   node --import tsx bench/answer-gate.ts [path-to-locomo10.json]
 */
import { loadLocomo } from './lib/locomo-data.js';
import { withImportedConversation } from './lib/locomo-run.js';
import { generateTopics } from './lib/locomo-topics.js';
import { measuredSource } from './lib/report.js';
import { questionWords } from '../src/search/question.js';

await measuredSource();
const conversations = await loadLocomo(process.argv[2] ?? '../shared/bench-data/locomo/locomo10.json');
const rows: Array<{ kind: string; top: number; coverage: number }> = [];
for (const [i, conversation] of conversations.entries()) {
  const topics = generateTopics(conversation.dialogue, 'session');
  await withImportedConversation(conversation.dialogue, topics, async ({ brv }) => {
    const other = conversations[(i + 5) % conversations.length]!;
    const asked = [
      ...conversation.questions.map((q) => ({ q, kind: q.category === 5 ? 'own, adversarial (5)' : 'own, answerable (1-4)' })),
      ...other.questions.map((q) => ({ q, kind: 'another conversation' })),
    ];
    for (const { q, kind } of asked) {
      const result = await brv.retrieval.query({ question: q.question, limit: 5 });
      const words = questionWords(q.question);
      const terms = new Set(words.map((w) => w.term)).size || 1;
      const coverage = Math.max(
        0,
        ...result.matchedDocs.map((d) => {
          const matched = new Set(d.matched.terms);
          return new Set(words.filter((w) => matched.has(w.original)).map((w) => w.term)).size / terms;
        }),
      );
      rows.push({ kind, top: result.metadata.topScore, coverage });
    }
  });
}
for (const kind of [...new Set(rows.map((r) => r.kind))]) {
  const of = rows.filter((r) => r.kind === kind);
  const cells = [0.25, 1 / 3, 0.4, 0.5].map((x) => `coverage < ${x.toFixed(2)}: ${of.filter((r) => r.coverage < x - 1e-9).length}`);
  const scores = [0.3, 0.5].map((x) => `top score < ${x}: ${of.filter((r) => r.top < x).length}`);
  console.log(
    `${kind}: ${of.length} questions, ${of.filter((r) => r.top === 0).length} match nothing; turned away by ${[...cells, ...scores].join(', ')}`,
  );
}
process.exit(0);
