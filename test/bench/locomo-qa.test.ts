import test from 'ava';
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ENV, ROOT, tempDir } from '../helpers/repo.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { accuracyTable, judgedText, judgeLabel, judgePrompt, type QaOutcome } from '../../bench/lib/locomo-qa.js';
import { tinySample } from './locomo-fixture.js';

test('the judge prompt holds the question, the gold answer and the generated one; labels are read from JSON or words', (t) => {
  const prompt = judgePrompt('What is the puppy called?', 'Rex', 'The puppy is Rex.');
  t.regex(prompt, /Question: What is the puppy called\?\nGold answer: Rex\nGenerated answer: The puppy is Rex\./);
  t.regex(prompt, /"label"/);
  t.is(judgeLabel('It names the same dog. {"label": "CORRECT"}'), 'CORRECT');
  t.is(judgeLabel('```json\n{"reason": "different", "label": "wrong"}\n```'), 'WRONG');
  t.is(judgeLabel('Not the same thing, so WRONG'), 'WRONG');
  t.is(judgeLabel('no idea'), undefined);
  t.is(
    judgedText({
      answer: 'Rex [locomo/conv-t1/session_01], aged 3 [locomo/conv-t1/session_01, locomo/x/y].',
      citations: ['locomo/conv-t1/session_01', 'locomo/x/y'],
      notInKnowledge: false,
    }),
    'Rex, aged 3.',
  );
  t.regex(judgedText({ answer: '', citations: [], notInKnowledge: true }), /does not contain/);
});

test('accuracy: per category, overall over categories 1–4, category 5 on its own', (t) => {
  const o = (category: QaOutcome['category'], correct: boolean): QaOutcome => ({
    id: `x#${Math.random()}`,
    category,
    correct,
    notInKnowledge: false,
    noModelCall: false,
    citations: 1,
    rejectedCitations: 0,
  });
  const rows = accuracyTable([o(1, true), o(1, false), o(4, true), o(5, true), o(5, false), o(5, false)]);
  t.like(
    rows.find((r) => r.category === 1),
    { questions: 2, correct: 1, accuracy: 50 },
  );
  t.like(
    rows.find((r) => r.category === 2),
    { questions: 0, accuracy: null },
  );
  t.like(
    rows.find((r) => r.category === 'overall (1-4)'),
    { questions: 3, correct: 2, accuracy: 66.7 },
  );
  t.like(
    rows.find((r) => r.category === 5),
    { questions: 3, correct: 1, accuracy: 33.3 },
  );
});

async function runHarness(args: string[], env: Record<string, string>) {
  return execa('node', ['--import', 'tsx', path.join(ROOT, 'bench/locomo-qa.ts'), ...args], {
    cwd: ROOT,
    env: { ...ENV, ...env },
    extendEnv: false,
    reject: false,
  });
}

test('with no provider: "skipped: no provider", exit 0', async (t) => {
  const run = await runHarness(['/nonexistent/locomo10.json'], {});
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stdout, /^skipped: no provider/);
});

test('end to end on a tiny slice against the loopback server: answers by brv, a scripted judge, accuracy, tokens, JSON', async (t) => {
  const dir = await tempDir();
  const data = path.join(dir, 'locomo.json');
  await writeFile(data, JSON.stringify([tinySample()]));
  const server = await startLlmServer();
  t.teardown(() => server.close());
  // The judge says CORRECT when the generated answer names Rex; the answerer cites the first topic it was shown.
  server.fallback = (request) => {
    if (request.prompt.includes('Gold answer:'))
      return { text: /Generated answer: .*Rex/.test(request.prompt) ? '{"label": "CORRECT"}' : '{"label": "WRONG"}' };
    const shown = /<topic path="([^"]+)" title=/.exec(request.prompt)?.[1];
    return { text: request.prompt.includes('puppy') && shown ? `The puppy is Rex [${shown}].` : 'NOT_IN_KNOWLEDGE' };
  };
  const out = path.join(dir, 'result.json');
  const run = await runHarness([data, '--conversations', 'conv-T1', '--limit-questions', '5', '--out', out], {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_MODEL: 'test-model',
    BRV_LLM_API_KEY: 'sk-test-secret-0000',
  });
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stdout, /LoCoMo QA, LLM-judged/);
  t.regex(run.stdout, /\| \*\*overall \(1–4\)\*\* \|/);
  t.regex(run.stdout, /answers: \d+ requests, \d+ tokens in/);
  t.regex(run.stdout, /judge: \d+ requests/);
  t.false(run.stdout.includes('sk-test-secret-0000'));
  const report = JSON.parse(await readFile(out, 'utf8'));
  t.is(report.benchmark, 'locomo-qa');
  const byId = new Map<string, any>(report.questions.map((q: any) => [q.id, q]));
  // Question 0 (the puppy, category 4): answered from the topic and judged CORRECT.
  t.like(byId.get('conv-T1#0'), { category: 4, correct: true, label: 'CORRECT', notInKnowledge: false, citations: 1 });
  // Question 4 (category 5, adversarial): not judged; correct only as "not in the knowledge".
  const adversarial = byId.get('conv-T1#4');
  t.is(adversarial.category, 5);
  t.is(adversarial.label, undefined);
  t.is(adversarial.correct, adversarial.notInKnowledge);
  const overall = report.accuracy.find((r: any) => r.category === 'overall (1-4)');
  t.is(overall.questions, report.questions.filter((q: any) => q.category !== 5).length);
  t.true(overall.correct >= 1);
  t.true(report.usage.judge.requests >= 1);
  // Every judge request carried the gold answer; no question or answer text is written to the results.
  t.true(server.requests.some((r) => r.prompt.includes('Gold answer: Rex ANSWERCANARY')));
  t.false(JSON.stringify(report).includes('ANSWERCANARY'));
  t.false(JSON.stringify(report).includes('puppy'));
});
