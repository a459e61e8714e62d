import type { QueryResult, SearchResult } from '../service/retrieval.js';
import { markdownInline } from '../topic/inline.js';
import { originLabel } from './format.js';

type QueryView = QueryResult;
type SearchView = SearchResult;

/**
 * A rendered topic without its first line `# title` (a heading that names the topic replaces it).
 * Not trimmed at the start: an indented code block starts with spaces.
 */
function withoutTitle(markdown: string): string {
  return markdown
    .replace(/^# .*\n+/, '')
    .replace(/^\n+/, '')
    .trimEnd();
}

/** A topic found only through the question words' neighbours or feedback terms matched none of its words. */
function matchedWords(terms: readonly string[]): string {
  return terms.length > 0 ? terms.map((term) => markdownInline(term)).join(', ') : 'related words only';
}

/**
 * `brv query` for a terminal: numbered topics, the header naming title, path, score and matched
 * terms (so the rendered title line is not repeated under it).
 */
/** Why nothing matched when this clone has no knowledge yet and its remote has (or may have) some. */
function remoteKnowledgeText(result: QueryView): string | undefined {
  const hint = result.remoteKnowledge;
  if (!hint) return undefined;
  return hint.fetched
    ? `No knowledge here yet: ${hint.remote} has some (${hint.behind} commit(s) fetched, not taken). Run ${hint.command} to start from it (no fetch needed).`
    : `No knowledge here yet, and nothing fetched from ${hint.remote}, which may have some. Run ${hint.command}: it fetches the knowledge and starts from it.`;
}

export function queryText(result: QueryView): string {
  if (result.matchedDocs.length === 0)
    return remoteKnowledgeText(result) ?? 'No topics match. Try other words, or curate what you learn with brv curate.';
  const blocks = result.matchedDocs.map(
    (doc, i) =>
      `## ${i + 1}. ${markdownInline(doc.title, 'heading')} — ${originLabel(doc)}${markdownInline(doc.topicPath)} (score ${doc.score.toFixed(2)}; matched ${matchedWords(doc.matched.terms)})\n\n${withoutTitle(doc.rendered_md)}`,
  );
  return `${blocks.join('\n\n---\n\n')}\n\n(${result.matchedDocs.length} of ${result.metadata.totalFound} matching topics, ${result.metadata.durationMs} ms)`;
}

/**
 * MCP `brv-query`: one markdown section per topic, headed by its title, with its path and score and
 * the rendered body (whose own `# title` line the section heading replaces, as in `queryText`).
 */
export function queryMarkdown(result: QueryView, question: string): string {
  if (result.matchedDocs.length === 0) {
    const hint = remoteKnowledgeText(result);
    return `No topics matched "${markdownInline(question)}" in this project's context tree.${hint ? ` ${markdownInline(hint)}` : ''}`;
  }
  const body = result.matchedDocs.map(
    (doc) =>
      `## ${markdownInline(doc.title || doc.topicPath, 'heading')}\n\n_${markdownInline(doc.path)} · score ${doc.score}_\n\n${withoutTitle(doc.rendered_md)}`,
  );
  return `${body.join('\n\n---\n\n')}\n\n_Matched ${result.matchedDocs.length} of ${result.metadata.totalFound} topic(s) in ${result.metadata.durationMs}ms._`;
}

/** `brv search` for a terminal: title and score, path, excerpt. */
export function searchText(result: SearchView): string {
  if (result.results.length === 0) return 'No topics match.';
  return result.results
    .map(
      (r, i) =>
        `${i + 1}. ${markdownInline(r.title)} [${Math.round(r.score * 100)}%]\n   ${originLabel(r)}${markdownInline(r.topicPath)}\n   ${markdownInline(r.excerpt)}`,
    )
    .join('\n');
}

/** MCP `brv-search`: a markdown list of paths, titles, scores and excerpts. */
export function searchMarkdown(result: SearchView, question: string): string {
  if (result.results.length === 0) return `No topics matched "${markdownInline(question)}".`;
  return result.results
    .map(
      (r) =>
        `- ${markdownInline(r.topicPath, 'line-start')} — ${markdownInline(r.title)} (score ${r.score})\n  ${markdownInline(r.excerpt)}`,
    )
    .join('\n');
}
