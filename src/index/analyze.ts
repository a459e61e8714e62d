import lunr from 'lunr';

/**
 * The text analysis shared by indexing and querying: NFKC, lowercase, split on anything that is not a
 * Unicode letter, mark or digit (so `rs256`, `v2` and `2023` stay whole), drop a possessive "'s",
 * drop lunr's English stop words (but keep the month "May" in a written date), Porter-stem with lunr's
 * stemmer. Index and query must analyse identically, so this is the only place that decides what a
 * term is; changing it changes `INDEX_VERSION` in tree-index.ts (on-disk indexes are rebuilt).
 */

export interface AnalyzedWord {
  /** The indexed form: normalised, lowercased, stemmed. */
  readonly term: string;
  /** The word as it appears in the (NFKC-normalised) text, case kept. */
  readonly original: string;
}

/** Longer runs are identifiers, hashes or base64: noise in the dictionary, never typed in a query. */
const MAX_TERM_LENGTH = 64;

// A word: letters, combining marks, digits; an apostrophe inside a word joins (don't → dont, user's → users).
const WORD = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;
const APOSTROPHE = /['\u2019]/g;
// A possessive "'s" goes (James's → james, as "James"); other apostrophes join (don't → dont).
const POSSESSIVE = /['\u2019]s$/;
// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\u0000-\u007f]*$/;

/** lowercased word → stem, or null for a stop word. Bounded: vocabularies of real trees are far smaller. */
const memo = new Map<string, string | null>();
const MEMO_LIMIT = 200_000;

function stem(word: string): string | null {
  const known = memo.get(word);
  if (known !== undefined) return known;
  const token = new lunr.Token(word, {});
  const result = lunr.stopWordFilter(token) === undefined ? null : lunr.stemmer(token).toString();
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(word, result);
  return result;
}

// "May" is a stop word (the verb) unless a date is written around it: "8 May", "May 8", "May 2023".
const DAY_BEFORE = /(?<![\p{L}\p{N}])\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+$/iu;
const NUMBER_AFTER = /^\.?,?\s+\d{1,4}(?!\p{L})/u;

/** The month "may" (as a term) when `text[start, end)` is written as part of a date, else null (the stop word). */
function monthMay(text: string, start: number, end: number): string | null {
  return DAY_BEFORE.test(text.slice(Math.max(0, start - 12), start)) || NUMBER_AFTER.test(text.slice(end, end + 8)) ? 'may' : null;
}

function normalize(text: string): string {
  return ASCII_ONLY.test(text) ? text : text.normalize('NFKC');
}

/** The terms of `text`, in order, repeats kept (term frequencies come from them). */
export function analyze(text: string): string[] {
  if (ASCII_ONLY.test(text)) return analyzeAscii(text);
  const terms: string[] = [];
  const lower = normalize(text).toLowerCase();
  WORD.lastIndex = 0;
  for (let match = WORD.exec(lower); match !== null; match = WORD.exec(lower)) {
    let word = match[0];
    if (word.length > MAX_TERM_LENGTH) continue;
    if (word.includes("'") || word.includes('\u2019')) word = word.replace(POSSESSIVE, '').replace(APOSTROPHE, '');
    const term = word === 'may' ? monthMay(lower, match.index, match.index + 3) : stem(word);
    if (term !== null && term !== '') terms.push(term);
  }
  return terms;
}

/**
 * `analyze` for ASCII text (nearly all of it), as WORD would split it, without a regex: a match
 * object per word was a third of an index build's analysis (docs/archive/bench-notebook-2026.md, "Cold path").
 */
function analyzeAscii(text: string): string[] {
  const terms: string[] = [];
  const lower = text.toLowerCase();
  forEachAsciiWord(lower, (start, end) => {
    let word = lower.slice(start, end);
    if (word.includes("'")) word = word.replace(POSSESSIVE, '').replace(APOSTROPHE, '');
    const term = word === 'may' ? monthMay(lower, start, start + 3) : stem(word);
    if (term !== null && term !== '') terms.push(term);
  });
  return terms;
}

/** Calls `visit` with where each word of ASCII text starts and ends (as WORD splits it), those over `maxLength` left out. */
function forEachAsciiWord(text: string, visit: (start: number, end: number) => void, maxLength = MAX_TERM_LENGTH): void {
  const length = text.length;
  let i = 0;
  while (i < length) {
    if (!isAsciiWordChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    i = asciiWordEnd(text, i);
    if (i - start <= maxLength) visit(start, i);
  }
}

/**
 * Where each word of `text` starts and ends, as WORD splits it (no length limit). ASCII text (every
 * question typed in English) is split without WORD: compiling its Unicode classes is ~2 ms of a
 * query process on a slow machine (docs/archive/bench-notebook-2026.md, "Warm path, round 3").
 */
export function forEachWord(text: string, visit: (start: number, end: number) => void): void {
  if (ASCII_ONLY.test(text)) {
    forEachAsciiWord(text, visit, Infinity);
    return;
  }
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) visit(match.index, match.index + match[0].length);
}

/**
 * The terms of an index build, numbered in first-seen order. `add` appends the ids of a text's terms
 * (exactly `analyze(text)`, as ids) to a list. A word seen before in the build costs one map lookup
 * by its lowercased form, instead of a lookup of its stem and another of the stem's id: the index
 * build of a fetched tree analyses every word of every topic (docs/archive/bench-notebook-2026.md, "Cold path, round 3").
 */
export class TermIds {
  /** The term of each id. */
  readonly terms: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Lowercased ASCII word (before possessive removal and stemming) → its term's id, or -1 when it has none. */
  private readonly words = new Map<string, number>();

  /** The id of `term`, numbered now if it is new. */
  idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
    }
    return id;
  }

  /** Appends the ids of `text`'s terms to `out`, in order, repeats kept; returns how many. */
  add(text: string, out: number[]): number {
    const before = out.length;
    if (!ASCII_ONLY.test(text)) {
      for (const term of analyze(text)) out.push(this.idOf(term));
      return out.length - before;
    }
    const lower = text.toLowerCase();
    forEachAsciiWord(lower, (start, end) => {
      const word = lower.slice(start, end);
      let id = this.words.get(word);
      if (id === undefined) {
        const base = word.includes("'") ? word.replace(POSSESSIVE, '').replace(APOSTROPHE, '') : word;
        const term = base === 'may' ? monthMay(lower, start, start + 3) : stem(base);
        id = term === null || term === '' ? -1 : this.idOf(term);
        // Whether "may" is the month depends on the words around it: never remembered.
        if (base !== 'may') this.words.set(word, id);
      }
      if (id >= 0) out.push(id);
    });
    return out.length - before;
  }
}

/** Where the ASCII word starting at `start` ends: letters and digits, joined by an apostrophe a letter or digit follows (as WORD). */
function asciiWordEnd(text: string, start: number): number {
  const length = text.length;
  let i = start + 1;
  for (;;) {
    while (i < length && isAsciiWordChar(text.charCodeAt(i))) i++;
    if (i + 1 < length && text.charCodeAt(i) === 39 && isAsciiWordChar(text.charCodeAt(i + 1))) {
      i += 2;
      continue;
    }
    return i;
  }
}

/**
 * `analyze(text).filter((t) => wanted.has(t))`, cheaper for a few wanted terms over long text (passage
 * evidence over long topics, on every query): lunr's stemmer only rewrites suffixes, and keeps a
 * word's first two letters whenever the stem has two (checked on all words of up to four letters,
 * 2.4 million suffixed ones and 58,000 real ones: docs/archive/bench-notebook-2026.md, "Cold path"), so only words
 * starting like a wanted term are found, by one regex, and stemmed. Non-ASCII text takes `analyze`.
 */
export function wantedTerms(text: string, wanted: ReadonlySet<string>): string[] {
  if (wanted.size === 0) return [];
  if (!ASCII_ONLY.test(text)) return analyze(text).filter((term) => wanted.has(term));
  const found: string[] = [];
  forEachWantedTerm(text, wanted, false, (term) => found.push(term));
  return found;
}

/**
 * `wantedTerms` of each line of ASCII text, in one pass over it: calls `visit` with each wanted term
 * and where its word starts, in order, each line analysed as if alone (a "May" sees only its own line
 * to tell whether it is a month). False, and nothing visited, when the text is not ASCII.
 */
export function forEachWantedTermByLine(text: string, wanted: ReadonlySet<string>, visit: (term: string, at: number) => void): boolean {
  if (!ASCII_ONLY.test(text)) return false;
  if (wanted.size > 0) forEachWantedTerm(text, wanted, true, visit);
  return true;
}

function forEachWantedTerm(text: string, wanted: ReadonlySet<string>, byLine: boolean, visit: (term: string, at: number) => void): void {
  const pattern = wantedWordPattern(wanted);
  if (pattern === undefined) return;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length > MAX_TERM_LENGTH) continue;
    let word = match[0].toLowerCase();
    if (word.includes("'")) word = word.replace(POSSESSIVE, '').replace(APOSTROPHE, '');
    const at = match.index;
    let term: string | null;
    if (word !== 'may') term = stem(word);
    else if (!byLine) term = monthMay(text, at, at + 3);
    else {
      const lineEnd = text.indexOf('\n', at);
      const line = text.slice(text.lastIndexOf('\n', at) + 1, lineEnd < 0 ? text.length : lineEnd);
      const inLine = at - (text.lastIndexOf('\n', at) + 1);
      term = monthMay(line, inLine, inLine + 3);
    }
    if (term !== null && wanted.has(term)) visit(term, at);
  }
}

const wantedPatterns = new WeakMap<ReadonlySet<string>, RegExp | undefined>();

/**
 * Whole ASCII words (as WORD splits them: not inside another word, apostrophes joining) that start
 * with a wanted term's first two letters (an apostrophe may join them; the only letter of a one-letter
 * term); undefined when no
 * wanted term could come from ASCII text.
 */
function wantedWordPattern(wanted: ReadonlySet<string>): RegExp | undefined {
  if (wantedPatterns.has(wanted)) return wantedPatterns.get(wanted);
  const prefixes = [
    ...new Set([...wanted].filter((term) => /^[a-z0-9]+$/.test(term)).map((term) => (term.length > 1 ? `${term[0]}'?${term[1]}` : term))),
  ];
  const pattern = prefixes.length === 0 ? undefined : new RegExp(`(?<![a-z0-9]'?)(?:${prefixes.join('|')})[a-z0-9]*(?:'[a-z0-9]+)*`, 'gi');
  wantedPatterns.set(wanted, pattern);
  return pattern;
}

/** A letter or digit of ASCII text, either case: what WORD matches there. */
function isAsciiWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

/** Like `analyze`, keeping the word each term came from (to tell a user which query words matched). */
export function analyzeWithOriginals(text: string): AnalyzedWord[] {
  const words: AnalyzedWord[] = [];
  const normalized = normalize(text);
  forEachWord(normalized, (start, end) => {
    if (end - start > MAX_TERM_LENGTH) return;
    const original = normalized.slice(start, end);
    const word = original.toLowerCase().replace(POSSESSIVE, '').replace(APOSTROPHE, '');
    const term = word === 'may' ? monthMay(normalized, start, start + 3) : stem(word);
    if (term !== null && term !== '') words.push({ term, original });
  });
  return words;
}

/** The normalised, lowercased, unstemmed words of `text` (stop words kept): for prefix matching. */
export function words(text: string): string[] {
  const lower = normalize(text).toLowerCase();
  const found: string[] = [];
  forEachWord(lower, (start, end) => {
    const word = lower.slice(start, end).replace(POSSESSIVE, '').replace(APOSTROPHE, '');
    if (word.length <= MAX_TERM_LENGTH) found.push(word);
  });
  return found;
}

/** Whether `word` (already lowercased) is one of lunr's English stop words. */
export function isStopWord(word: string): boolean {
  return stem(word) === null;
}
