import type { EditSaveResult } from '../service/knowledge.js';
import { shortOid } from './format.js';

type SavedView = Extract<EditSaveResult, { ok: true }>;

/** `brv edit`: what was saved. */
export function editText(result: SavedView): string {
  if (result.unchanged) return `Unchanged: ${result.topicPath} already holds exactly this content; nothing committed.`;
  const lines = [`Saved ${result.topicPath} (commit ${shortOid(result.commit ?? '')}).`];
  if (result.review) lines.push(`  review ${result.review.id} opened (brv review pending)`);
  return lines.join('\n');
}
