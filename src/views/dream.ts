import type { DreamResult } from '../service/knowledge.js';
import { printable } from '../topic/printable.js';
import { plural } from './format.js';

type Candidate = DreamResult['candidates'][number];

const STATUS: Record<Candidate['status'], string> = {
  proposed: 'proposed',
  'needs-model': 'needs a model',
  listed: 'listed',
  dropped: 'dropped',
};

function subjects(candidate: Candidate): string {
  switch (candidate.type) {
    case 'merge':
      return `${candidate.topics.join(' + ')} → ${candidate.target}`;
    case 'link':
      return candidate.topics.join(' ↔ ');
    case 'synthesize':
      return `${candidate.folder}/: ${candidate.topics.join(', ')} → ${candidate.target}`;
    case 'stale':
      return `${candidate.topics[0]} (superseded by ${candidate.topics[1]})`;
    default:
      return candidate.topics.join(', ');
  }
}

/**
 * `brv dream`: the candidates (strongest first) with what became of each, the proposals, and the review
 * that holds them with the commands to decide it. Reasons quote topic text: made printable.
 */
export function dreamText(result: DreamResult): string {
  const scope = result.scope ? ` in ${result.scope}/` : '';
  const lines = [
    `Dream over ${plural(result.topics, 'topic')}${scope} (${result.kinds.join(', ')}): ` +
      `${plural(result.candidates.length, 'candidate')}, ${plural(result.proposals.length, 'proposal')}${result.dryRun ? ' (dry run: nothing recorded)' : ''}.`,
  ];
  if (result.candidates.length > 0) {
    lines.push('', 'Candidates:');
    for (const c of result.candidates) {
      lines.push(`  ${c.type.padEnd(10)} ${c.score.toFixed(2)}  ${printable(subjects(c))}  [${STATUS[c.status]}]`);
      lines.push(`             ${printable(c.why)}`);
      if (c.note && c.status !== 'needs-model') lines.push(`             note: ${printable(c.note)}`);
    }
  }
  if (result.proposals.length > 0) {
    lines.push('', result.review ? `Proposals, held for review ${result.review.id} (not on the branch):` : 'Proposals (not recorded):');
    for (const p of result.proposals) lines.push(`  ${p.type.padEnd(10)} ${p.changes.map((c) => `${c.action} ${c.path}`).join(', ')}`);
  }
  if (result.notes.length > 0) lines.push('', ...result.notes.map((n) => `Note: ${printable(n)}`));
  const needsModel = result.candidates.filter((c) => c.status === 'needs-model').length;
  if (needsModel > 0 && !result.dryRun) {
    lines.push(
      '',
      `${plural(needsModel, 'merge/synthesize candidate')} need a model to be proposed: connect one with brv providers connect <provider>.`,
    );
  }
  lines.push('');
  if (result.review) {
    lines.push(
      `Review it: brv review pending`,
      `Apply it:  brv review approve ${result.review.id}`,
      `Discard:   brv review reject ${result.review.id}`,
    );
  } else if (result.dryRun) {
    lines.push(result.proposals.length > 0 ? 'Run without --dry-run to record these proposals for review.' : 'Nothing would be proposed.');
  } else {
    lines.push(result.candidates.length === 0 ? 'Nothing to consolidate: no commit was made.' : 'Nothing proposed: no commit was made.');
  }
  return lines.join('\n');
}
