import { isBrvError } from '../base/errors.js';
import type { ContextStore, OpenedReview } from '../store/context-store.js';
import { REVIEW_PREFIX } from '../store/layout.js';
import { oneLine, parseCommitMessage } from '../store/trailers.js';
import { MAX_STORED_TOPIC_BYTES, MAX_TOPIC_BYTES } from '../topic/limits.js';
import { nonPortablePathError, topicBlobPath } from '../topic/path.js';
import { relatedWarnings, type PathKind } from '../topic/related.js';
import { removedContent, removedCount, removedLines, type RemovedContent } from '../topic/removed.js';
import { validateTopicHtml } from '../topic/validate.js';
import type { CurateError, CurateMeta } from './envelope.js';
import { mark } from '../base/trace.js';

export interface WriteOptions {
  branch: string;
  overwrite: boolean;
  sessionId?: string;
  agent?: string;
  /**
   * The topic comes from a model brv drives (self-driven curate): replacing a topic in a way that
   * removes content opens a review whatever impact the model declared.
   */
  reviewRemovals?: boolean;
  /** The model that wrote the topic (`provider/model`), recorded as Brv-Model. */
  model?: string;
}

export type WriteResult =
  | {
      ok: true;
      filePath: string;
      topicPath: string;
      type: string;
      commit: string | undefined;
      unchanged: boolean;
      warnings: string[];
      /** The review this change opened (high impact): see ContextStore.commit. */
      review?: OpenedReview;
      /** What replacing the stored topic took out of it (absent when nothing was). */
      removed?: RemovedContent;
    }
  | { ok: false; errors: CurateError[] };

/**
 * Validates a topic and records it as one commit on the brv branch. The existence check runs
 * inside the compare-and-swap loop, so two agents racing for one path cannot both "add" it.
 */
export async function writeTopic(
  store: ContextStore,
  html: string,
  meta: CurateMeta | undefined,
  options: WriteOptions,
): Promise<WriteResult> {
  store.repo.prepareBatchProcesses();
  const validation = validateTopicHtml(html, { maxBytes: MAX_TOPIC_BYTES, unknownAttributesAsData: true });
  mark('curate: topic validated');
  if (!validation.ok) return { ok: false, errors: validation.errors.map((e) => ({ ...e })) };
  const topic = validation.topic;
  // A new name that other filesystems cannot hold (a Windows device name, a trailing dot) is refused
  // here; one already stored (written before this check, or planted) stays writable.
  const nonPortable = nonPortablePathError(topic.path);
  const filePath = topicBlobPath(topic.path);
  // Start the blob write now: its process start overlaps the reads below.
  const blob = store.repo.writeBlob(topic.canonicalHtml);
  blob.catch(() => {});
  // The search index's entry for the new blob, made while the commit's git processes run, so the next
  // query indexes this topic without loading the HTML code. Optional: a failure here fails nothing.
  const cached = cacheTopic(store, blob, topic.canonicalHtml);

  // Nothing to write: the same topic is there, or held in a review that opened for it.
  const unchanged = (warnings: string[], review?: OpenedReview): WriteResult => ({
    ok: true,
    filePath,
    topicPath: topic.path,
    type: meta?.type ?? 'UPDATE',
    commit: undefined,
    unchanged: true,
    warnings,
    ...(review ? { review } : {}),
  });
  const outcome = await store.commit<WriteResult>(options.branch, async (snapshot) => {
    // Bounded like every read of a stored blob: one over the limit (planted by plain git) is never
    // loaded; it exists, so it is replaced only with overwrite, and never shown to the agent.
    let existing: Buffer | undefined;
    let oversized = false;
    try {
      existing = await store.readFile(snapshot, filePath, { maxBytes: MAX_STORED_TOPIC_BYTES });
    } catch (error) {
      if (!isBrvError(error) || error.kind !== 'too-large') throw error;
      oversized = true;
      existing = Buffer.alloc(0);
    }
    let removed: RemovedContent | undefined;
    if (existing) {
      const existingHtml = oversized ? undefined : existing.toString('utf8');
      if (existingHtml === topic.canonicalHtml) return { stop: unchanged([...topic.warnings]) };
      if (!options.overwrite) {
        return {
          stop: {
            ok: false,
            errors: [
              {
                kind: 'path-exists',
                message: `A topic already exists at ${topic.path}. Merge your knowledge into it and resend with --overwrite, or choose another path.`,
                ...(existingHtml === undefined ? {} : { existingContent: existingHtml }),
              },
            ],
          },
        };
      }
      const taken = existingHtml === undefined ? undefined : removedContent(existingHtml, topic.canonicalHtml);
      if (taken && removedCount(taken) > 0) removed = taken;
    }
    if (!existing) {
      if (nonPortable) return { stop: { ok: false, errors: [{ ...nonPortable }] } };
      // Checked on this snapshot (re-run when the commit loses a race), like the existence check above.
      const variant = await store.caseVariant(snapshot, filePath);
      if (variant !== undefined) {
        return {
          stop: {
            ok: false,
            errors: [
              {
                kind: 'path-case-collision',
                message:
                  `${filePath} differs only by letter case from ${variant}, already in the tree: on macOS and Windows they are the same ` +
                  `${variant.endsWith('.html') ? 'file' : 'folder'}, so exports and checkouts there would lose one. ` +
                  `Use the existing spelling (${variant.replace(/\.html$/, '')}${variant.endsWith('.html') ? '' : '/…'}), or choose another name.`,
                existingPath: variant,
              },
            ],
          },
        };
      }
    }
    const held = await heldReviewWith(store, filePath, await blob);
    if (held) return { stop: unchanged([], held) };
    const type = meta?.type ?? (existing ? 'UPDATE' : 'ADD');
    const kinds = new Map<string, PathKind>();
    for (const ref of topic.related) {
      if (!ref.ok || kinds.has(ref.path)) continue;
      const isTopic = ref.path === topic.path || (await store.pathKind(snapshot, topicBlobPath(ref.path))) === 'file';
      kinds.set(ref.path, isTopic ? 'topic' : (await store.pathKind(snapshot, ref.path)) === 'folder' ? 'folder' : 'none');
    }
    const warnings = [...topic.warnings, ...relatedWarnings(topic.related, (path) => kinds.get(path) ?? 'none')];
    return {
      write: {
        edits: [{ path: filePath, blob: await blob }],
        subject: `curate: ${topic.path} — ${oneLine(meta?.summary || topic.summary || topic.title, 120)}`,
        meta: {
          op: 'curate',
          type,
          impact: meta?.impact,
          confidence: meta?.confidence,
          reason: meta?.reason,
          summary: meta?.summary,
          previousSummary: meta?.previousSummary,
          session: options.sessionId,
          agent: options.agent,
          ...(removed ? { removed: removedLines(removed) } : {}),
          model: options.model,
        },
        ...(removed && options.reviewRemovals ? { needsReview: true } : {}),
      },
      result: {
        ok: true,
        filePath,
        topicPath: topic.path,
        type,
        commit: undefined,
        unchanged: false,
        warnings,
        ...(removed ? { removed } : {}),
      },
    };
  });
  await cached;
  if (outcome.result.ok && outcome.commit) {
    return { ...outcome.result, commit: outcome.commit, ...(outcome.review ? { review: outcome.review } : {}) };
  }
  return outcome.result;
}

/**
 * The held review (review.gate) whose change already puts exactly this blob at `filePath`: sending the
 * same topic again while it waits is `unchanged`, not a second review. Costs nothing without reviews.
 */
async function heldReviewWith(store: ContextStore, filePath: string, blob: string): Promise<OpenedReview | undefined> {
  if (!(await store.repo.refsMayExist(REVIEW_PREFIX))) return undefined;
  const refs = await store.repo.listRefs(REVIEW_PREFIX);
  const commits = await Promise.all(refs.map(({ oid }) => store.repo.readCommit(oid)));
  const held = refs
    .map((ref, i) => ({ ref: ref.ref, commit: commits[i] }))
    .filter(({ commit }) => commit && parseCommitMessage(commit.message).meta.gate === 'held');
  // One `cat-file --batch-check` for every held review, not a git process each.
  const entries = await store.repo.objectInfo(held.map(({ commit }) => `${commit!.tree}:${filePath}`));
  const found = held[entries.findIndex((entry) => entry?.oid === blob)];
  return found ? { id: found.ref.slice(REVIEW_PREFIX.length), ref: found.ref, gated: true } : undefined;
}

/** Stores the per-blob index cache entry of a topic being written (see src/index/doc-cache.ts); never throws. */
async function cacheTopic(store: ContextStore, blob: Promise<string>, html: string): Promise<void> {
  try {
    // Loaded here, not with the protocol: its ~100 KiB of markdown code would lengthen every curate's start.
    const [{ cacheBlobDocuments }, oid] = await Promise.all([
      import('../index/document.js').finally(() => mark('curate: index cache code loaded')),
      blob,
    ]);
    // Yield once, so the commit's next git round trip starts before the parse and render run.
    await new Promise((resolve) => setImmediate(resolve));
    cacheBlobDocuments(store.repo.location.commonDir, [{ oid, html }]);
  } catch {
    // The next query parses the topic instead.
  }
  mark('curate: index cache entry stored');
}
