// Editing a topic: the stored HTML in a textarea, saved by compare-and-swap on the version opened (PUT /api/edit).
// Validation errors are listed inline; a concurrent change is shown and never overwritten (see edit.ts).
import { useCallback, useReducer, useRef } from 'preact/hooks';
import { getJson, putJson, toApiError } from './api.js';
import { CLOSED, editReducer, offsetOf, readOpened, refusedEvent, saveBody, savedEvent, type EditEvent, type EditState } from './edit.js';
import { ErrorBox, shortOid, useApp } from './ui.js';

export interface TopicEditor {
  state: EditState;
  open(): void;
  save(): void;
  dispatch(event: EditEvent): void;
}

export function useTopicEditor(path: string, onSaved: () => void): TopicEditor {
  const { refresh } = useApp();
  const [state, dispatch] = useReducer(editReducer, CLOSED);
  // The handlers read the latest state without being rebuilt on every keystroke.
  const current = useRef(state);
  current.current = state;

  const open = useCallback(() => {
    dispatch({ type: 'open', path });
    getJson(`/api/edit?path=${encodeURIComponent(path)}`).then(
      (body) => {
        const opened = readOpened(body);
        dispatch(
          opened
            ? { type: 'opened', path, ...opened }
            : { type: 'open-failed', path, failure: { kind: 'internal-error', message: 'The server sent no topic to edit.' } },
        );
      },
      (error: unknown) => dispatch({ type: 'open-failed', path, failure: toApiError(error) }),
    );
  }, [path]);

  const save = useCallback(() => {
    const state = current.current;
    if (state.phase !== 'editing' || state.saving || state.conflict !== undefined) return;
    dispatch({ type: 'save' });
    putJson('/api/edit', saveBody(state)).then(
      (body) => {
        const event = savedEvent(body);
        dispatch(event);
        if (event.type === 'saved') {
          onSaved();
          refresh(); // the topic view shows the new version (its ref event refreshes the rest)
        }
      },
      (error: unknown) => {
        const failure = toApiError(error);
        dispatch(refusedEvent(failure.status, failure.kind, failure.message, failure.detail));
      },
    );
  }, [refresh, onSaved]);

  return { state, open, save, dispatch };
}

export function EditorPanel({ editor }: { editor: TopicEditor }) {
  const { state, save, dispatch } = editor;
  const textarea = useRef<HTMLTextAreaElement>(null);
  const cancel = (): void => dispatch({ type: 'cancel' });
  if (state.phase === 'closed') return null;
  if (state.phase === 'opening') return <p class="muted">Opening for editing…</p>;
  if (state.phase === 'failed') {
    return (
      <div class="editor">
        <ErrorBox error={state.failure} />
        <button type="button" data-testid="edit-cancel" onClick={cancel}>
          Close
        </button>
      </div>
    );
  }
  const { conflict, problems, failure, mine } = state;
  const dirty = state.text !== state.opened;
  /** Puts the caret where the validator found the problem. */
  const goTo = (line: number, column: number): void => {
    const area = textarea.current;
    if (!area) return;
    const at = offsetOf(area.value, line, column);
    area.focus();
    area.setSelectionRange(at, at);
    // Scroll the line into view: the caret alone does not move a textarea's scroll position everywhere.
    const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, (line - 3) * lineHeight);
  };
  return (
    <section class="editor" aria-label={`Edit ${state.path}`}>
      {conflict !== undefined ? (
        <div class="conflict" data-testid="edit-conflict" role="alert">
          <p>
            <strong>Changed since you opened it.</strong> This topic was saved by someone else after you opened it: nothing was overwritten
            and your text is still in the editor.
          </p>
          {conflict ? (
            <>
              <p class="muted">
                The current version <code>{shortOid(conflict.version)}</code>:
              </p>
              <pre class="raw conflict-current" data-testid="edit-current">
                {conflict.html}
              </pre>
              <button type="button" data-testid="edit-reload" onClick={() => dispatch({ type: 'reload' })}>
                Load the current version (your text stays beside it)
              </button>
            </>
          ) : (
            <p>{failure?.message || 'The current version could not be read.'} Copy your text, then close and edit again.</p>
          )}
        </div>
      ) : null}
      {problems.length > 0 ? (
        <div class="edit-errors" data-testid="edit-errors" role="alert">
          <p>
            <strong class="error-kind">{failure?.kind ?? 'invalid-topic'}</strong>{' '}
            {failure?.message ?? 'Not saved: the topic is not valid.'}
          </p>
          <ul>
            {problems.map((problem, i) => (
              <li key={i} class="edit-error">
                {problem.line !== undefined ? (
                  <button
                    type="button"
                    class="where link-button"
                    data-testid="edit-error-where"
                    title={`Go to line ${problem.line}, column ${problem.column ?? 1}`}
                    onClick={() => goTo(problem.line!, problem.column ?? 1)}
                  >
                    <code>{problem.where}</code>
                  </button>
                ) : problem.where ? (
                  <code class="where">{problem.where}</code>
                ) : null}
                <code class="error-kind">{problem.kind}</code>
                {problem.subject ? <code class="muted">{problem.subject}</code> : null}
                <span>{problem.message}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <ErrorBox error={conflict === null ? null : failure} />
      )}
      <div class={mine !== null ? 'editor-panes two' : 'editor-panes'}>
        <label class="editor-pane">
          <span class="pane-label">
            Topic HTML <span class="muted">(version {shortOid(state.version)})</span>
          </span>
          <textarea
            ref={textarea}
            class="edit-text"
            data-testid="edit-text"
            spellcheck={false}
            value={state.text}
            onInput={(event) => dispatch({ type: 'input', text: event.currentTarget.value })}
            onKeyDown={(event) => {
              if ((event.ctrlKey || event.metaKey) && event.key === 's') {
                event.preventDefault();
                save();
              }
            }}
          />
        </label>
        {mine !== null ? (
          <label class="editor-pane">
            <span class="pane-label">
              Your text (not saved: copy what you need){' '}
              <button type="button" class="small" data-testid="edit-use-mine" onClick={() => dispatch({ type: 'use-mine' })}>
                Put it in the editor
              </button>
            </span>
            <textarea class="edit-text" data-testid="edit-mine" readOnly spellcheck={false} value={mine} />
          </label>
        ) : null}
      </div>
      <div class="editor-actions">
        <button
          type="button"
          class="primary"
          data-testid="edit-save"
          disabled={state.saving || conflict !== undefined}
          aria-busy={state.saving}
          onClick={save}
        >
          {state.saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" data-testid="edit-cancel" onClick={cancel}>
          Cancel
        </button>
        <span class="muted">{dirty ? 'Unsaved changes · Ctrl+S saves' : 'No changes yet'}</span>
      </div>
    </section>
  );
}
