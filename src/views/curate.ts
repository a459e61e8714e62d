import type { CurateEnvelope } from '../curate/envelope.js';
import type { Brv } from '../service/brv.js';
import type { HistoryEntry } from '../store/history.js';
import { renderVocabulary } from '../topic/registry.js';
import { shortOid } from './format.js';

/** What MCP's one-shot write (`Brv.curateHtml`) returns. */
export type CurateHtmlView = Awaited<ReturnType<Brv['curateHtml']>>;

/** `brv curate` for a terminal: the outcome, or the prompt and how to continue the session. */
export function curateText(envelope: CurateEnvelope): string {
  const lines: string[] = [];
  if (envelope.status === 'done') {
    lines.push(
      envelope.unchanged
        ? `Unchanged: ${envelope.topicPath} already holds exactly this content.`
        : `Curated ${envelope.topicPath} (${envelope.type}) in commit ${shortOid(envelope.commit)}.`,
    );
    for (const warning of envelope.warnings ?? []) lines.push(`warning: ${warning}`);
  } else if (envelope.status === 'needs-llm-step') {
    if (envelope.errors?.length) {
      lines.push('The response failed validation:');
      for (const error of envelope.errors) lines.push(`  - ${error.kind}: ${error.message}`);
      lines.push('');
    }
    lines.push(envelope.prompt ?? '', '', `Session: ${envelope.sessionId}`);
    lines.push(`Continue with: brv curate --session ${envelope.sessionId} --response-file <reply.json> [--overwrite]`);
  } else {
    lines.push('Curate failed:');
    for (const error of envelope.errors ?? []) lines.push(`  - ${error.kind}: ${error.message}`);
    if (envelope.sessionId) lines.push(`The session ${envelope.sessionId} is still open; fix the response and continue it.`);
  }
  return lines.join('\n');
}

/**
 * MCP `brv-curate`: what was written, or every error and the element vocabulary so the agent can fix
 * the topic and call again (the front end marks that result `isError`).
 */
export function curateMarkdown(result: CurateHtmlView): string {
  if (result.ok) {
    const verb = result.unchanged
      ? 'Unchanged (identical to the stored topic):'
      : result.type === 'ADD'
        ? 'Wrote topic to'
        : 'Replaced topic at';
    const lines = [`✓ ${verb} ${result.filePath}${result.commit ? ` (commit ${shortOid(result.commit)})` : ''}`];
    const { review } = result;
    if (review) lines.push(`  review ${review.id} opened${review.gated ? ': the change waits for approval' : ''} (brv review pending)`);
    for (const warning of result.warnings) lines.push(`  ⚠ ${warning}`);
    return lines.join('\n');
  }
  const lines = ['The topic was not written. Fix these and call brv-curate again:'];
  for (const error of result.errors) {
    lines.push(`✗ ${error.kind}: ${error.message}`);
    if (error.existingContent) lines.push('Existing topic:', '```html', error.existingContent, '```');
  }
  lines.push('', renderVocabulary());
  return lines.join('\n');
}

/** `brv curate view`: the branch's curate history, newest first. */
export function curateHistoryText(branch: string, entries: HistoryEntry[]): string {
  if (entries.length === 0) return `No history yet on brv branch ${branch}.`;
  const lines: string[] = [];
  for (const entry of entries) {
    const tags = [entry.meta.type, entry.meta.impact && `impact ${entry.meta.impact}`].filter(Boolean).join(', ');
    lines.push(`${shortOid(entry.commit)}  ${entry.time}  ${entry.subject}${tags ? `  [${tags}]` : ''}`);
    if (entry.meta.reason) lines.push(`            reason: ${entry.meta.reason}`);
    for (const change of entry.changes) if (!change.path.startsWith('.brv/')) lines.push(`            ${change.status} ${change.path}`);
  }
  return lines.join('\n');
}
