import type {
  ApiFailure,
  EditBody,
  EditConflictDetail,
  EditInvalidDetail,
  ValidationProblem,
  EditResponse,
  EditSaveResponse,
} from '../api-types.js';
import { str, wire } from './json.js';
// Editing a topic in the browser: open (GET /api/edit) → edit → save (PUT /api/edit with the version opened,
// compare-and-swap on the server). A refused save keeps the person's text: validation errors are listed, and a
// concurrent change (409) is shown beside it; reloading the current version keeps their text in a second pane.
// Nothing here ever saves over a version the person has not seen. Pure: no DOM, tested in
// test/web/client-edit.test.ts.

export interface EditProblem {
  kind: string;
  message: string;
  /** `line:column` (or `line`) when the validator knows where; '' otherwise. */
  where: string;
  /** The same as numbers (1-based), to put the caret there. */
  line?: number;
  column?: number;
  /** The element or attribute the problem is about, when the validator names it. */
  subject: string;
}

/** The topic as it is now, sent with a refused save. */
export type CurrentVersion = NonNullable<EditConflictDetail['current']>;

export type EditState =
  | { phase: 'closed'; saved: { commit: string; unchanged: boolean } | null }
  | { phase: 'opening'; path: string }
  | { phase: 'failed'; path: string; failure: ApiFailure }
  | {
      phase: 'editing';
      path: string;
      /** The version the save must still find (from the open, or the conflict's current version once reloaded). */
      version: string;
      /** The text as opened (or reloaded): unchanged text needs no save. */
      opened: string;
      text: string;
      /** The person's own text, kept when they reloaded the current version after a conflict. */
      mine: string | null;
      saving: boolean;
      problems: EditProblem[];
      /** The topic changed since `version`: what it is now (null when the server did not send it). */
      conflict: CurrentVersion | null | undefined;
      failure: ApiFailure | null;
    };

export type EditEvent =
  | { type: 'open'; path: string }
  | { type: 'opened'; path: string; html: string; version: string }
  | { type: 'open-failed'; path: string; failure: ApiFailure }
  | { type: 'input'; text: string }
  | { type: 'save' }
  | { type: 'saved'; commit: string; unchanged: boolean }
  | { type: 'invalid'; problems: EditProblem[]; failure: ApiFailure }
  | { type: 'conflict'; current: CurrentVersion | null; message: string }
  | { type: 'save-failed'; failure: ApiFailure }
  | { type: 'reload' }
  /** After a reload: the person's kept text back into the editor (to save over the version they have now seen). */
  | { type: 'use-mine' }
  | { type: 'cancel' };

export const CLOSED: EditState = { phase: 'closed', saved: null };

export function editReducer(state: EditState, event: EditEvent): EditState {
  switch (event.type) {
    case 'open':
      return state.phase === 'editing' ? state : { phase: 'opening', path: event.path };
    case 'opened':
      if (state.phase !== 'opening' || state.path !== event.path) return state; // cancelled, or another topic
      return {
        phase: 'editing',
        path: event.path,
        version: event.version,
        opened: event.html,
        text: event.html,
        mine: null,
        saving: false,
        problems: [],
        conflict: undefined,
        failure: null,
      };
    case 'open-failed':
      return state.phase === 'opening' && state.path === event.path ? { phase: 'failed', path: event.path, failure: event.failure } : state;
    case 'cancel':
      return CLOSED;
  }
  if (state.phase !== 'editing') return state;
  switch (event.type) {
    case 'input':
      return { ...state, text: event.text };
    case 'save':
      // Never while a save runs, nor while a concurrent change is on screen and not yet taken in.
      return state.saving || state.conflict !== undefined ? state : { ...state, saving: true, failure: null };
    case 'saved':
      return state.saving ? { phase: 'closed', saved: { commit: event.commit, unchanged: event.unchanged } } : state;
    case 'invalid':
      return state.saving ? { ...state, saving: false, problems: event.problems, failure: event.failure } : state;
    case 'conflict':
      // The errors of an earlier attempt belong to text the person has since changed.
      // Without the current version (the topic was removed), the server's message says what happened.
      return state.saving
        ? {
            ...state,
            saving: false,
            conflict: event.current,
            problems: [],
            failure: event.current ? null : { kind: 'edit-conflict', message: event.message },
          }
        : state;
    case 'save-failed':
      return state.saving ? { ...state, saving: false, problems: [], failure: event.failure } : state;
    case 'use-mine':
      return state.mine === null || state.conflict !== undefined ? state : { ...state, text: state.mine };
    case 'reload': {
      const current = state.conflict;
      if (!current) return state;
      // The person's text goes to the second pane, unless they have not touched the editor since the last reload
      // (then the pane already holds their text, and the editor only the version they reloaded).
      const mine = state.text === state.opened && state.mine !== null ? state.mine : state.text;
      return {
        ...state,
        version: current.version,
        opened: current.html,
        text: current.html,
        mine,
        problems: [],
        conflict: undefined,
        failure: null,
      };
    }
  }
}

/** The body of PUT /api/edit for the editor's state. */
export function saveBody(state: EditState & { phase: 'editing' }): EditBody {
  return { path: state.path, html: state.text, version: state.version };
}

const position = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);

/** `12:5`, `12`, or ''. */
export function formatWhere(line: unknown, column: unknown): string {
  const l = position(line);
  if (l === null) return '';
  const c = position(column);
  return c === null ? String(l) : `${l}:${c}`;
}

/** The offset in `text` of a 1-based line and column (clamped to the text: the text may have changed since). */
export function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  const end = text.indexOf('\n', offset);
  return Math.min(offset + Math.max(column, 1) - 1, end < 0 ? text.length : end);
}

/** GET /api/edit: the topic opened for editing. */
export function readOpened(raw: unknown): Pick<EditResponse, 'html' | 'version'> | null {
  const body = wire<EditResponse>(raw);
  return typeof body.html === 'string' && typeof body.version === 'string' && body.version !== ''
    ? { html: body.html, version: body.version }
    : null;
}

/** The event of a successful PUT /api/edit answer (`saved` with its commit, or `unchanged`). */
export function savedEvent(raw: unknown): EditEvent {
  // `ok: false` with `errors`, and `unchanged`: an older shape, still read.
  const body = wire<EditSaveResponse, 'ok' | 'errors' | 'unchanged'>(raw);
  if (body.ok === false && Array.isArray(body.errors)) {
    return { type: 'invalid', problems: readProblems(body.errors), failure: { kind: 'invalid-topic', message: 'The topic is not valid.' } };
  }
  return { type: 'saved', commit: str(body.commit), unchanged: body.status === 'unchanged' || body.unchanged === true };
}

/**
 * The event of a refused PUT /api/edit: 409 `edit-conflict` (with the current version), 422 with the validator's
 * errors, anything else a failure shown as it is. `detail` is the body's `error` object.
 */
export function refusedEvent(status: number, kind: string, message: string, detail: unknown): EditEvent {
  const error = wire<EditConflictDetail & EditInvalidDetail>(detail);
  if (status === 409 || kind === 'edit-conflict') {
    const current = wire<CurrentVersion>(error.current);
    return {
      type: 'conflict',
      current:
        typeof current.html === 'string' && typeof current.version === 'string' ? { html: current.html, version: current.version } : null,
      message,
    };
  }
  if (status === 422 || Array.isArray(error.errors)) {
    const problems = readProblems(error.errors);
    return {
      type: 'invalid',
      problems: problems.length > 0 ? problems : [{ kind, message, where: '', subject: '' }],
      failure: { kind, message },
    };
  }
  return { type: 'save-failed', failure: { kind, message } };
}

function readProblems(raw: unknown): EditProblem[] {
  return (Array.isArray(raw) ? raw : []).map((value) => {
    const problem = wire<ValidationProblem>(value);
    const subject = [str(problem.tag) && `<${str(problem.tag)}>`, str(problem.attribute)].filter(Boolean).join(' ');
    return {
      kind: str(problem.kind) || 'invalid-topic',
      message: str(problem.message),
      where: formatWhere(problem.line, problem.column),
      subject,
      ...(position(problem.line) !== null ? { line: position(problem.line)!, column: position(problem.column) ?? 1 } : {}),
    };
  });
}
