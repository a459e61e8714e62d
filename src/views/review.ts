import type { ConflictResolution, ReviewConflicts, ReviewDecision, ReviewList } from '../service/review.js';
import { shortOid } from './format.js';

type ReviewListView = ReviewList;
type ReviewDecisionView = ReviewDecision;

/** `brv review` / `brv review pending`: each open review with its operations, then what to do. */
export function reviewsText(list: ReviewListView): string {
  if (list.tasks.length === 0) return 'No changes awaiting review.';
  const lines: string[] = [];
  for (const task of list.tasks) {
    lines.push(`${task.taskId}  ${task.time}  ${task.subject}${task.gated ? '  [held: not on the branch until approved]' : ''}`);
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

function indented(html: string, prefix: string): string[] {
  return html
    .trim()
    .split('\n')
    .map((line) => `${prefix}${line.trim()}`);
}

/** `brv review show <id>`: each topic of the review and the conflicts it still carries, both versions side by side. */
export function reviewConflictsText(result: ReviewConflicts): string {
  const lines = [`${result.taskId}  ${result.subject}`];
  let open = 0;
  for (const topic of result.topics) {
    if (topic.problem) {
      lines.push('', `${topic.path}: not shown (${topic.problem.kind}): ${topic.problem.message}`);
      continue;
    }
    lines.push('', `${topic.path}: ${topic.conflicts.length === 0 ? 'no conflict left' : `${topic.conflicts.length} conflict(s)`}`);
    for (const conflict of topic.conflicts) {
      open++;
      lines.push(`  ${conflict.section}: ${conflict.reason}`);
      if (conflict.ours !== undefined) lines.push('    ours:', ...indented(conflict.ours, '      '));
      if (conflict.theirs !== undefined) lines.push('    theirs:', ...indented(conflict.theirs, '      '));
    }
  }
  lines.push(
    '',
    open === 0
      ? `Nothing left to resolve: approve with brv review approve ${result.taskId}.`
      : `Resolve with brv review resolve ${result.taskId} <topic> [--section <name>] --ours|--theirs|--both|--edit, then brv review approve ${result.taskId}.`,
  );
  return lines.join('\n');
}

/** `brv review resolve`: what was resolved and what is left. */
export function conflictResolutionText(result: ConflictResolution): string {
  const lines = [
    `Resolved ${result.resolved.join(', ')} in ${result.path} (kept ${result.side})${result.commit ? ` in commit ${shortOid(result.commit)}` : ''}.`,
  ];
  lines.push(
    result.remaining.length
      ? `Still to resolve in ${result.path}: ${result.remaining.join(', ')}.`
      : `${result.path} has no conflict left. Approve with brv review approve ${result.taskId} once every topic is resolved.`,
  );
  return lines.join('\n');
}
