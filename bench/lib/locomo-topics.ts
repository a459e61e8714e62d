/**
 * Deterministic `<bv-topic>` generation from a LoCoMo conversation alone (a `Dialogue`: the type has
 * no questions, answers, observations or summaries in it). Every topic validates with brv's
 * `validateTopicHtml`; text and attributes are HTML-escaped.
 *
 * Structure, and why (what is measured is brv's retrieval over exactly these documents):
 *
 * - `session` (main variant): one topic per session, path `locomo/<sample_id>/session_<NN>`.
 *   - title "Caroline and Melanie, session 1: 8 May 2023" — both speakers and the date in words in the
 *     most heavily weighted field. About one question in seven names a date ("…in July 2023?",
 *     "…on 1 February, 2023?"); LoCoMo questions are written against the session dates.
 *   - summary: speakers, time of day, weekday, the date in words AND ISO, turn count and id range.
 *   - tags: the two speakers. `<bv-timestamp>`: the session date, ISO (machine-readable).
 *   - one `<bv-fact subject="D1:3">Caroline: …</bv-fact>` per turn: the dia_id rides in `subject`
 *     (shown in the render, kept out of the searchable text), the text starts with the speaker's name
 *     because turns say "I"/"you" while questions say "Caroline". No `category`/`value`: the speaker is
 *     already in the text, and every attribute costs words in the rendered text the budgeted metrics
 *     count. The session date is NOT repeated per turn: inside one session it adds no information,
 *     only length (which BM25-style ranking penalises) and rendered words.
 *   - images: the caption as text, `[shares: <blip_caption>]`, appended to the turn.
 * - `turn`: one topic per turn, path `locomo/<sample_id>/d<S>_<T>`.
 *   - title "Caroline, 8 May 2023 (session 1)": the speaker and the session date on EVERY turn, since a
 *     lone turn has no other way to match "What did Caroline do in May 2023?".
 *   - tags: the speaker; `<bv-timestamp>`: the ISO date; the turn as one `<bv-fact>` as above.
 *     No summary: it would repeat the title and double the overhead of a ~20-word unit.
 *   - optional context (`turnContext: 'previous'`): the previous turn of the same session, as
 *     `<bv-reason>In reply to Melanie: …</bv-reason>`. Why: many answers are short replies ("Yes, last
 *     week!", "Psychology!") whose meaning — and the question's words — sit in the turn they answer.
 *     Off by default so that the turn variant stays comparable to the per-turn baseline; bench/locomo.ts
 *     `--turn-context previous` measures it. A topic is still scored only for its own dia_id.
 */
import type { Dialogue, Session, Turn } from './locomo-data.js';

export type Variant = 'session' | 'turn';
export const VARIANTS: readonly Variant[] = ['session', 'turn'];

export type TurnContext = 'none' | 'previous';

export interface TopicOptions {
  readonly turnContext?: TurnContext;
}

/** One generated topic and what it holds, for scoring. */
export interface GeneratedTopic {
  /** Topic path, e.g. "locomo/conv-26/session_01" (the file is `<path>.html`). */
  readonly path: string;
  readonly html: string;
  readonly session: number;
  /** The dia_ids this topic is credited with (a turn topic: its own turn only, whatever its context). */
  readonly turns: readonly string[];
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
}

/** A path segment brv accepts: letters, digits, "_", "-", "." (lowercased; anything else becomes "-"). */
export function pathSegment(value: string): string {
  const segment = value
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}_.-]+/gu, '-')
    .replace(/^[.-]+/, '');
  return segment === '' ? '_' : segment.slice(0, 64);
}

/** Tag values are comma-separated: a comma inside a name would split it. */
function tagList(values: readonly string[]): string {
  return values
    .map((v) => v.replace(/,/g, ' ').trim())
    .filter(Boolean)
    .join(',');
}

function topic(attributes: Record<string, string | undefined>, children: string[]): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
  return `<bv-topic${attrs}>\n${children.map((c) => `  ${c}\n`).join('')}</bv-topic>\n`;
}

function turnFact(turn: Turn): string {
  return `<bv-fact subject="${escapeAttribute(turn.diaId)}">${escapeText(`${turn.speaker}: ${turn.text}`)}</bv-fact>`;
}

function timestamp(session: Session): string[] {
  return session.date.iso ? [`<bv-timestamp>${session.date.iso}</bv-timestamp>`] : [];
}

function dateWords(session: Session): string {
  return session.date.words ?? session.date.raw;
}

export function sessionTopicPath(dialogue: Dialogue, session: number): string {
  return `locomo/${pathSegment(dialogue.sampleId)}/session_${String(session).padStart(2, '0')}`;
}

export function turnTopicPath(dialogue: Dialogue, diaId: string): string {
  const [s, t] = diaId.slice(1).split(':');
  return `locomo/${pathSegment(dialogue.sampleId)}/d${s}_${t}`;
}

function sessionTopic(dialogue: Dialogue, session: Session): GeneratedTopic {
  const [a, b] = dialogue.speakers;
  const path = sessionTopicPath(dialogue, session.number);
  const { date } = session;
  const first = session.turns[0]?.diaId;
  const last = session.turns[session.turns.length - 1]?.diaId;
  const when = date.iso ? `at ${date.time} on ${date.weekday}, ${date.words} (${date.iso})` : date.raw ? `on ${date.raw}` : '(undated)';
  const range = first && last ? `, ${first} to ${last}` : '';
  const html = topic(
    {
      path,
      title: `${a} and ${b}, session ${session.number}: ${dateWords(session) || 'undated'}`,
      summary: `Conversation between ${a} and ${b} ${when}; ${session.turns.length} turns${range}.`,
      tags: tagList([a, b]),
    },
    [...timestamp(session), ...session.turns.map(turnFact)],
  );
  return { path, html, session: session.number, turns: session.turns.map((t) => t.diaId) };
}

function turnTopic(dialogue: Dialogue, session: Session, index: number, options: TopicOptions = {}): GeneratedTopic {
  const turn = session.turns[index]!;
  const path = turnTopicPath(dialogue, turn.diaId);
  const previous = options.turnContext === 'previous' ? session.turns[index - 1] : undefined;
  const context = previous ? [`<bv-reason>${escapeText(`In reply to ${previous.speaker}: ${previous.text}`)}</bv-reason>`] : [];
  const html = topic(
    { path, title: `${turn.speaker}, ${dateWords(session) || 'undated'} (session ${session.number})`, tags: tagList([turn.speaker]) },
    [...context, ...timestamp(session), turnFact(turn)],
  );
  return { path, html, session: session.number, turns: [turn.diaId] };
}

export function generateTopics(dialogue: Dialogue, variant: Variant, options: TopicOptions = {}): GeneratedTopic[] {
  if (variant === 'session') return dialogue.sessions.filter((s) => s.turns.length > 0).map((s) => sessionTopic(dialogue, s));
  return dialogue.sessions.flatMap((s) => s.turns.map((_, i) => turnTopic(dialogue, s, i, options)));
}

/**
 * The session topics of `dialogue` in a haystack of `size` topics: padded with the sessions of the
 * `others` (in turn, one from each, in order), which are credited with no evidence. This is the shape of
 * held-out chat-memory benchmarks (about 50 sessions per question, most of them about something else):
 * with 50 or more topics, the features that only apply to larger trees (feedback) apply, as they never
 * do on LoCoMo's own 19–32 sessions per conversation.
 */
export function haystackTopics(dialogue: Dialogue, others: readonly Dialogue[], size: number): GeneratedTopic[] {
  const own = generateTopics(dialogue, 'session');
  const pools = others.filter((o) => o.sampleId !== dialogue.sampleId).map((o) => generateTopics(o, 'session'));
  const padding: GeneratedTopic[] = [];
  for (let round = 0; own.length + padding.length < size && pools.some((p) => round < p.length); round++) {
    for (const pool of pools) {
      const topic = pool[round];
      if (topic && own.length + padding.length < size) padding.push({ ...topic, turns: [] });
    }
  }
  return [...own, ...padding];
}
