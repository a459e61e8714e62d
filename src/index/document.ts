import type { Element } from 'hast';
import { topicPlainText } from '../topic/plain-text.js';
import { renderTopicMarkdown } from '../topic/render.js';
import { readStoredTopic } from '../topic/stored.js';
import { DocCache, documentAt, type CachedBlob } from './doc-cache.js';
import { extractDocument } from './extract.js';
import { fastBlobDocument } from './fast-extract.js';
import type { IndexDocument } from './fields.js';

export { dateInWords, datesIn } from './extract.js';

export { FIELD_COUNT, FIELDS, type FieldName, type SegmentInput } from './fields.js';

export function documentFromTopic(path: string, root: Element): IndexDocument {
  const { title, fields, dates, kinds } = documentAt(path, '', { ...extractDocument(root), markdown: '', text: '' });
  return { path, title, fields, dates, kinds };
}

/**
 * What the index needs of a topic blob, wherever it sits: fields and facts (all but the path) and
 * rendered markdown; or, for a blob that is not a readable topic, the problem (never a throw).
 * Blobs in canonical form take the fast path (fast-extract.ts, the same result without parse5).
 */
export function blobDocument(html: string): CachedBlob {
  return fastBlobDocument(html) ?? fullBlobDocument(html);
}

/** blobDocument through the HTML toolchain: parse5, the sanitizer, hast-util-to-mdast. Any blob. */
export function fullBlobDocument(html: string): CachedBlob {
  const topic = readStoredTopic(html);
  return topic.ok
    ? { ...extractDocument(topic.root), markdown: renderTopicMarkdown(topic.root), text: topicPlainText(topic.root) }
    : { problem: topic.problem, message: topic.message };
}

/**
 * Stores the cache entries of blobs just written (curate, import), so the query that indexes them
 * loads no HTML code. `html` must be the blob's exact bytes: entries are parsed from what is stored.
 * Blobs already cached are skipped; failures are the caller's to ignore (the cache is optional).
 */
export function cacheBlobDocuments(commonDir: string, blobs: ReadonlyArray<{ oid: string; html: string }>): void {
  const cache = DocCache.forRepository(commonDir);
  // One pack for a large batch (an import), streamed: 100,000 topics are never held twice.
  const writer = cache.writer();
  for (const { oid, html } of blobs) if (!cache.has(oid)) writer.add(oid, blobDocument(html));
  writer.finish();
}
