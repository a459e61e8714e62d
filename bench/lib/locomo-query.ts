/**
 * How bench/locomo.ts asks questions: through `Brv.query` (the code `brv query --format json` runs)
 * when the service has it, else through a clearly labelled stand-in that reads the topics back from
 * the brv branch and ranks them with Lunr's BM25 (lowercase, English stop words, Porter stemmer,
 * k1 1.2, b 0.75: the retrieval-bench.md baseline's ranking). The stand-in exists so the harness and
 * its metrics can be checked against the published baseline; its figures are not brv's.
 */
import lunr from 'lunr';
import type { Brv } from '../../src/service/brv.js';
import { internals } from '../../test/helpers/service.js';
import { renderTopicMarkdown, topicPathFromBlobPath, topicText, validateTopicHtml } from '../../src/topic/index.js';

/** The shape of `Brv.query` (tool-mode `brv query --format json` data). */
export interface QueryDoc {
  /** File path, e.g. "locomo/conv-26/session_01.html". */
  readonly path: string;
  /** Topic path, without ".html". */
  readonly topicPath?: string;
  readonly title: string;
  readonly score: number;
  readonly format: string;
  readonly rendered_md: string;
  readonly matched?: { readonly terms: readonly string[]; readonly fields: readonly string[] };
}

export interface QueryResult {
  readonly status: 'ok' | 'no-matches';
  readonly matchedDocs: readonly QueryDoc[];
  readonly metadata: {
    readonly durationMs: number;
    readonly totalFound: number;
    readonly topScore: number;
    readonly [key: string]: unknown;
  };
}

export interface Retriever {
  /** "brv.query", or "stand-in: …" for anything that is not brv's query path. */
  readonly name: string;
  query(question: string, options: QueryOptions): Promise<QueryResult>;
}

/** `ranking` switches brv's ranking features off for --ablate (`QueryOptions.ranking` in src/search/query-topics.ts); the stand-in ignores it. */
export interface QueryOptions {
  readonly limit: number;
  readonly ranking?: Readonly<Record<string, boolean>>;
  /** Further options of brv's query (bench --hybrid: `hybrid`, `fusion`); the stand-in ignores them. */
  readonly [option: string]: unknown;
}

type QueryFunction = (question: string, options: QueryOptions) => Promise<QueryResult>;

/** brv's own query path, if this checkout's `Brv` has one. */
export function brvRetriever(brv: Brv): Retriever | undefined {
  // The typed service (brv.retrieval.query); older checkouts had brv.query(question, options).
  const retrieval = (brv as unknown as { retrieval?: { query?: unknown } }).retrieval;
  if (retrieval && typeof retrieval.query === 'function') {
    const query = retrieval.query as (request: { question: string } & QueryOptions) => Promise<QueryResult>;
    return { name: 'brv.retrieval.query', query: (question, options) => query.call(retrieval, { question, ...options }) };
  }
  const query = (brv as unknown as { query?: unknown }).query;
  if (typeof query !== 'function') return undefined;
  return { name: 'brv.query', query: (question, options) => (query as QueryFunction).call(brv, question, options) };
}

const STAND_IN_NAME = 'stand-in: Lunr BM25 over the imported topics (NOT brv.query)';

interface StandInDoc {
  readonly path: string;
  readonly topicPath: string;
  readonly title: string;
  readonly rendered: string;
}

/** Builds the stand-in over every topic on the brv branch (read back from git, as imported). */
export async function standInRetriever(brv: Brv): Promise<Retriever> {
  const snapshot = await internals(brv).store.snapshot(brv.branch);
  const docs = new Map<string, StandInDoc>();
  const fields: Array<{ id: string; title: string; body: string }> = [];
  for (const { path } of await internals(brv).store.listBlobs(snapshot)) {
    const topicPath = topicPathFromBlobPath(path);
    if (!topicPath) continue;
    const html = (await internals(brv).store.readFile(snapshot, path))?.toString('utf8');
    const validation = html === undefined ? undefined : validateTopicHtml(html);
    if (!validation?.ok) continue;
    const text = topicText(validation.topic.root);
    docs.set(path, { path, topicPath, title: text.title, rendered: renderTopicMarkdown(validation.topic.root) });
    // As brv's spec indexes a topic: title in its own (boosted) field; body + summary + tags + keywords.
    fields.push({ id: path, title: text.title, body: [text.body, text.summary, text.tags.join(' '), text.keywords.join(' ')].join(' ') });
  }
  const index = lunr(function () {
    this.ref('id');
    this.field('title', { boost: 3 });
    this.field('body');
    this.metadataWhitelist = [];
    for (const doc of fields) this.add(doc);
  });
  const queryPipeline = new lunr.Pipeline();
  queryPipeline.add(lunr.trimmer, lunr.stopWordFilter);
  return {
    name: STAND_IN_NAME,
    async query(question, { limit }) {
      const start = performance.now();
      // Terms go through the query builder (the question's "?", ":" or "-" are Lunr query syntax),
      // trimmed and stop-word filtered as indexed text is; Lunr's search pipeline then stems them.
      const terms = queryPipeline.run(lunr.tokenizer(question)).filter((t) => t.toString() !== '');
      const hits =
        terms.length === 0
          ? []
          : index.query((q) => {
              q.term(terms, {});
            });
      const matchedDocs = hits.slice(0, limit).map((hit) => {
        const doc = docs.get(hit.ref)!;
        return { path: doc.path, topicPath: doc.topicPath, title: doc.title, score: hit.score, format: 'html', rendered_md: doc.rendered };
      });
      return {
        status: matchedDocs.length > 0 ? 'ok' : 'no-matches',
        matchedDocs,
        metadata: { durationMs: performance.now() - start, totalFound: hits.length, topScore: hits[0]?.score ?? 0 },
      };
    },
  };
}
