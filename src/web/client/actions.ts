// The view models of the dashboard's actions: the New topic form, Ask, Dream, branch actions and model providers,
// each read defensively from its answer (json.ts), and an answer's text cut into text and citation links.
// Pure: no DOM, tested in test/web/client-actions.test.ts.
import type {
  ApiFailure,
  AskResponse,
  CheckoutResponse,
  CreateTopicResponse,
  CurateCheckResponse,
  CurateFormResponse,
  CurateFormValues,
  DreamResponse,
  MergeResponse,
  ModelsResponse,
  ProviderEntry,
  ProvidersResponse,
  RemoveTopicResponse,
  ValidationProblem,
} from '../api-types.js';
import { list, str, wire } from './json.js';

const num = (value: unknown, fallback = 0): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const strings = (value: unknown): string[] => list(value).filter((v): v is string => typeof v === 'string');

export interface FormView {
  fields: Array<{ name: string; label: string; hint: string }>;
  kinds: string[];
}

export function readForm(body: unknown): FormView {
  const answer = wire<CurateFormResponse>(body);
  return {
    fields: list(answer.fields).map((f) => {
      const field = wire<CurateFormResponse['fields'][number]>(f);
      return { name: str(field.name), label: str(field.label, field.name), hint: str(field.hint) };
    }),
    kinds: list(answer.kinds).map((k) => str(wire<CurateFormResponse['kinds'][number]>(k).label)),
  };
}

const EMPTY_VALUES: CurateFormValues = { path: '', title: '', summary: '', kind: 0, text: '', reason: '' };

/** The form's first values: a folder chosen in the tree starts the path. */
export function startValues(folder: string): CurateFormValues {
  return { ...EMPTY_VALUES, path: folder && !folder.endsWith('/') ? `${folder}/` : folder };
}

export interface CheckView {
  /** What the form still lacks, or ''. */
  gap: string;
  path: string;
  warnings: string[];
  errors: string[];
}

function problemText(value: unknown): string {
  const problem = wire<ValidationProblem>(value);
  const line = typeof problem.line === 'number' ? ` (line ${problem.line})` : '';
  return `${str(problem.kind)}: ${str(problem.message)}${line}`;
}

export function readCheck(body: unknown): CheckView {
  const answer = wire<CurateCheckResponse>(body);
  return {
    gap: str(answer.gap),
    path: str(answer.path),
    warnings: strings(answer.warnings),
    errors: list(answer.errors).map(problemText),
  };
}

/** The validator's problems a refused write carries (`error.errors` of a 422). */
export function refusalProblems(detail: unknown): string[] {
  return list(wire<{ errors: unknown }>(detail).errors).map(problemText);
}

export function summarizeCreated(body: unknown): { path: string; text: string } {
  const answer = wire<CreateTopicResponse>(body);
  const path = str(answer.path);
  const review = wire<{ id: string; gated: boolean }>(answer.review);
  const id = str(review.id);
  if (answer.status === 'unchanged') return { path, text: `${path} already says exactly this: nothing to write.` };
  if (id && review.gated === true) return { path, text: `${path} is held for review ${id}: approve it under Reviews.` };
  return { path, text: `Created ${path}${id ? ` (review ${id} opened)` : ''}.` };
}

export function summarizeRemoved(body: unknown): string {
  const removed = strings(wire<RemoveTopicResponse>(body).removed);
  return removed.length === 1 ? `Deleted ${removed[0]}.` : `Deleted ${removed.length} topics.`;
}

/** A piece of an answer: text, or a citation of a topic shown to the model. */
export type AnswerPiece = { type: 'text'; text: string } | { type: 'cite'; path: string; source: string };

/**
 * The answer's text with its citations (`[security/auth]`, `[a, b]`, `[alias:path]`) as links: only paths the
 * server lists in `citations` become links, anything else in brackets stays text.
 */
export function answerPieces(text: string, citations: readonly string[]): AnswerPiece[] {
  const cited = new Set(citations);
  const pieces: AnswerPiece[] = [];
  const push = (value: string) => {
    if (value === '') return;
    const last = pieces[pieces.length - 1];
    if (last?.type === 'text') last.text += value;
    else pieces.push({ type: 'text', text: value });
  };
  let at = 0;
  for (const match of text.matchAll(/\[([^\]\n]{1,300})\]/g)) {
    const names = match[1]!.split(/\s*[,;]\s*|\s+and\s+/).map((n) => n.trim().replace(/\.html$/, ''));
    if (names.length === 0 || !names.every((n) => cited.has(n))) continue;
    push(text.slice(at, match.index));
    push('[');
    names.forEach((name, i) => {
      if (i > 0) push(', ');
      const colon = name.indexOf(':');
      pieces.push(
        colon > 0 ? { type: 'cite', path: name.slice(colon + 1), source: name.slice(0, colon) } : { type: 'cite', path: name, source: '' },
      );
    });
    push(']');
    at = match.index + match[0].length;
  }
  push(text.slice(at));
  return pieces;
}

export interface AskView {
  question: string;
  answer: string | null;
  citations: string[];
  notInKnowledge: boolean;
  topics: Array<{ path: string; title: string; score: number; excerpt: string; source: string }>;
  model: string;
  note: ApiFailure | null;
}

export function readAsk(body: unknown): AskView {
  const answer = wire<AskResponse>(body);
  const model = wire<NonNullable<AskResponse['model']>>(answer.model);
  const note = wire<ApiFailure>(answer.note);
  return {
    question: str(answer.question),
    answer: typeof answer.answer === 'string' && answer.answer !== '' ? answer.answer : null,
    citations: strings(answer.citations),
    notInKnowledge: answer.notInKnowledge === true,
    topics: list(answer.topics).map((t) => {
      const topic = wire<AskResponse['topics'][number]>(t);
      return {
        path: str(topic.path),
        title: str(topic.title, topic.path),
        score: num(topic.score),
        excerpt: str(topic.excerpt),
        source: str(topic.source),
      };
    }),
    model: model.provider ? `${str(model.provider)} · ${str(model.model)}` : '',
    note: note.kind || note.message ? { kind: str(note.kind), message: str(note.message) } : null,
  };
}

export interface DreamView {
  text: string;
  reviewId: string;
  proposals: number;
  dryRun: boolean;
}

export function readDream(body: unknown): DreamView {
  const answer = wire<DreamResponse>(body);
  return {
    text: str(answer.text),
    reviewId: str(wire<{ id: string }>(answer.review).id),
    proposals: list(answer.proposals).length,
    dryRun: answer.dryRun === true,
  };
}

export function summarizeCheckout(body: unknown): string {
  const answer = wire<CheckoutResponse>(body);
  return `${answer.created === true ? 'Created and switched to' : 'Switched to'} ${str(answer.branch)}${answer.previous ? ` (was ${str(answer.previous)})` : ''}.`;
}

export function summarizeMerge(source: string, body: unknown): string {
  const answer = wire<MergeResponse>(body);
  const conflicts = strings(answer.conflicts);
  const review = str(wire<{ id: string }>(answer.review).id);
  switch (answer.status) {
    case 'up-to-date':
      return `Already up to date with ${source}.`;
    case 'fast-forward':
      return `Fast-forwarded to ${source}.`;
    case 'held':
      return `${source}'s changes are held for review${review ? ` ${review}` : ''}: decide under Reviews.`;
    default:
      return conflicts.length > 0
        ? `Merged ${source}; ${conflicts.length} topic${conflicts.length === 1 ? '' : 's'} kept both versions for review${review ? ` ${review}` : ''}: ${conflicts.join(', ')}.`
        : `Merged ${source}.`;
  }
}

export interface ProviderRow {
  id: string;
  name: string;
  connected: boolean;
  active: boolean;
  model: string;
  baseUrl: string;
  /** Where the key comes from (never the key). */
  key: string;
  keyOptional: boolean;
}

function providerRow(value: unknown): ProviderRow {
  const entry = wire<ProviderEntry>(value);
  const key = wire<ProviderEntry['key']>(entry.key);
  return {
    id: str(entry.id),
    name: str(entry.name, entry.id),
    connected: entry.connected === true,
    active: entry.active === true,
    model: str(entry.model),
    baseUrl: str(entry.baseUrl),
    key: str(key.source, key.from),
    keyOptional: entry.keyOptional === true,
  };
}

export interface ProvidersView {
  providers: ProviderRow[];
  /** `provider · model`, and whether the environment chooses it; '' when none is in use. */
  active: string;
  fromEnv: boolean;
}

export function readProviders(body: unknown): ProvidersView {
  const answer = wire<ProvidersResponse>(body);
  const active = wire<NonNullable<ProvidersResponse['active']>>(answer.active);
  return {
    providers: list(answer.providers).map(providerRow),
    active: active.provider ? `${str(active.provider)} · ${str(active.model)}` : '',
    fromEnv: active.from === 'env',
  };
}

export function readModels(body: unknown): { provider: string; current: string; models: string[] } {
  const answer = wire<ModelsResponse>(body);
  return {
    provider: str(answer.provider),
    current: str(answer.current),
    models: list(answer.models).map((m) => str(wire<ModelsResponse['models'][number]>(m).id)),
  };
}
