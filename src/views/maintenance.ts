import type { CompactIndexResult, EmbedTopicsResult } from '../service/retrieval.js';
import { shortOid } from './format.js';

/** `brv maintenance`: one line per search index it looked at. */
export function maintenanceText(result: CompactIndexResult): string {
  if (result.status === 'busy') return 'Index maintenance is already running in another process; nothing to do.';
  if (result.indexes.length === 0) return 'No search index to maintain yet (no topics).';
  return result.indexes
    .map((index) => {
      const which = `${index.source === undefined ? 'Search index' : `Search index of source ${index.source}`} (tree ${shortOid(index.tree)})`;
      const cached = index.cachedTopics > 0 ? `cached ${index.cachedTopics} topic${index.cachedTopics === 1 ? '' : 's'}; ` : '';
      if (index.compacted)
        return `${which}: ${cached}compacted ${index.segmentsBefore} segments into ${index.segmentsAfter} in ${Math.round(index.ms)} ms.`;
      if (index.segmentsBefore === 0) return `${which}: not built yet; the next query builds it.`;
      return `${which}: ${cached}${index.segmentsBefore} segment${index.segmentsBefore === 1 ? '' : 's'}, not due for compaction.`;
    })
    .join('\n');
}

/** `brv maintenance` with an embedding model connected: what the topic embeddings cost. */
export function embeddingsText(result: EmbedTopicsResult): string {
  if (result.status === 'off') return 'Topic embeddings: no embedding model connected.';
  if (result.status === 'failed')
    return `Topic embeddings (${result.model}): failed, ${result.failure?.error}: ${result.failure?.message} Queries answer lexically meanwhile.`;
  const dropped = result.droppedVectors > 0 ? `, dropped ${result.droppedVectors} of topics no longer in the tree` : '';
  return `Topic embeddings (${result.model}): embedded ${result.embeddedTopics}, ${result.cachedTopics} already cached${dropped}.`;
}
