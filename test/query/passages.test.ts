import test from 'ava';
import { analyze } from '../../src/query/analyze.js';
import { bestPassageCoverage } from '../../src/query/passages.js';

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
