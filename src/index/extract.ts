import type { Element } from 'hast';
import { attributesOf, elementsIn, flatText, splitList } from '../topic/hast.js';
import { topicText } from '../topic/text.js';
import type { BlobFields } from './doc-cache.js';

/**
 * What the index takes from a topic's hast (all but the rendered markdown and plain text): shared by the full path
 * (document.ts, after parse5 and the sanitizer) and the fast path (fast-extract.ts), and loading no
 * HTML code itself.
 */

/** Elements whose text states the topic's key knowledge; boosted over plain body text. */
const KEY_ELEMENTS = new Set(['bv-rule', 'bv-decision', 'bv-fact', 'bv-bug', 'bv-fix', 'bv-highlights']);

/** A word of three or more letters: what names a subject ("access_token_ttl"), unlike an id ("D1:3", "#42"). */
const WORDLIKE = /\p{L}{3}/u;

/** A subject that is only an identifier (letters and digits without a word) says nothing to search for. */
function isIdentifier(text: string): boolean {
  return !WORDLIKE.test(text);
}

export function extractDocument(root: Element): BlobFields {
  const text = topicText(root);
  const related = splitList(attributesOf(root).get('related')).map((ref) => ref.replace(/^@/, '').replace(/\.html$/, ''));
  const key: string[] = [];
  const dates = new Set<string>();
  const kinds = new Set<string>();
  for (const element of text.elements) {
    kinds.add(element.tag);
    if (KEY_ELEMENTS.has(element.tag)) {
      if (element.tag === 'bv-fact') {
        const { subject, value } = element.attributes;
        if (subject && !isIdentifier(subject)) key.push(subject);
        if (value) key.push(value);
      }
      key.push(element.text);
    }
    if (element.tag === 'bv-timestamp') for (const date of datesIn(element.text)) dates.add(date);
  }
  for (const element of elementsIn(root)) {
    if (element.tagName !== 'time') continue;
    const datetime = attributesOf(element).get('datetime');
    for (const date of datesIn(datetime ?? flatText(element))) dates.add(date);
  }
  kinds.delete('bv-topic');
  return {
    title: text.title,
    fields: {
      title: text.title,
      meta: [text.summary, ...text.tags, ...text.keywords, ...related, ...[...dates].sort().map(dateInWords)]
        .filter((s) => s !== '')
        .join(' \n '),
      key: key.join(' \n '),
      body: text.body,
    },
    dates: [...dates].sort(),
    kinds: [...kinds].sort(),
  };
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "2023-05-08" → "8 May 2023": the date as questions say it ("in May 2023", "on 8 May"). */
export function dateInWords(iso: string): string {
  const [year, month, day] = iso.split('-').map(Number);
  return `${day} ${MONTH_NAMES[month! - 1]} ${year}`;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const NUMERIC = /(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g;
const DAY_MONTH_YEAR = new RegExp(`(?<!\\d)(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH},?\\s+(\\d{4})(?!\\d)`, 'gi');
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})(?!\\d)`, 'gi');

function isoDate(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12 || day < 1 || year < 1000 || year > 9999) return undefined;
  const time = Date.UTC(year, month - 1, day);
  if (new Date(time).getUTCDate() !== day) return undefined; // 2023-02-30
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Calendar dates written in `text`, as YYYY-MM-DD: ISO and ISO-like (`2024-03-05`, `2024/3/5`,
 * `2024-03-05T10:00Z`), `5 March 2024`, `March 5, 2024`. Anything else is ignored, never guessed.
 */
export function datesIn(text: string): string[] {
  const found: string[] = [];
  const add = (date: string | undefined) => {
    if (date !== undefined) found.push(date);
  };
  for (const m of text.matchAll(NUMERIC)) add(isoDate(Number(m[1]), Number(m[2]), Number(m[3])));
  for (const m of text.matchAll(DAY_MONTH_YEAR)) add(isoDate(Number(m[3]), MONTHS.indexOf(m[2]!.toLowerCase()) + 1, Number(m[1])));
  for (const m of text.matchAll(MONTH_DAY_YEAR)) add(isoDate(Number(m[3]), MONTHS.indexOf(m[1]!.toLowerCase()) + 1, Number(m[2])));
  return [...new Set(found)];
}
