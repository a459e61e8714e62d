// The Search page: results as you type (debounced, stale answers dropped), matched terms in <mark>.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SearchHit } from '../api-types.js';
import { getJson, isAbort, toApiError, type ApiError } from './api.js';
import { FILTER_KEYS, routeHref, searchParams, topicHref, type SearchFilters } from './routes.js';
import { ErrorBox, Highlighted, Link, useApp } from './ui.js';

const DEBOUNCE_MS = 120;
const LIMIT = 20;

/** The bv-* elements a search can be narrowed to (`kind`): what topics are made of. */
const KINDS = ['rule', 'decision', 'fact', 'bug', 'fix', 'reason', 'pattern', 'examples', 'task', 'timestamp'];

const FILTER_LABELS: Record<(typeof FILTER_KEYS)[number], string> = {
  scope: 'Folder',
  kind: 'Holds a',
  since: 'Dated from',
  until: 'Dated until',
  at: 'As of',
};

/** The filter fields of `value` (a route carries its page and question too). */
function onlyFilters(value: SearchFilters): SearchFilters {
  const filters: SearchFilters = {};
  for (const key of FILTER_KEYS) if (value[key]) filters[key] = value[key];
  return filters;
}

export function SearchPage({ q, filters: given }: { q: string; filters: SearchFilters }) {
  const { navigate, revision } = useApp();
  const [text, setText] = useState(q);
  const [filters, setFilters] = useState<SearchFilters>(() => onlyFilters(given));
  const filterKey = FILTER_KEYS.map((key) => filters[key] ?? '').join('\u0000');
  const [results, setResults] = useState<SearchHit[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [selected, setSelected] = useState(0);
  const sequence = useRef(0);
  const input = useRef<HTMLInputElement>(null);

  // autofocus only works for the first element of a document that asks: focus on every visit of the page.
  useEffect(() => input.current?.focus(), []);

  // The address changed from outside (back/forward): follow it.
  useEffect(() => setText((current) => (current.trim() === q.trim() ? current : q)), [q]);

  useEffect(() => {
    const query = text.trim();
    const ticket = ++sequence.current;
    if (query === '') {
      setResults(null);
      setError(null);
      if (q !== '') navigate(routeHref({ page: 'search', q: '', ...filters }), { replace: true });
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      navigate(routeHref({ page: 'search', q: query, ...filters }), { replace: true });
      const params = searchParams(query, filters);
      params.set('limit', String(LIMIT));
      getJson(`/api/search?${params.toString()}`, controller.signal).then(
        (answer) => {
          if (ticket !== sequence.current) return; // a newer question was asked meanwhile
          setResults((answer.results ?? []).map((hit) => ({ ...hit, terms: Array.isArray(hit.terms) ? hit.terms : [] })));
          setError(null);
          setSelected(0);
        },
        (failure: unknown) => {
          if (isAbort(failure) || ticket !== sequence.current) return;
          setError(toApiError(failure));
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // q is read, not watched: the address follows the text, not the other way round.
  }, [text, filterKey, revision]);

  const open = (hit: SearchHit | undefined): void => {
    if (hit) navigate(topicHref(hit.path, 'rendered', hit.source));
  };

  return (
    <div class="search">
      <h1 class="visually-hidden">Search</h1>
      <label class="search-label" for="search-input">
        Search knowledge
      </label>
      <input
        id="search-input"
        class="search-input"
        data-testid="search-input"
        type="search"
        autoFocus
        ref={input}
        autoComplete="off"
        spellcheck={false}
        placeholder="Ask about the project…"
        value={text}
        aria-controls="search-results"
        aria-describedby="search-help"
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (!results || results.length === 0) return;
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            setSelected((i) => Math.min(i + 1, results.length - 1));
          } else if (event.key === 'ArrowUp') {
            event.preventDefault();
            setSelected((i) => Math.max(i - 1, 0));
          } else if (event.key === 'Enter') {
            event.preventDefault();
            open(results[selected]);
          }
        }}
      />
      <p id="search-help" class="muted hint">
        ↑ ↓ choose a result, Enter opens it.
      </p>
      <details class="search-filters" open={filterKey.replace(/\u0000/g, '') !== ''}>
        <summary data-testid="search-filters">Filters</summary>
        <div class="filter-row">
          {FILTER_KEYS.map((key) => (
            <label key={key} class="filter">
              <span>{FILTER_LABELS[key]}</span>
              <input
                data-testid={`search-filter-${key}`}
                type={key === 'since' || key === 'until' ? 'date' : 'text'}
                list={key === 'kind' ? 'search-kinds' : undefined}
                placeholder={
                  key === 'scope' ? 'e.g. security' : key === 'at' ? 'commit, tag or date' : key === 'kind' ? 'e.g. rule' : undefined
                }
                value={filters[key] ?? ''}
                onChange={(event) => {
                  const value = event.currentTarget.value.trim();
                  setFilters((current) => ({ ...current, [key]: value === '' ? undefined : value }));
                }}
              />
            </label>
          ))}
          <datalist id="search-kinds">
            {KINDS.map((kind) => (
              <option key={kind} value={kind} />
            ))}
          </datalist>
        </div>
      </details>
      <ErrorBox error={error} />
      {results !== null && results.length === 0 ? <p class="muted">No results for “{text.trim()}”.</p> : null}
      <ol id="search-results" class="results" aria-label="Results" aria-live="polite">
        {(results ?? []).map((hit, i) => (
          <li key={`${hit.source ?? ''}:${hit.path}`}>
            <Link
              href={topicHref(hit.path, 'rendered', hit.source)}
              class={i === selected ? 'result selected' : 'result'}
              data-testid="search-result"
              data-path={hit.path}
              aria-current={i === selected ? 'true' : undefined}
            >
              <span class="result-title">
                <Highlighted text={hit.title || hit.path} terms={hit.terms} />
              </span>
              <span class="result-path muted">
                {hit.path}
                {hit.source ? <span class="badge subtle"> from source {hit.source}</span> : null}
              </span>
              {hit.excerpt ? (
                <span class="result-excerpt">
                  <Highlighted text={hit.excerpt} terms={hit.terms} />
                </span>
              ) : null}
            </Link>
          </li>
        ))}
      </ol>
    </div>
  );
}
