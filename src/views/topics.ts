import type { ListResult, ReadResult, RemoveResult } from '../service/knowledge.js';
import { plural, shortOid } from './format.js';

/** `brv read` and MCP `brv-read`: the topic's rendered markdown (or stored HTML with --raw). */
export function readText(result: ReadResult): string {
  return result.content;
}

function noTopics(result: ListResult): string {
  return result.prefix ? `No topics under ${result.prefix}.` : 'No topics yet.';
}

/** `brv ls`: one path a line and a count. */
export function listText(result: ListResult): string {
  if (result.topics.length === 0) return noTopics(result);
  return `${result.topics.join('\n')}\n(${plural(result.topics.length, 'topic')})`;
}

/** MCP `brv-list`: one path a line. */
export function listMarkdown(result: ListResult): string {
  return result.topics.length ? result.topics.join('\n') : noTopics(result);
}

/** `brv rm`. */
export function removeText(result: RemoveResult): string {
  return `Removed ${result.removed.join(', ')} (commit ${shortOid(result.commit)}).`;
}
