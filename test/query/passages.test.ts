import test from 'ava';
import { analyze } from '../../src/query/analyze.js';
import { asksWhen, bestPassage, bestPassageCoverage } from '../../src/query/passages.js';

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
