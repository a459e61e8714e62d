import type { EditSaveResult } from '../service/knowledge.js';
import { shortOid } from './format.js';

type SavedView = Extract<EditSaveResult, { ok: true }>;
type ErrorsView = Extract<EditSaveResult, { ok: false }>['errors'];

/** The first line of the comment `brv edit` puts above a topic that failed validation (and strips again). */
const EDIT_ERRORS_MARK = '<!-- brv edit:';

/**
 * The errors of a failed save, as an HTML comment placed above the topic when the editor reopens.
 * `--` cannot appear inside a comment, so it is broken up; brv strips the whole comment before validating.
 */
export function editErrorsComment(errors: ErrorsView): string {
  const lines = [`${EDIT_ERRORS_MARK} the topic was NOT saved. Fix what is listed, then save and quit.`];
  lines.push('  This comment is removed before the topic is checked. Save it unchanged to give up (your text is kept).');
  // Lines as the editor shows them: the topic starts below this comment.
  const shift = lines.length + errors.length + 1;
  for (const error of errors) {
    const where = error.line === undefined ? '' : `line ${error.line + shift}${error.column === undefined ? '' : `:${error.column}`}: `;
    lines.push(`  - ${where}${error.kind}: ${error.message}`.replace(/--/g, '- -').replace(/>/g, '&gt;'));
  }
  lines.push('-->');
  return `${lines.join('\n')}\n`;
}

/** The edited text without the errors comment `editErrorsComment` put above it. */
export function stripEditErrorsComment(text: string): string {
  const start = text.search(/\S/);
  if (start < 0 || !text.startsWith(EDIT_ERRORS_MARK, start)) return text;
  const end = text.indexOf('-->', start);
  if (end < 0) return text;
  return text.slice(end + 3).replace(/^\r?\n/, '');
}

/** `brv edit`: what was saved. */
export function editText(result: SavedView): string {
  if (result.unchanged) return `Unchanged: ${result.topicPath} already holds exactly this content; nothing committed.`;
  const lines = [`Saved ${result.topicPath} (commit ${shortOid(result.commit ?? '')}).`];
  if (result.review) lines.push(`  review ${result.review.id} opened (brv review pending)`);
  return lines.join('\n');
}
