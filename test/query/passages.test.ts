import test from 'ava';
import { analyze } from '../../src/index/analyze.js';
import { asksWhen, bestPassage, bestPassageCoverage, dateCloseness, questionDays } from '../../src/search/passages.js';
import { seededRandom } from '../helpers/random.js';

const terms = (q: string) => new Set(analyze(q));

test('the best passage is the line that holds most of the question, stemmed', (t) => {
  const markdown = [
    '# Session 3',
    '',
    '- Caroline: I went hiking last weekend.',
    '- Melanie: My daughter started painting classes in May.',
  ].join('\n');
  t.is(bestPassageCoverage(markdown, terms('When did Melanie start painting classes?')), 1);
  t.is(bestPassageCoverage(markdown, terms('hiking classes')), 0.5);
  t.is(bestPassageCoverage(markdown, terms('kubernetes')), 0);
  t.is(bestPassageCoverage(markdown, new Set()), 0);
});

test('words spread over different lines count less than the same words in one line', (t) => {
  const together = 'intro\n- Rotate the signing keys monthly.\n';
  const spread = 'intro\n- Rotate tyres.\n- Signing forms.\n- Keys on the hook.\n- Monthly report.\n';
  const q = terms('rotate signing keys monthly');
  t.true(bestPassageCoverage(together, q) > bestPassageCoverage(spread, q));
});

test('when-questions: asksWhen tells them from other questions', (t) => {
  t.true(asksWhen('When did Melanie paint a sunrise?'));
  t.true(asksWhen('How long ago was the trip?'));
  t.true(asksWhen('In what year did John move?'));
  t.false(asksWhen('What did Melanie paint?'));
  t.false(asksWhen('Whenever the job fails, who is paged?'));
});

test('timed coverage: the best passage that places something in time, not the title or timestamp', (t) => {
  const q = terms('When did Melanie paint a sunrise?');
  const dated = ['# Melanie, 8 May 2023', '', '**Timestamp**: 2023-05-08', '- Melanie: I painted that sunrise last year.'].join('\n');
  const undated = ['# Melanie, 8 May 2023', '', '**Timestamp**: 2023-05-08', '- Melanie: I painted that sunrise with oils.'].join('\n');
  t.is(bestPassage(dated, q, true).timedCoverage, 1);
  t.is(bestPassage(dated, q, false).timedCoverage, 0);
  t.is(bestPassage(undated, q, true).timedCoverage, 0);
  t.is(bestPassage(undated, q, true).coverage, 1);
  // a timed passage with fewer of the question's words still counts, for its share
  const partly = ['- Melanie: I painted that sunrise with oils.', '- Melanie: we went back in June.'].join('\n');
  t.is(bestPassage(partly, q, true).coverage, 1);
  t.is(bestPassage(partly, q, true).timedCoverage, 1 / 3);
});

test('questionDays: the days a question names, in the ways people write them', (t) => {
  const day = (iso: string) => Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))) / 86_400_000;
  const on = (iso: string) => ({ from: day(iso), to: day(iso) });
  t.deepEqual(questionDays('Who did Maria have dinner with on May 3, 2023?'), [on('2023-05-03')]);
  t.deepEqual(questionDays('What happened on 3rd May 2023 and on 2023-05-04?'), [on('2023-05-03'), on('2023-05-04')]);
  t.deepEqual(questionDays('What did Sam do on December 4th, 2023?'), [on('2023-12-04')]);
  t.deepEqual(questionDays('What did Sam do in May 2023?'), [], 'a month is not a day');
  t.deepEqual(questionDays('May I deploy on Friday?'), []);
  t.deepEqual(questionDays('What broke on February 31, 2023?'), [], 'not a day');
});

test('dateCloseness: 1 on a named day or inside a named span, falling to 0 at the window', (t) => {
  const day = (iso: string) => Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))) / 86_400_000;
  const spans = questionDays('on May 3, 2023');
  t.is(dateCloseness(['2023-05-03'], spans, 7), 1);
  t.is(dateCloseness(['2023-05-10'], spans, 7), 0);
  t.is(dateCloseness(['2023-04-26', '2023-05-06'], spans, 7), 1 - 3 / 7);
  t.is(dateCloseness([], spans, 7), 0);
  t.is(dateCloseness(['2023-05-05'], [{ from: day('2023-05-01'), to: day('2023-05-31') }], 7), 1);
  t.is(dateCloseness(['2023-06-03'], [{ from: day('2023-05-01'), to: day('2023-05-31') }], 7), 1 - 3 / 7);
});

test('bestPassage in one pass over ASCII markdown equals a search of each line, on seeded random markdown (May beside a date on the line before or after, short lines, blank lines)', (t) => {
  const pieces = [
    'painting', 'paint', 'classes', 'class', 'hiking', 'May', '8', 'May 2023', '8 May', '2023', 'yesterday', 'last', 'week', 'x',
    'go', 'Melanie', "Melanie's", 'the', 'a', '\n', '\n\n', '\n', '- ', '# ', '**Timestamp**', 'Tags:', '  ', 'é',
  ]; // prettier-ignore
  // "May" ends a line after a day: the month only when the line before is not seen (each line alone).
  t.is(bestPassage('- go 8\nMay x 8', terms('8 May'), false).coverage, 0.5);
  const questions = ['When did Melanie start painting classes?', 'hiking last week', 'what happened on 8 May', 'go', 'may'];
  for (let seed = 1; seed <= 1500; seed++) {
    const random = seededRandom(seed);
    const usable = seed % 4 === 0 ? pieces : pieces.filter((p) => p !== 'é');
    const markdown = Array.from(
      { length: 1 + Math.floor(random() * 60) },
      () => usable[Math.floor(random() * usable.length)]! + (random() < 0.6 ? ' ' : ''),
    ).join('');
    const q = terms(questions[seed % questions.length]!);
    for (const timed of [false, true]) {
      t.deepEqual(
        bestPassage(markdown, q, timed),
        referenceBestPassage(markdown, q, timed),
        `seed ${seed}, timed ${timed}: ${JSON.stringify(markdown)}`,
      );
    }
  }
});

/** bestPassage as it was written first: a split into lines and a search of each (the reference). */
function referenceBestPassage(
  markdown: string,
  questionTerms: ReadonlySet<string>,
  timed: boolean,
): { coverage: number; timedCoverage: number } {
  const size = questionTerms.size;
  if (size === 0) return { coverage: 0, timedCoverage: 0 };
  let best = 0;
  let bestTimed = 0;
  for (const passage of markdown.split(/\n+/)) {
    if (passage.length < 3) continue;
    const found = new Set(analyze(passage).filter((term) => questionTerms.has(term))).size;
    if (found > best) best = found;
    if (
      timed &&
      found > bestTimed &&
      !/^(?:#|\*\*Timestamp\*\*|Tags:|Keywords:|Related:)/.test(passage) &&
      /\b(?:yesterday|today|tonight|tomorrow|ago|weekend|weeks?|months?|years?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december|spring|summer|autumn|winter|(?:19|20)\d\d)\b/i.test(
        passage,
      )
    )
      bestTimed = found;
  }
  return { coverage: best / size, timedCoverage: bestTimed / size };
}
