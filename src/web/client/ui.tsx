// Shared pieces of the pages: the app context, links that use the History API, API loading, inline errors.
import { createContext, type ComponentChildren, type PartialAnchorHTMLAttributes } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { getJson, isAbort, toApiError, type AnswerOf, type ApiError, type ApiGetPath } from './api.js';
import { diffLines } from './diff.js';
import { relativeTime } from './entries.js';
import { highlight } from './highlight.js';

export interface AppState {
  navigate(href: string, options?: { replace?: boolean }): void;
  /** Bumped whenever a live event (or a decision made here) changes the repository: pages reload. */
  revision: number;
  /** Reload everything on screen now. */
  refresh(): void;
}

export const App = createContext<AppState>({ navigate: () => {}, revision: 0, refresh: () => {} });

export function useApp(): AppState {
  return useContext(App);
}

type LinkProps = Omit<PartialAnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'role'> & { href: string; children?: ComponentChildren };

/** An ordinary link (open in a new tab works) that navigates in place on a plain click. */
export function Link({ href, onClick, ...rest }: LinkProps) {
  const { navigate } = useApp();
  return (
    <a
      href={href}
      onClick={(event) => {
        if (typeof onClick === 'function') onClick(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
      {...rest}
    />
  );
}

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
}

/**
 * GET `path` (null: nothing), again whenever the app's revision changes (unless `immutable`: a commit's diff
 * never changes); the last data stays while reloading.
 */
export function useApi<P extends ApiGetPath>(path: P | null, options: { immutable?: boolean } = {}): Loaded<AnswerOf<P>> {
  type T = AnswerOf<P>;
  const { revision: appRevision } = useApp();
  const revision = options.immutable ? 0 : appRevision;
  const [state, setState] = useState<Loaded<T>>({ data: null, error: null, loading: path !== null });
  const [loadedPath, setLoadedPath] = useState<string | null>(path);
  useEffect(() => {
    if (path === null) {
      setState({ data: null, error: null, loading: false });
      return;
    }
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true }));
    getJson(path, controller.signal).then(
      (data) => {
        setLoadedPath(path);
        setState({ data, error: null, loading: false });
      },
      (error: unknown) => {
        if (isAbort(error)) return;
        setLoadedPath(path);
        setState({ data: null, error: toApiError(error), loading: false });
      },
    );
    return () => controller.abort();
  }, [path, revision]);
  // Data of another path (the previous topic) is not shown as this one's.
  return loadedPath === path ? state : { data: null, error: null, loading: true };
}

export function ErrorBox({ error }: { error: Pick<ApiError, 'kind' | 'message'> | null }) {
  if (!error) return null;
  return (
    <div class="error" role="alert" data-testid="error">
      <strong class="error-kind">{error.kind}</strong> <span class="error-message">{error.message}</span>
    </div>
  );
}

/** Text with the search terms in <mark>: text nodes and elements only, never HTML. */
export function Highlighted({ text, terms }: { text: string; terms: readonly string[] }) {
  return <>{highlight(text, terms).map((segment, i) => (segment.mark ? <mark key={i}>{segment.text}</mark> : segment.text))}</>;
}

export function Time({ iso }: { iso: string }) {
  if (!iso) return null;
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={Number.isNaN(date.getTime()) ? iso : date.toLocaleString()}>
      {relativeTime(iso, Date.now())}
    </time>
  );
}

export function shortOid(oid: string | null | undefined): string {
  return oid ? oid.slice(0, 8) : '';
}

/** A unified diff as text: one span per line, coloured through its class (text nodes only, never HTML). */
export function DiffView({ text }: { text: string }) {
  return (
    <pre class="diff">
      {diffLines(text).map((line, i) => (
        <span key={i} class={line.type === 'context' ? undefined : line.type}>
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
