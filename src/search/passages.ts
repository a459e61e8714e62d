import { forEachWantedTermByLine, wantedTerms } from '../index/analyze.js';

/**
 * Passage-level evidence for long topics: the share of the question's distinct terms that occur
 * together in one passage (a line or list item of the rendered markdown). A topic whose best
 * passage answers the whole question is a better answer than one that spreads the words over
 * unrelated lines — what BM25 over the whole topic cannot see.
 */
export function bestPassageCoverage(markdown: string, questionTerms: ReadonlySet<string>): number {
  return bestPassage(markdown, questionTerms, false).coverage;
}

/**
 * Words that place an event in time ("yesterday", "last week", "two years ago", "in June", "2022"):
 * what the passage that answers "when did …?" says beside the question's own words. ("May" is left
 * out: as often a verb as a month.)
 */
const TIME_WORDS =
  /\b(?:yesterday|today|tonight|tomorrow|ago|weekend|weeks?|months?|years?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december|spring|summer|autumn|winter|(?:19|20)\d\d)\b/i;
/** Lines that carry the topic's own title, date and labels rather than what it says. */
const META_LINE = /^(?:#|\*\*Timestamp\*\*|Tags:|Keywords:|Related:)/;
/** A question that asks when: "When did …", "how long ago", "what year / month / date / day / week". */
const WHEN_QUESTION = /\bwhen\b|\bhow long ago\b|\b(?:what|which) (?:year|month|date|day|week)\b/i;

export function asksWhen(question: string): boolean {
  return WHEN_QUESTION.test(question);
}

export interface BestPassage {
  /** The best passage's share of the question's distinct terms. */
  readonly coverage: number;
  /** The same for the best passage with a time word (`TIME_WORDS`; not the title, timestamp or tags); 0 when not asked. */
  readonly timedCoverage: number;
}

/** Passage coverage of the question's terms (see `bestPassageCoverage`), and with `timed` the best timed passage's. */
export function bestPassage(markdown: string, questionTerms: ReadonlySet<string>, timed: boolean): BestPassage {
  const size = questionTerms.size;
  if (size === 0) return { coverage: 0, timedCoverage: 0 };
  return bestLine(markdown, questionTerms, timed) ?? bestPassageOfEach(markdown, questionTerms, timed);
}

/**
 * bestPassage for ASCII markdown in one pass over it (the question's words found by one regex, each
 * counted for the line it is in) instead of a split and a search per line: ~2,000 lines in the 50 long
 * topics a query re-ranks (docs/archive/bench-notebook-2026.md, "Cold path, round 3"). Undefined for other text.
 */
function bestLine(markdown: string, questionTerms: ReadonlySet<string>, timed: boolean): BestPassage | undefined {
  const size = questionTerms.size;
  let best = 0;
  let bestTimed = 0;
  let lineStart = 0;
  let lineEnd = -1;
  const seen = new Set<string>();
  // The line read so far: its distinct terms are counted in `seen`; passages of under 3 characters do not count.
  const close = () => {
    if (lineEnd < 0 || lineEnd - lineStart < 3) return;
    const found = seen.size;
    if (found > best) best = found;
    if (timed && found > bestTimed) {
      const line = markdown.slice(lineStart, lineEnd);
      if (!META_LINE.test(line) && TIME_WORDS.test(line)) bestTimed = found;
    }
  };
  const ascii = forEachWantedTermByLine(markdown, questionTerms, (term, at) => {
    if (at >= lineEnd) {
      close();
      seen.clear();
      lineStart = markdown.lastIndexOf('\n', at) + 1;
      const end = markdown.indexOf('\n', at);
      lineEnd = end < 0 ? markdown.length : end;
    }
    seen.add(term);
  });
  if (!ascii) return undefined;
  close();
  return { coverage: best / size, timedCoverage: bestTimed / size };
}

/** bestPassage a line at a time (text that is not ASCII). */
function bestPassageOfEach(markdown: string, questionTerms: ReadonlySet<string>, timed: boolean): BestPassage {
  const size = questionTerms.size;
  let best = 0;
  let bestTimed = 0;
  for (const passage of markdown.split(/\n+/)) {
    if (passage.length < 3) continue;
    let found = 0;
    const seen = new Set<string>();
    for (const term of wantedTerms(passage, questionTerms)) {
      if (!seen.has(term)) {
        seen.add(term);
        found++;
      }
    }
    if (found > best) best = found;
    if (timed && found > bestTimed && !META_LINE.test(passage) && TIME_WORDS.test(passage)) bestTimed = found;
    if (best === size && (!timed || bestTimed === size)) break;
  }
  return { coverage: best / size, timedCoverage: bestTimed / size };
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = `(${MONTHS.join('|')})`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const QUESTION_DATES = new RegExp(
  `\\b(?:${MONTH}\\s+${DAY},?\\s+(\\d{4})|${DAY}\\s+${MONTH},?\\s+(\\d{4})|(\\d{4})-(\\d{2})-(\\d{2}))\\b`,
  'gi',
);
/** A span of days (days since 1970, both ends included) that a question names. */
export interface DaySpan {
  readonly from: number;
  readonly to: number;
}

/** The days a question names: "on May 3, 2023", "3rd May 2023", "2023-05-03" (one-day spans). */
export function questionDays(question: string): DaySpan[] {
  const spans: DaySpan[] = [];
  // Every date form has digits: most questions skip the regex, whose first use compiles it (~2 ms).
  if (!/\d/.test(question)) return spans;
  for (const m of question.matchAll(QUESTION_DATES)) {
    const [year, month, day] =
      m[1] !== undefined
        ? [Number(m[3]), MONTHS.indexOf(m[1].toLowerCase()), Number(m[2])]
        : m[5] !== undefined
          ? [Number(m[6]), MONTHS.indexOf(m[5].toLowerCase()), Number(m[4])]
          : [Number(m[7]), Number(m[8]) - 1, Number(m[9])];
    const at = Date.UTC(year, month, day) / DAY_MS;
    if (month < 0 || month > 11 || new Date(at * DAY_MS).getUTCDate() !== day) continue;
    spans.push({ from: at, to: at });
  }
  return spans;
}

const DAY_MS = 86_400_000;

/** Days since 1970 of a YYYY-MM-DD date. */
function dayNumber(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

/** 1 for a topic dated inside a span the question names (a day), falling linearly to 0 at `window` days from it. */
export function dateCloseness(topicDates: readonly string[], spans: readonly DaySpan[], window: number): number {
  let best = 0;
  for (const date of topicDates) {
    const day = dayNumber(date);
    for (const { from, to } of spans) {
      const distance = day < from ? from - day : day > to ? day - to : 0;
      best = Math.max(best, 1 - distance / window);
    }
  }
  return best;
}
