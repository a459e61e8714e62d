import { analyzeWithOriginals, forEachWord, type AnalyzedWord } from '../index/analyze.js';

/**
 * Query-side handling of natural-language questions. Agents ask brv in sentences ("What kind of art
 * does Caroline make?", "How long has she had the dog?"), and some words of a question only frame
 * it: lunr's stop words cover "what", "does" and "the", but not the noun or adverb that an
 * interrogative phrase needs ("kind" in "what kind of", "long" in "how long"). As query terms they
 * match unrelated text ("kind words", "a long day"), so they are dropped when, and only when, they
 * sit in such a phrase; the same word elsewhere in a question is kept.
 */

/** "what kind of", "which types of", … : the middle word frames the question. */
const KIND_OF = new Set(['kind', 'kinds', 'type', 'types', 'sort', 'sorts']);
/** "how many", "how long", … : the word after "how" asks for a quantity. */
const HOW_QUANTITY = new Set(['many', 'much', 'long', 'often', 'far']);

/** Character ranges of the words of `query` that only frame the question. */
function frameWords(query: string): Array<[number, number]> {
  const tokens: Array<{ word: string; start: number; end: number }> = [];
  forEachWord(query, (start, end) => tokens.push({ word: query.slice(start, end).toLowerCase(), start, end }));
  const frame: Array<[number, number]> = [];
  for (let i = 0; i < tokens.length; i++) {
    const { word } = tokens[i]!;
    const next = tokens[i + 1];
    const after = tokens[i + 2];
    if ((word === 'what' || word === 'which') && next && KIND_OF.has(next.word) && after?.word === 'of') frame.push([next.start, next.end]);
    if (word === 'how' && next && HOW_QUANTITY.has(next.word)) {
      frame.push([next.start, next.end]);
      // "how many times", "how much time": the unit of the count frames it too.
      if (after && (after.word === 'times' || after.word === 'time')) frame.push([after.start, after.end]);
    }
  }
  return frame;
}

/** The analysed words of a question, without the words that only frame it. */
export function questionWords(query: string): AnalyzedWord[] {
  const frame = frameWords(query);
  if (frame.length === 0) return analyzeWithOriginals(query);
  let text = '';
  let at = 0;
  for (const [start, end] of frame) {
    text += `${query.slice(at, start)} `;
    at = end;
  }
  return analyzeWithOriginals(text + query.slice(at));
}
