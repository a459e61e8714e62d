// The Ask page: `brv query --answer` (POST /api/ask). The model's answer with its citations linking to the topics;
// without a model, or when it fails, the topics retrieval found with a note that names the fix.
import { useEffect, useState } from 'preact/hooks';
import { postJson, toApiError, type ApiError } from './api.js';
import { answerPieces, readAsk, type AskView } from './actions.js';
import { routeHref, topicHref } from './routes.js';
import { ErrorBox, Link, useApp } from './ui.js';

export function AskPage({ q }: { q: string }) {
  const { navigate } = useApp();
  const [question, setQuestion] = useState(q);
  const [asking, setAsking] = useState(false);
  const [answer, setAnswer] = useState<AskView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  // The question in the address is asked (a shared link, back and forward), once per question.
  useEffect(() => {
    setQuestion(q);
    if (q.trim() === '') return void setAnswer(null);
    let current = true;
    setAsking(true);
    setError(null);
    postJson('/api/ask', { question: q })
      .then(
        (body) => current && setAnswer(readAsk(body)),
        (failure: unknown) => current && (setAnswer(null), setError(toApiError(failure))),
      )
      .finally(() => current && setAsking(false));
    return () => {
      current = false;
    };
  }, [q]);

  return (
    <div class="ask">
      <h1>Ask</h1>
      <form
        class="ask-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(routeHref({ page: 'ask', q: question.trim() }));
        }}
      >
        <input
          type="search"
          data-testid="ask-input"
          aria-label="Question"
          placeholder="Ask the knowledge a question…"
          value={question}
          onInput={(event) => setQuestion(event.currentTarget.value)}
        />
        <button type="submit" class="primary" data-testid="ask-submit" disabled={asking || question.trim() === ''} aria-busy={asking}>
          {asking ? 'Asking…' : 'Ask'}
        </button>
      </form>
      <ErrorBox error={error} />
      <div role="status" aria-live="polite">
        {asking ? <p class="muted">Retrieving and asking the model…</p> : null}
      </div>
      {answer !== null && !asking ? <Answer view={answer} /> : null}
    </div>
  );
}

function Answer({ view }: { view: AskView }) {
  return (
    <>
      {view.note !== null ? (
        <div class="note card" role="note" data-testid="ask-note" data-kind={view.note.kind}>
          <strong>No answer ({view.note.kind}).</strong> {view.note.message}{' '}
          {view.note.kind === 'no-provider' || view.note.kind.startsWith('llm-') || view.note.kind === 'missing-api-key' ? (
            <Link href={routeHref({ page: 'setup' })}>Open Setup</Link>
          ) : null}
        </div>
      ) : (
        <section class="card answer" data-testid="ask-answer" aria-label="Answer">
          {view.answer === null ? (
            <p class="muted">
              {view.notInKnowledge ? 'Not in the knowledge: nothing recorded answers this.' : 'The model gave no answer.'}
            </p>
          ) : (
            <p class="answer-text">
              {answerPieces(view.answer, view.citations).map((piece, i) =>
                piece.type === 'text' ? (
                  piece.text
                ) : (
                  <Link key={i} href={topicHref(piece.path, 'rendered', piece.source || null)} data-testid="ask-citation" class="citation">
                    {piece.source ? `${piece.source}:${piece.path}` : piece.path}
                  </Link>
                ),
              )}
            </p>
          )}
          {view.model ? <p class="muted small-print">Answered by {view.model}.</p> : null}
        </section>
      )}
      <section aria-labelledby="ask-topics-heading">
        <h2 id="ask-topics-heading">{view.note !== null ? 'Topics found' : 'Topics retrieved'}</h2>
        {view.topics.length === 0 ? <p class="muted">No topic matches the question.</p> : null}
        <ol class="results">
          {view.topics.map((topic) => (
            <li key={`${topic.source}:${topic.path}`} class="result" data-testid="ask-topic" data-path={topic.path}>
              <Link href={topicHref(topic.path, 'rendered', topic.source || null)}>
                <strong>{topic.title}</strong>
              </Link>{' '}
              <code class="muted">{topic.source ? `${topic.source}:${topic.path}` : topic.path}</code>
              {view.citations.includes(topic.source ? `${topic.source}:${topic.path}` : topic.path) ? (
                <span class="badge">cited</span>
              ) : null}
              {topic.excerpt ? <p class="excerpt">{topic.excerpt}</p> : null}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
