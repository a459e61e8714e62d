import { normalizeTopicPath } from './path.js';
import { splitList } from './hast.js';
import type { RelatedRef, TopicPath } from './types.js';

/** Parses `related="@a/b.html, @c"`: `.html` refs name a topic; bare refs a topic if one exists, else a folder. */
export function parseRelated(value: string | undefined): RelatedRef[] {
  return splitList(value).map((ref): RelatedRef => {
    const bare = ref.replace(/^@/, '');
    const result = normalizeTopicPath(bare);
    if (!result.ok) return { ok: false, ref, reason: result.error.message };
    return { ok: true, ref, path: result.path, explicitTopic: bare.endsWith('.html') };
  });
}

export type PathKind = 'topic' | 'folder' | 'none';

/** Advisory only: related refs never block a write. */
export function relatedWarnings(refs: readonly RelatedRef[], exists: (path: TopicPath) => PathKind): string[] {
  const warnings: string[] = [];
  for (const ref of refs) {
    if (!ref.ok) {
      warnings.push(`related ref "${ref.ref}" is ignored: ${ref.reason}`);
      continue;
    }
    const kind = exists(ref.path);
    if (ref.explicitTopic && kind !== 'topic') {
      const hint = kind === 'folder' ? ` ("${ref.path}" is a folder; drop ".html" to refer to it)` : '';
      warnings.push(`related ref "${ref.ref}" names a topic that does not exist${hint}.`);
    } else if (kind === 'none') {
      warnings.push(`related ref "${ref.ref}" matches no topic or folder.`);
    }
  }
  return warnings;
}
