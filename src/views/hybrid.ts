import type { LlmUsage } from '../models/llm/client.js';
import type { HybridInfo } from '../search/query-topics.js';
import { usageLine } from './usage.js';

/**
 * What a hybrid query tells a person on stderr after its answer: a warning when the embedding side
 * failed and the answer is the lexical ranking, else what embedding cost (topics embedded, the
 * model's usage line). Nothing for a lexical query.
 */
export function hybridNotes(hybrid: HybridInfo | undefined, usage: LlmUsage | undefined, format: 'text' | 'json'): string[] {
  if (!hybrid) return [];
  if (!hybrid.ran) {
    const reason = hybrid.fallback ? `${hybrid.fallback.error}: ${hybrid.fallback.message}` : 'unknown error';
    return [`warning: hybrid retrieval failed, these are lexical results (${reason}). --lexical skips it.`];
  }
  if (format === 'json') return [];
  const lines: string[] = [];
  if (hybrid.embeddedTopics > 0)
    lines.push(`embedded ${hybrid.embeddedTopics.toLocaleString('en-US')} topics (cached for the next queries)`);
  if (usage) lines.push(usageLine(usage));
  return lines;
}
