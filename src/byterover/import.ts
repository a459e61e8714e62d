import type { ErrorKind } from '../base/error-kinds.js';
import type { ContextStore } from '../store/context-store.js';
import type { TreeEdit } from '../store/tree-edit.js';
import { caseFoldKey, nonPortablePathError, topicPathFromBlobPath } from '../topic/path.js';

export interface ImportProblem {
  file: string;
  errors: Array<{ kind: ErrorKind; message: string }>;
}

export interface ImportResult {
  ok: boolean;
  added: string[];
  updated: string[];
  unchanged: number;
  commit: string | undefined;
  problems: ImportProblem[];
  /** True when nothing was written: the report says what an import would do. */
  dryRun: boolean;
}

/**
 * Records read and validated topics (blob path → blob of canonical HTML, already written: see
 * `planByteRoverImport`'s `keep`) as ONE commit. With problems and no `skipInvalid`, or a topic that
 * would replace another without `overwrite`, no ref moves (the blobs stay unreferenced, as after a
 * `git add` that is never committed). With `dryRun`, the caller writes no blob (it only hashes) and
 * nothing is written at all: the result is what an import would do.
 */
export async function commitImport(
  store: ContextStore,
  branch: string,
  topics: ReadonlyMap<string, { file: string; oid: string }>,
  problems: ImportProblem[],
  options: { overwrite: boolean; skipInvalid?: boolean; dryRun?: boolean; source?: string; agent?: string | undefined },
): Promise<ImportResult> {
  const dryRun = options.dryRun ?? false;
  const empty = { added: [], updated: [], unchanged: 0, commit: undefined, dryRun };
  if (problems.length > 0 && !options.skipInvalid) return { ok: false, ...empty, problems };
  if (topics.size === 0) return { ok: problems.length === 0, ...empty, problems };
  const skipped = problems;

  const blobPaths = [...topics.keys()];
  const oids = blobPaths.map((p) => topics.get(p)!.oid);
  const outcome = await store.commit<ImportResult>(branch, async (snapshot) => {
    const added: string[] = [];
    const updated: string[] = [];
    const conflicts: ImportProblem[] = [];
    const edits: TreeEdit[] = [];
    let unchanged = 0;
    const existing = new Map<string, string>();
    if (snapshot.commit) {
      for (const { path: p, oid } of await store.listBlobs(snapshot)) existing.set(p, oid);
    }
    // Every file and folder of the tree (and of this import, as it goes) by its case-folded name.
    const spellings = new Map<string, string>();
    const spell = (blobPath: string): void => {
      const segments = blobPath.split('/');
      for (let i = 1; i <= segments.length; i++) {
        const prefix = segments.slice(0, i).join('/');
        if (!spellings.has(caseFoldKey(prefix))) spellings.set(caseFoldKey(prefix), prefix);
      }
    };
    for (const p of existing.keys()) spell(p);
    blobPaths.forEach((blobPath, i) => {
      const oid = oids[i]!;
      const current = existing.get(blobPath);
      const refusal = current === undefined ? newPathProblem(blobPath, spellings) : undefined;
      if (refusal) {
        conflicts.push({ file: topics.get(blobPath)!.file, errors: [refusal] });
        return;
      }
      spell(blobPath);
      if (current === oid) unchanged++;
      else if (current && !options.overwrite) {
        conflicts.push({
          file: topics.get(blobPath)!.file,
          errors: [
            {
              kind: 'path-exists',
              message: `${blobPath} already exists with other content; pass --overwrite to replace it.`,
            },
          ],
        });
      } else {
        (current ? updated : added).push(blobPath.replace(/\.html$/, ''));
        edits.push({ path: blobPath, blob: oid });
      }
    });
    if (conflicts.length > 0 && !options.skipInvalid) return { stop: { ok: false, ...empty, problems: [...skipped, ...conflicts] } };
    if (edits.length === 0) return { stop: { ok: true, ...empty, unchanged, problems: [...skipped, ...conflicts] } };
    if (dryRun) return { stop: { ok: true, ...empty, added, updated, unchanged, problems: [...skipped, ...conflicts] } };
    return {
      write: {
        edits,
        subject: `import: ${added.length} added, ${updated.length} updated${options.source ? ` from ${options.source}` : ''}`,
        meta: { op: 'import', type: updated.length > 0 ? 'UPDATE' : 'ADD', agent: options.agent },
      },
      result: { ok: true, added, updated, unchanged, commit: undefined, problems: [...skipped, ...conflicts], dryRun },
    };
  });
  if (outcome.result.ok && !dryRun) {
    // The search index's per-blob entries (src/index/doc-cache.ts), so the first query after an
    // import builds its index without parsing HTML. Optional: a failure here fails nothing.
    try {
      await cacheImportedBlobs(store, oids);
    } catch {
      // The first query parses the topics instead.
    }
  }
  return { ...outcome.result, commit: outcome.commit };
}

/** Blobs read back per round when caching an import: bounds what is held at once. */
const CACHE_CHUNK = 500;

/**
 * Writes the per-blob cache entries of an import's blobs, read back from the repository a chunk at a
 * time (entries are parsed from exactly what is stored), into one pack: memory stays bounded
 * however many topics were imported.
 */
async function cacheImportedBlobs(store: ContextStore, oids: readonly string[]): Promise<void> {
  const [{ blobDocument }, { DocCache }] = await Promise.all([import('../index/document.js'), import('../index/doc-cache.js')]);
  const cache = DocCache.forRepository(store.repo.location.commonDir);
  const writer = cache.writer();
  try {
    for (let from = 0; from < oids.length; from += CACHE_CHUNK) {
      const chunk = oids.slice(from, from + CACHE_CHUNK).filter((oid) => !cache.has(oid));
      const contents = await Promise.all(chunk.map((oid) => store.repo.readBlob(oid)));
      chunk.forEach((oid, i) => {
        const bytes = contents[i];
        if (bytes !== undefined) writer.add(oid, blobDocument(bytes.toString('utf8')));
      });
    }
  } catch (error) {
    writer.abort();
    throw error;
  }
  writer.finish();
}

/**
 * Why a topic new to the tree cannot be added (a name other filesystems cannot hold, or one that
 * differs only by letter case from a file or folder of the tree or of this import), or undefined.
 */
function newPathProblem(blobPath: string, spellings: ReadonlyMap<string, string>): { kind: ErrorKind; message: string } | undefined {
  const topicPath = topicPathFromBlobPath(blobPath);
  const nonPortable = topicPath === undefined ? undefined : nonPortablePathError(topicPath);
  if (nonPortable) return { kind: nonPortable.kind, message: nonPortable.message };
  const segments = blobPath.split('/');
  for (let i = 1; i <= segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    const spelled = spellings.get(caseFoldKey(prefix));
    if (spelled !== undefined && spelled !== prefix) {
      return {
        kind: 'path-case-collision',
        message:
          `${blobPath} differs only by letter case from ${spelled}, already in the tree or this import: on macOS and Windows they are ` +
          `the same ${i === segments.length ? 'file' : 'folder'}, so one would be lost. Rename one of them, then import again.`,
      };
    }
  }
  return undefined;
}
