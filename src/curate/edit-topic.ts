import path from 'node:path';
import { BrvError } from '../base/errors.js';
import type { ContextStore, OpenedReview } from '../store/context-store.js';
import { localStateDir } from '../store/layout.js';
import { writeLocalFile } from '../store/local-file.js';
import { oneLine } from '../store/trailers.js';
import { MAX_STORED_TOPIC_BYTES } from '../topic/limits.js';
import { normalizeTopicPath, topicBlobPath } from '../topic/path.js';
import type { TopicPath } from '../topic/types.js';
import type { CurateError } from './envelope.js';

/** A topic as a person opens it to edit: its stored HTML and the blob it was read from (the version a save expects). */
export interface OpenedTopic {
  topicPath: string;
  filePath: string;
  html: string;
  /** The blob id of the stored topic: the save is refused if the topic moved on meanwhile. */
  version: string;
  commit: string;
}

export type SavedEdit =
  | {
      ok: true;
      topicPath: string;
      filePath: string;
      /** The edit commit, or undefined when the text is unchanged (nothing committed). */
      commit: string | undefined;
      unchanged: boolean;
      review?: OpenedReview;
    }
  | { ok: false; errors: CurateError[] };

function topicPathOf(raw: string): TopicPath {
  const normalized = normalizeTopicPath(raw.replace(/\/+$/, ''));
  if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
  return normalized.path;
}

/** Reads a topic of the brv branch tip for editing. */
export async function openTopicForEdit(store: ContextStore, branch: string, rawPath: string): Promise<OpenedTopic> {
  const topicPath = topicPathOf(rawPath);
  const filePath = topicBlobPath(topicPath);
  const snapshot = await store.snapshot(branch);
  const blob = snapshot.commit ? await store.readFile(snapshot, filePath, { maxBytes: MAX_STORED_TOPIC_BYTES }) : undefined;
  const object = blob && (await store.repo.objectInfo([`${snapshot.commit!.tree}:${filePath}`]))[0];
  if (!blob || !object) {
    throw new BrvError(
      'not-found',
      `No topic at ${topicPath} on brv branch ${branch}. List topics with brv ls; write a new one with brv curate.`,
    );
  }
  return { topicPath, filePath, html: blob.toString('utf8'), version: object.oid, commit: snapshot.commit!.oid };
}

/**
 * Saves an edited topic as one `Brv-Op: edit` commit, by compare-and-swap on the version opened: if
 * the stored topic changed (or went away) since, nothing is written, the text is kept in a file
 * under `<git-common-dir>/brv/edits/` and the error (`edit-conflict`) names it. Text that validates
 * to what is stored commits nothing (`unchanged`). Invalid text returns the validation errors.
 */
export async function saveTopicEdit(
  store: ContextStore,
  branch: string,
  request: { path: string; html: string; version: string; agent?: string },
): Promise<SavedEdit> {
  const topicPath = topicPathOf(request.path);
  const filePath = topicBlobPath(topicPath);
  const { validateTopicHtml } = await import('../topic/validate.js');
  const validation = validateTopicHtml(request.html);
  if (!validation.ok) return { ok: false, errors: validation.errors.map((e) => ({ ...e })) };
  const topic = validation.topic;
  if (topic.path !== topicPath) {
    return {
      ok: false,
      errors: [
        {
          kind: 'edit-path-changed',
          message: `The path attribute says ${topic.path}, but this is the topic at ${topicPath}: put path="${topicPath}" back (to write a topic elsewhere, use brv curate).`,
        },
      ],
    };
  }
  const blob = await store.repo.writeBlob(topic.canonicalHtml);
  const outcome = await store.commit<{ unchanged: boolean; moved?: 'changed' | 'removed' }>(branch, async (snapshot) => {
    const current = snapshot.commit ? (await store.repo.objectInfo([`${snapshot.commit.tree}:${filePath}`]))[0] : undefined;
    if (current?.oid === blob) return { stop: { unchanged: true } };
    if (!current || current.type !== 'blob') return { stop: { unchanged: false, moved: 'removed' } };
    if (current.oid !== request.version) return { stop: { unchanged: false, moved: 'changed' } };
    return {
      write: {
        edits: [{ path: filePath, blob }],
        subject: `edit: ${topicPath} — ${oneLine(topic.summary || topic.title, 120)}`,
        meta: { op: 'edit', type: 'UPDATE', agent: request.agent },
      },
      result: { unchanged: false },
    };
  });
  const { moved } = outcome.result;
  if (moved) {
    const file = await keepEditedText(store, topicPath, request.html);
    throw new BrvError(
      'edit-conflict',
      `${topicPath} was ${moved === 'removed' ? 'removed' : 'changed by someone else'} while you edited it, so your edit was not saved. ` +
        `Your text is in ${file}: run brv edit ${topicPath} again and carry your changes over from that file.`,
    );
  }
  return {
    ok: true,
    topicPath,
    filePath,
    commit: outcome.commit,
    unchanged: outcome.result.unchanged,
    ...(outcome.review ? { review: outcome.review } : {}),
  };
}

/** Keeps text an edit could not save, under `<git-common-dir>/brv/edits/`; returns the file. */
export async function keepEditedText(store: ContextStore, topicPath: string, html: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(localStateDir(store.repo.location.commonDir, 'edits'), `${topicPath.replace(/\//g, '__')}-${stamp}.html`);
  await writeLocalFile(file, html);
  return file;
}
