import type { ConflictResolution, ReviewDecision, ReviewList, ReviewShow } from '../service/review.js';
import { shortOid } from './format.js';

type ReviewListView = ReviewList;
type ReviewDecisionView = ReviewDecision;

type Provenance = Pick<ReviewList['tasks'][number], 'author' | 'agent' | 'session' | 'model'>;

/**
 * Who made a reviewed change, as one line: `by Ann <ann@example.com> · agent claude-code · session 3f2a… · model openai/gpt-4o`
 * (what the commit records; empty when it records nothing). Shared by the CLI and the TUI.
 */
export function provenanceText(task: Provenance): string {
  return [
    task.author ? `by ${task.author.name}${task.author.email ? ` <${task.author.email}>` : ''}` : '',
    task.agent ? `agent ${task.agent}` : '',
    task.session ? `session ${task.session}` : '',
    task.model ? `model ${task.model}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** `brv review` / `brv review pending`: each open review with its operations, then what to do. */
export function reviewsText(list: ReviewListView, filtered = false): string {
  if (list.tasks.length === 0) return filtered ? 'No changes awaiting review match the filter.' : 'No changes awaiting review.';
  const lines: string[] = [];
  for (const task of list.tasks) {
    lines.push(`${task.taskId}  ${task.time}  ${task.subject}${task.gated ? '  [held: not on the branch until approved]' : ''}`);
    const who = provenanceText(task);
    if (who) lines.push(`    ${who}`);
    let said: string | undefined;
    for (const op of task.operations) {
      lines.push(`    ${op.type.padEnd(6)} ${op.path}${op.impact ? `  (impact ${op.impact})` : ''}`);
      // One reason for many topics (a held incoming change names everything it removes) is said once.
      if (op.reason && op.reason !== said) lines.push(`           reason: ${op.reason}`);
      said = op.reason;
    }
  }
  lines.push('', 'Approve with brv review approve <id>; undo with brv review reject <id> [--file <path>].');
  // A held pull (src/vc/removal.ts) is decided whole, and "undo" means keeping the topics.
  if (list.tasks.some((task) => task.gated && task.subject.startsWith('hold: ')))
    lines.push(
      'A held pull (hold: …) is decided whole: approve takes it, reject keeps the topics it would remove (see brv review show <id>).',
    );
  if (list.tasks.some((task) => task.gated && task.subject.startsWith('hold: ') && task.subject.endsWith(' not signed by an allowed key')))
    lines.push('A pull held as not signed by an allowed key: approve accepts it this once, reject keeps your branch as it is.');
  return lines.join('\n');
}

/** `brv review approve|reject`: what was decided, per file, and what stays pending. */
export function reviewDecisionText(decision: 'approve' | 'reject', result: ReviewDecisionView): string {
  const lines = [
    `${decision === 'approve' ? 'Approved' : 'Rejected'} ${result.totalCount} change(s) of review ${result.taskId}` +
      (result.commit ? ` (commit ${shortOid(result.commit)})` : '') +
      (result.conflicts.length ? ', with a conflict: not undone cleanly.' : '.'),
  ];
  const conflicted = new Set(result.conflicts);
  for (const file of result.files) {
    const conflict = conflicted.has(file.path.replace(/\.html$/, ''));
    lines.push(`    ${file.path}${conflict ? ' (conflict: kept for review)' : file.reverted ? ' (reverted)' : ''}`);
  }
  if (result.conflicts.length) lines.push(rejectConflictText(result));
  if (result.remaining.length) lines.push(`Still pending: ${result.remaining.join(', ')}`);
  return lines.join('\n');
}

/** What a reject that conflicted with later edits left, and how to finish it (`reject-conflict`). */
export function rejectConflictText(result: ReviewDecisionView): string {
  const topics = result.conflicts.join(', ');
  const id = result.review?.id;
  return (
    `Conflict: a later change edited what review ${result.taskId} changed, so it could not be undone cleanly: ${topics}. ` +
    'Where both changed the same section, the topic keeps both versions, marked; a topic edited since it was added is kept whole. ' +
    (id
      ? `Resolve them in merge review ${id}: brv review show ${id}, then brv review resolve ${id} <topic> --ours|--theirs|--both|--edit (--ours keeps the current text, --theirs the text from before the rejected change; or brv rm <topic>), then brv review approve ${id}.`
      : `Reviews are disabled here, so none was opened: edit the topics with brv edit <topic> (or brv rm <topic>).`)
  );
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
export function reviewConflictsText(result: ReviewShow): string {
  if (result.hold) return holdText(result.taskId, result.subject, result.hold);
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

/** `brv review show` of a held incoming change: every topic it would remove, and the two decisions. */
function holdText(id: string, subject: string, hold: NonNullable<ReviewShow['hold']>): string {
  if (hold.kind === 'untrusted')
    return [
      `${id}  ${subject}`,
      '',
      `Knowledge from ${hold.source} (${shortOid(hold.incoming)}) held for brv branch ${hold.branch}: it has commits not signed by an allowed key (setting sync.requireSigned), and nothing of it is applied yet.`,
      '',
      'Held commits (author: why):',
      ...hold.untrusted.map((line) => `  ${line}`),
      '',
      `Accept it this once with brv review approve ${id}; keep your branch as it is with brv review reject ${id} (the next pull holds it again while ${hold.source} has it).`,
    ].join('\n');
  const lines = [
    `${id}  ${subject}`,
    '',
    `Knowledge from ${hold.source} (${shortOid(hold.incoming)}) held for brv branch ${hold.branch}: nothing of it is applied yet.`,
  ];
  if (hold.deleted.length)
    lines.push('', `It deletes ${hold.deleted.length} of the ${hold.topics} topics:`, ...hold.deleted.map((p) => `  ${p}`));
  if (hold.emptied.length) lines.push('', `It empties ${hold.emptied.length}:`, ...hold.emptied.map((p) => `  ${p}`));
  lines.push(
    '',
    `Take it with brv review approve ${id}; keep the topics with brv review reject ${id} (the rest of it is merged, and the next sync puts the topics back on ${hold.source.split('/')[0]}).`,
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
