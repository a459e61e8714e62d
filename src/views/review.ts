import type { ReviewDecision, ReviewList } from '../service/review.js';
import { shortOid } from './format.js';

type ReviewListView = ReviewList;
type ReviewDecisionView = ReviewDecision;

/** `brv review` / `brv review pending`: each open review with its operations, then what to do. */
export function reviewsText(list: ReviewListView): string {
  if (list.tasks.length === 0) return 'No changes awaiting review.';
  const lines: string[] = [];
  for (const task of list.tasks) {
    lines.push(`${task.taskId}  ${task.subject}${task.gated ? '  [waiting: not on the branch until approved]' : ''}`);
    for (const op of task.operations) {
      lines.push(`    ${op.type.padEnd(6)} ${op.path}${op.impact ? `  (impact ${op.impact})` : ''}`);
      if (op.reason) lines.push(`           reason: ${op.reason}`);
    }
  }
  lines.push('', 'Approve with brv review approve <id>; undo with brv review reject <id> [--file <path>].');
  return lines.join('\n');
}

/** `brv review approve|reject`: what was decided, per file, and what stays pending. */
export function reviewDecisionText(decision: 'approve' | 'reject', result: ReviewDecisionView): string {
  const lines = [
    `${decision === 'approve' ? 'Approved' : 'Rejected'} ${result.totalCount} change(s) of review ${result.taskId}` +
      (result.commit ? ` (commit ${shortOid(result.commit)}).` : '.'),
  ];
  for (const file of result.files) lines.push(`    ${file.path}${file.reverted ? ' (reverted)' : ''}`);
  if (result.remaining.length) lines.push(`Still pending: ${result.remaining.join(', ')}`);
  return lines.join('\n');
}

/** `brv review --enable|--disable`. */
export function reviewToggleText(enabled: boolean): string {
  return `Reviews ${enabled ? 'enabled' : 'disabled'} for this repository.`;
}
