/**
 * LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0) loading and normalisation for bench/locomo.ts,
 * exactly as /work/shared/reference/retrieval-bench.md describes. The data is read from wherever it
 * lives at bench time and never copied into the repository.
 *
 * A conversation is split into the part topics may be generated from (`Dialogue`: speakers, sessions,
 * turns) and the questions (`Question`). `qa`, `event_summary`, `observation` and `session_summary`
 * never reach a `Dialogue`, so topic generation cannot leak answers.
 */
import { readFile } from 'node:fs/promises';

export type Category = 1 | 2 | 3 | 4 | 5;

export const CATEGORY_NAMES: Readonly<Record<Category, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface SessionDate {
  /** As in the data, e.g. "1:56 pm on 8 May, 2023". */
  readonly raw: string;
  /** "2023-05-08"; undefined when `raw` could not be parsed. */
  readonly iso?: string;
  /** "8 May 2023". */
  readonly words?: string;
  /** "Monday". */
  readonly weekday?: string;
  /** "1:56 pm". */
  readonly time?: string;
}

export interface Turn {
  /** Normalised, e.g. "D1:3". */
  readonly diaId: string;
  readonly session: number;
  readonly speaker: string;
  /** The turn's text, whitespace collapsed, with `[shares: <blip_caption>]` appended for an image. */
  readonly text: string;
}

export interface Session {
  readonly number: number;
  readonly date: SessionDate;
  readonly turns: readonly Turn[];
}

/** Everything topics may be generated from: the conversation alone. */
export interface Dialogue {
  readonly sampleId: string;
  readonly speakers: readonly [string, string];
  readonly sessions: readonly Session[];
}

export interface Question {
  /** `<sample_id>#<index in qa>`: stable, and free of the question's text. */
  readonly id: string;
  readonly question: string;
  /** `answer`, or `adversarial_answer` for category 5; numbers become strings. */
  readonly answer: string | undefined;
  readonly category: Category;
  /** Normalised turn ids, deduplicated, each present in the conversation; never empty. */
  readonly evidence: readonly string[];
}

export interface NormalisationLog {
  /** Evidence ids rewritten, e.g. "D:11:26 → D11:26". */
  readonly fixed: string[];
  /** Evidence ids dropped (malformed or not in the conversation), e.g. "conv-42#5: D". */
  readonly dropped: string[];
  /** Questions skipped because no evidence was left. */
  readonly skipped: string[];
}

export interface Conversation {
  readonly dialogue: Dialogue;
  readonly questions: readonly Question[];
  readonly log: NormalisationLog;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_NAMES = MONTHS.map((m) => m[0]!.toUpperCase() + m.slice(1));
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DATE_TIME = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})\s*$/i;

/** "1:56 pm on 8 May, 2023" → iso "2023-05-08", words "8 May 2023", weekday "Monday", time "1:56 pm". */
export function parseSessionDate(raw: string): SessionDate {
  const match = DATE_TIME.exec(raw);
  if (!match) return { raw };
  const [, hour, minute, meridiem, dayText, monthText, yearText] = match;
  const monthIndex = MONTHS.findIndex((m) => monthText!.length >= 3 && m.startsWith(monthText!.toLowerCase()));
  const day = Number(dayText);
  const year = Number(yearText);
  const date = new Date(Date.UTC(year, monthIndex, day));
  if (monthIndex < 0 || date.getUTCDate() !== day || Number(hour) > 12 || Number(minute) > 59) return { raw };
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    raw,
    iso: `${year}-${pad(monthIndex + 1)}-${pad(day)}`,
    words: `${day} ${MONTH_NAMES[monthIndex]} ${year}`,
    weekday: WEEKDAYS[date.getUTCDay()],
    time: `${Number(hour)}:${minute} ${meridiem!.toLowerCase()}m`,
  };
}

/** `D:11:26` → `D11:26`, `D30:05` → `D30:5`; undefined for anything that is not a turn id. */
export function normaliseDiaId(raw: string): string | undefined {
  const match = /^D:?0*(\d+):0*(\d+)$/i.exec(raw.trim());
  return match ? `D${Number(match[1])}:${Number(match[2])}` : undefined;
}

/** One evidence string may hold several ids ("D8:6; D9:17", "D9:1 D4:4"). */
export function splitEvidence(raw: string): string[] {
  return raw.split(/[;\s]+/).filter((part) => part !== '');
}

/**
 * Normalises a question's evidence against the conversation's turn ids: split, fix, keep ids that
 * exist, deduplicate (first occurrence wins).
 */
export function normaliseEvidence(
  raw: readonly unknown[],
  turnIds: ReadonlySet<string>,
): { evidence: string[]; fixed: string[]; dropped: string[] } {
  const evidence: string[] = [];
  const fixed: string[] = [];
  const dropped: string[] = [];
  for (const item of raw) {
    for (const part of splitEvidence(String(item))) {
      const id = normaliseDiaId(part);
      if (id === undefined || !turnIds.has(id)) {
        dropped.push(part);
        continue;
      }
      if (id !== part) fixed.push(`${part} → ${id}`);
      if (!evidence.includes(id)) evidence.push(id);
    }
  }
  return { evidence, fixed, dropped };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`LoCoMo: ${what} is not an object.`);
  return value as Record<string, unknown>;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`LoCoMo: ${what} is not a string.`);
  return value;
}

/** The turn's text as topics carry it: an image becomes `[shares: <caption>]` after the text. */
export function turnText(turn: { text?: unknown; blip_caption?: unknown }): string {
  const said = typeof turn.text === 'string' ? collapse(turn.text) : '';
  const caption = typeof turn.blip_caption === 'string' ? collapse(turn.blip_caption) : '';
  return [said, caption ? `[shares: ${caption}]` : ''].filter(Boolean).join(' ');
}

function isCategory(value: unknown): value is Category {
  return value === 1 || value === 2 || value === 3 || value === 4 || value === 5;
}

/** Normalises one LoCoMo sample (an element of locomo10.json). */
export function normaliseConversation(sample: unknown): Conversation {
  const root = record(sample, 'a sample');
  const sampleId = text(root.sample_id, 'sample_id');
  const conversation = record(root.conversation, `${sampleId}.conversation`);
  const speakers: [string, string] = [
    text(conversation.speaker_a, `${sampleId} speaker_a`),
    text(conversation.speaker_b, `${sampleId} speaker_b`),
  ];

  // Sessions are the `session_<N>` keys holding a list: one conversation has date keys without sessions.
  const sessionNumbers = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conversation[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const turnIds = new Set<string>();
  const sessions: Session[] = sessionNumbers.map((number) => {
    const rawDate = conversation[`session_${number}_date_time`];
    const turns = (conversation[`session_${number}`] as unknown[]).map((raw, i) => {
      const turn = record(raw, `${sampleId} session_${number}[${i}]`);
      const diaId = normaliseDiaId(text(turn.dia_id, `${sampleId} session_${number}[${i}].dia_id`));
      if (diaId === undefined) throw new Error(`LoCoMo: ${sampleId} session_${number}[${i}] has dia_id ${JSON.stringify(turn.dia_id)}.`);
      if (turnIds.has(diaId)) throw new Error(`LoCoMo: ${sampleId} has turn ${diaId} twice.`);
      turnIds.add(diaId);
      return { diaId, session: number, speaker: text(turn.speaker, `${sampleId} ${diaId}.speaker`), text: turnText(turn) };
    });
    return { number, date: parseSessionDate(typeof rawDate === 'string' ? rawDate : ''), turns };
  });

  const log: NormalisationLog = { fixed: [], dropped: [], skipped: [] };
  const questions: Question[] = [];
  const qa = Array.isArray(root.qa) ? root.qa : [];
  qa.forEach((raw, index) => {
    const item = record(raw, `${sampleId}.qa[${index}]`);
    const id = `${sampleId}#${index}`;
    if (!isCategory(item.category)) throw new Error(`LoCoMo: ${id} has category ${JSON.stringify(item.category)}.`);
    const normalised = normaliseEvidence(Array.isArray(item.evidence) ? item.evidence : [], turnIds);
    log.fixed.push(...normalised.fixed.map((f) => `${id}: ${f}`));
    log.dropped.push(...normalised.dropped.map((d) => `${id}: ${d}`));
    if (normalised.evidence.length === 0) {
      log.skipped.push(id);
      return;
    }
    const answer = item.answer ?? item.adversarial_answer;
    questions.push({
      id,
      question: text(item.question, `${id}.question`),
      answer: typeof answer === 'string' || typeof answer === 'number' ? String(answer) : undefined,
      category: item.category,
      evidence: normalised.evidence,
    });
  });
  return { dialogue: { sampleId, speakers, sessions }, questions, log };
}

export function normaliseLocomo(data: unknown): Conversation[] {
  if (!Array.isArray(data)) throw new Error('LoCoMo: expected a JSON list of conversations (locomo10.json).');
  return data.map(normaliseConversation);
}

export async function loadLocomo(file: string): Promise<Conversation[]> {
  return normaliseLocomo(JSON.parse(await readFile(file, 'utf8')));
}
