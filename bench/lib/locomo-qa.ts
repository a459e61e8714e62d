/**
 * The LLM-judged LoCoMo QA protocol of bench/locomo-qa.ts: the judge's prompt and how its reply is
 * read, and the accuracy table. The judge follows the LLM-as-a-judge protocol Mem0 published with its
 * LoCoMo results (arXiv:2504.19413; the `evaluation/` harness of mem0ai/mem0), in our words: a binary
 * CORRECT/WRONG label against the gold answer, graded generously (same topic; same date or period
 * whatever the format), a one-sentence reason, the label as JSON. Category 5 (adversarial: the
 * question presumes something the conversation never says) is left out of that protocol's overall
 * figure, as Mem0 does; it is scored here as LoCoMo's own evaluation does, without a judge: correct
 * when the answer says the knowledge does not hold it (brv: `notInKnowledge`).
 */
import { CATEGORY_NAMES, type Category } from './locomo-data.js';

const JUDGED_CATEGORIES: readonly Category[] = [1, 2, 3, 4];

/** The judge's prompt for one question (one user message, no system prompt, as in the protocol). */
export function judgePrompt(question: string, gold: string, generated: string): string {
  return [
    "Label a generated answer to a question as 'CORRECT' or 'WRONG'. You are given:",
    '  (1) a question (asked by one user of another user),',
    "  (2) a 'gold' (ground-truth) answer,",
    '  (3) a generated answer,',
    'and you label the generated answer CORRECT or WRONG.',
    '',
    'The question asks about something one user should know about the other from their earlier conversations.',
    'The gold answer is usually short and names the topic, for example:',
    'Question: What did I find at the flea market last spring?',
    'Gold answer: A brass lamp',
    'The generated answer may be much longer. Grade generously: as long as it is about the same topic as the gold answer, it is CORRECT.',
    '',
    'For questions about time, the gold answer is a specific date, month, year, etc. The generated answer may be longer or use',
    'relative references ("last Tuesday", "next month"). Grade generously: as long as it refers to the same date or period as',
    'the gold answer, it is CORRECT, whatever the format ("May 7th" and "7 May" are the same date).',
    '',
    'Now the real question:',
    `Question: ${question}`,
    `Gold answer: ${gold}`,
    `Generated answer: ${generated}`,
    '',
    'First give a short (one sentence) reason, then finish with CORRECT or WRONG; never write both words.',
    'Return the label in JSON with the key "label", e.g. {"reason": "...", "label": "CORRECT"}.',
  ].join('\n');
}

/** The judge's label, from its JSON (or, failing that, the last CORRECT/WRONG it wrote); undefined when it gave none. */
export function judgeLabel(reply: string): 'CORRECT' | 'WRONG' | undefined {
  for (const match of reply.match(/\{[^{}]*\}/g) ?? []) {
    try {
      const label = (JSON.parse(match) as { label?: unknown }).label;
      if (typeof label === 'string' && /^(correct|wrong)$/i.test(label.trim())) return label.trim().toUpperCase() as 'CORRECT' | 'WRONG';
    } catch {
      // not JSON: try the next, then the words
    }
  }
  const words = [...reply.matchAll(/\b(CORRECT|WRONG)\b/g)];
  return words.length > 0 ? (words[words.length - 1]![1] as 'CORRECT' | 'WRONG') : undefined;
}

/** What the judge reads: brv's answer without its citations (topic paths are brv's, not the answer's), or the not-in-the-knowledge statement. */
export function judgedText(answer: { answer: string; citations: readonly string[]; notInKnowledge: boolean }): string {
  if (answer.notInKnowledge) return 'The knowledge base does not contain this information.';
  let text = answer.answer;
  for (const citation of answer.citations) text = text.split(citation).join('');
  return text
    .replace(/\s*\[[\s,]*\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface QaOutcome {
  readonly id: string;
  readonly category: Category;
  readonly correct: boolean;
  readonly notInKnowledge: boolean;
  /** The answer step made no model call (retrieval found nothing relevant). */
  readonly noModelCall: boolean;
  readonly citations: number;
  readonly rejectedCitations: number;
  /** The judge's label; undefined for category 5 (not judged) and unreadable judge replies (counted WRONG). */
  readonly label?: 'CORRECT' | 'WRONG';
  /** The error kind when answering or judging failed (counted WRONG). */
  readonly error?: string;
}

export interface CategoryRow {
  readonly category: Category | 'overall (1-4)';
  readonly name: string;
  readonly questions: number;
  readonly correct: number;
  /** Percent, one decimal; null with no questions. */
  readonly accuracy: number | null;
  readonly notInKnowledge: number;
  readonly noModelCall: number;
  readonly errors: number;
}

function row(category: CategoryRow['category'], name: string, outcomes: readonly QaOutcome[]): CategoryRow {
  const correct = outcomes.filter((o) => o.correct).length;
  return {
    category,
    name,
    questions: outcomes.length,
    correct,
    accuracy: outcomes.length === 0 ? null : Math.round((correct / outcomes.length) * 1000) / 10,
    notInKnowledge: outcomes.filter((o) => o.notInKnowledge).length,
    noModelCall: outcomes.filter((o) => o.noModelCall).length,
    errors: outcomes.filter((o) => o.error !== undefined).length,
  };
}

/** Accuracy per category, the protocol's overall figure (categories 1–4), and category 5 on its own. */
export function accuracyTable(outcomes: readonly QaOutcome[]): CategoryRow[] {
  const rows = JUDGED_CATEGORIES.map((c) =>
    row(
      c,
      CATEGORY_NAMES[c],
      outcomes.filter((o) => o.category === c),
    ),
  );
  rows.push(
    row(
      'overall (1-4)',
      'LLM-judged',
      outcomes.filter((o) => o.category !== 5),
    ),
  );
  rows.push(
    row(
      5,
      `${CATEGORY_NAMES[5]} (correct = not in the knowledge)`,
      outcomes.filter((o) => o.category === 5),
    ),
  );
  return rows;
}

export function formatAccuracy(rows: readonly CategoryRow[]): string {
  const lines = [
    '| category | questions | correct | accuracy | not in the knowledge | no model call | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.category === 'overall (1-4)' ? '**overall (1–4)**' : `${r.category} ${r.name}`} | ${r.questions} | ${r.correct} | ${r.accuracy === null ? '–' : `${r.accuracy.toFixed(1)} %`} | ${r.notInKnowledge} | ${r.noModelCall} | ${r.errors} |`,
    );
  return lines.join('\n');
}
