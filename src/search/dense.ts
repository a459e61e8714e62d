import { BrvError } from '../base/errors.js';
import type { EmbeddingCache } from '../index/embedding-cache.js';
import { unitVector } from '../index/embedding-cache.js';
import { embeddingText } from '../index/embedding-text.js';
import { liveView } from '../index/stack.js';
import type { TreeIndex, TreeIndexStore } from '../index/tree-index.js';

/**
 * The dense side of hybrid retrieval: every live topic of an index (passing the query's filters)
 * ranked by the cosine similarity of its embedding to the question's. Topic vectors come from the
 * per-blob embedding cache (embedding-cache.ts); the missing ones are embedded first, in batches,
 * from the rendered markdown the index already holds (no topic blob is read). The embedder is the
 * caller's (the service passes the connected model's): this module loads no model code.
 */
export interface DenseSource {
  readonly cache: EmbeddingCache;
  /** Vectors of `texts`, in order (one provider request per call). */
  embed(texts: string[]): Promise<number[][]>;
  /** Progress while topics are embedded: done of total (only called when a query embeds many). */
  onProgress?: (done: number, total: number) => void;
}

export interface DenseFilter {
  scope?: string | undefined;
  kinds?: readonly string[] | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export interface DenseHit {
  readonly path: string;
  readonly title: string;
  readonly blob: string;
  readonly similarity: number;
}

export interface DenseStats {
  /** Topics embedded by this call (cache misses), and taken from the cache. */
  embeddedTopics: number;
  cachedTopics: number;
  /** Provider requests made (topic batches and the question). */
  requests: number;
}

/** Topics per embedding request: providers take 96–2,048 inputs; 64 keeps a request small and progress frequent. */
const EMBED_BATCH = 64;
/** Progress is reported when a query embeds more topics than this. */
const PROGRESS_OVER = EMBED_BATCH;
/** Rendered texts read from the docstore at a time while embedding. */
const READ_CHUNK = 512;

interface LiveDoc {
  segment: number;
  doc: number;
  path: string;
  title: string;
  blob: string;
}

function kept(path: string, record: () => { kinds: string[]; dates: string[] }, filter: DenseFilter): boolean {
  const scope = (filter.scope ?? '').replace(/^\/+|\/+$/g, '');
  if (scope !== '' && path !== scope && !path.startsWith(`${scope}/`)) return false;
  if ((filter.kinds === undefined || filter.kinds.length === 0) && filter.since === undefined && filter.until === undefined) return true;
  const { kinds, dates } = record();
  if (filter.kinds && filter.kinds.length > 0 && !filter.kinds.some((k) => kinds.includes(k))) return false;
  if (filter.since !== undefined || filter.until !== undefined)
    return dates.some((d) => (filter.since === undefined || d >= filter.since) && (filter.until === undefined || d <= filter.until));
  return true;
}

/** The live documents of an index that pass the filters. */
export function liveDocuments(index: TreeIndex, filter: DenseFilter = {}): LiveDoc[] {
  const view = liveView(index.stack);
  const docs: LiveDoc[] = [];
  view.segments.forEach((segment, s) => {
    const dead = view.dead[s];
    for (let doc = 0; doc < segment.docCount; doc++) {
      if (dead?.[doc] === 1) continue;
      const path = segment.path(doc);
      if (!kept(path, () => segment.doc(doc), filter)) continue;
      docs.push({ segment: s, doc, path, title: segment.doc(doc).title, blob: segment.blob(doc) });
    }
  });
  return docs;
}

/** Dimensions brv accepts from a provider (the largest models have 3,072–4,096): a reply is bounded. */
const MAX_DIMS = 8192;

/** Unit vectors of a provider's reply, all of `dims` dimensions (the first one's when not given); else `llm-bad-reply`. */
function vectorsOf(replies: number[][], count: number, dims?: number): Float32Array[] {
  if (replies.length !== count)
    throw new BrvError('llm-bad-reply', `The embedding model returned ${replies.length} vectors for ${count} texts.`);
  const expected = dims ?? replies[0]?.length ?? 0;
  return replies.map((values) => {
    if (values.length !== expected || expected > MAX_DIMS)
      throw new BrvError(
        'llm-bad-reply',
        `The embedding model returned vectors of ${values.length} dimensions where ${expected} (at most ${MAX_DIMS}) were expected.`,
      );
    const vector = unitVector(values);
    if (!vector) throw new BrvError('llm-bad-reply', 'The embedding model returned an empty (all-zero) vector.');
    return vector;
  });
}

/**
 * Embeds the topics of `docs` the cache does not hold yet, and stores them. Returns their vectors
 * together with the cached ones, by blob. `dims`: the model's dimensions now (the question's vector);
 * cached vectors of another length (a model changed under the same name) are embedded again.
 */
export async function topicVectors(
  indexes: TreeIndexStore,
  index: TreeIndex,
  docs: readonly LiveDoc[],
  source: DenseSource,
  stats: DenseStats,
  dims?: number,
): Promise<Map<string, Float32Array>> {
  const cached = source.cache.vectors();
  const vectors = new Map<string, Float32Array>();
  const missing: LiveDoc[] = [];
  const queued = new Set<string>();
  for (const doc of docs) {
    const vector = cached.get(doc.blob);
    if (vector && (dims === undefined || vector.length === dims)) vectors.set(doc.blob, vector);
    else if (!queued.has(doc.blob)) {
      queued.add(doc.blob);
      missing.push(doc);
    }
  }
  stats.cachedTopics += vectors.size;
  const report = missing.length > PROGRESS_OVER ? source.onProgress : undefined;
  report?.(0, missing.length);
  const live = new Set(docs.map((d) => d.blob));
  for (let start = 0; start < missing.length; start += READ_CHUNK) {
    const chunk = missing.slice(start, start + READ_CHUNK);
    const texts = (await indexes.rendered(index, chunk)).map((topic) => embeddingText(topic.markdown));
    for (let at = 0; at < chunk.length; at += EMBED_BATCH) {
      const batch = chunk.slice(at, at + EMBED_BATCH);
      stats.requests++;
      const fresh = vectorsOf(await source.embed(texts.slice(at, at + EMBED_BATCH)), batch.length, dims);
      dims ??= fresh[0]?.length;
      const added = new Map<string, Float32Array>();
      batch.forEach((doc, i) => added.set(doc.blob, fresh[i]!));
      for (const [blob, vector] of added) vectors.set(blob, vector);
      stats.embeddedTopics += added.size;
      try {
        source.cache.add(added, live);
      } catch {
        // the cache is optional: the next query embeds these again
      }
      report?.(Math.min(missing.length, start + at + batch.length), missing.length);
    }
  }
  return vectors;
}

/** The `limit` live topics (passing `filter`) most similar to the question, best first; ties by path. */
export async function denseSearch(
  indexes: TreeIndexStore,
  index: TreeIndex,
  question: string,
  source: DenseSource,
  filter: DenseFilter,
  limit: number,
): Promise<{ hits: DenseHit[]; stats: DenseStats }> {
  const stats: DenseStats = { embeddedTopics: 0, cachedTopics: 0, requests: 0 };
  const docs = liveDocuments(index, filter);
  if (docs.length === 0 || limit <= 0) return { hits: [], stats };
  stats.requests++;
  const [query] = vectorsOf(await source.embed([question]), 1);
  const vectors = await topicVectors(indexes, index, docs, source, stats, query!.length);
  const scored: DenseHit[] = [];
  for (const doc of docs) {
    const vector = vectors.get(doc.blob);
    if (!vector) continue;
    let dot = 0;
    for (let i = 0; i < vector.length; i++) dot += vector[i]! * query![i]!;
    scored.push({ path: doc.path, title: doc.title, blob: doc.blob, similarity: dot });
  }
  scored.sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { hits: scored.slice(0, limit), stats };
}
