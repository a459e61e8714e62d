import type { HistoryEntry } from '../service/vc.js';
import type { CurateAutoProgress, CurateAutoResult, CurateHtmlResult, CurateResult as CurateEnvelope } from '../service/knowledge.js';
import { branchRef } from '../base/ref-names.js';
import { errorMarkdown } from './errors.js';
import { markdownInline } from '../topic/inline.js';
import { renderVocabulary } from '../topic/registry.js';
import { shortOid } from './format.js';
import type { RemovedContent } from '../topic/removed.js';

type CurateHtmlView = CurateHtmlResult;

/** `brv curate` for a terminal: the outcome, or the prompt and how to continue the session. */
export function curateText(envelope: CurateEnvelope): string {
  const lines: string[] = [];
  if (envelope.status === 'done') {
    const { review } = envelope;
    if (review?.gated) lines.push(heldLine(envelope.topicPath ?? '', review.id, envelope.unchanged ?? false));
    else {
      lines.push(
        envelope.unchanged
          ? `Unchanged: ${envelope.topicPath} already holds exactly this content.`
          : `Curated ${envelope.topicPath} (${envelope.type}) in commit ${shortOid(envelope.commit)}.`,
      );
      if (review) lines.push(`Review ${review.id} opened: a person looks at this change (brv review pending).`);
    }
    if (envelope.removed) lines.push(removedText(envelope.topicPath ?? '', envelope.removed));
    for (const warning of envelope.warnings ?? []) lines.push(`warning: ${warning}`);
  } else if (envelope.status === 'needs-llm-step') {
    if (envelope.errors?.length) {
      lines.push('The response failed validation:');
      for (const error of envelope.errors) lines.push(`  - ${located(error)}${error.kind}: ${error.message}`);
      lines.push('');
    }
    lines.push(envelope.prompt ?? '', '', `Session: ${envelope.sessionId}`);
    lines.push(`Continue with: brv curate --session ${envelope.sessionId} --response-file <reply.json> [--overwrite]`);
  } else {
    lines.push('Curate failed:');
    for (const error of envelope.errors ?? []) lines.push(`  - ${located(error)}${error.kind}: ${error.message}`);
    if (envelope.sessionId) lines.push(`The session ${envelope.sessionId} is still open; fix the response and continue it.`);
  }
  return lines.join('\n');
}

/** What replacing a topic took out of it, counted and named: `Removed from security/jwt: 1 fact (ttl), 2 files (a.ts, b.ts).` */
export function removedText(topicPath: string, removed: RemovedContent): string {
  const part = (names: string[], one: string, many: string) =>
    names.length === 0 ? [] : [`${names.length} ${names.length === 1 ? one : many} (${names.map((n) => clip(n, 60)).join(', ')})`];
  const parts = [
    ...part(removed.facts, 'fact', 'facts'),
    ...part(removed.rules, 'rule', 'rules'),
    ...part(removed.files, 'file', 'files'),
    ...part(removed.sections, 'section', 'sections'),
  ];
  return `Removed from ${topicPath}: ${parts.join(', ')}.`;
}

/** `line 5:3: ` where the error's element starts in the HTML sent, or nothing. */
function located(error: { line?: number; column?: number }): string {
  return error.line === undefined ? '' : `line ${error.line}${error.column === undefined ? '' : `:${error.column}`}: `;
}

/** A change held by review.gate: not on the branch, and which review to approve. */
function heldLine(topicPath: string, id: string, unchanged: boolean): string {
  return unchanged
    ? `Held (unchanged): ${topicPath} with exactly this content already waits for review ${id}; nothing new was recorded. A person approves it with brv review approve ${id}.`
    : `Held for review ${id}: ${topicPath} is not on the branch until a person approves it (brv review approve ${id}).`;
}

/**
 * MCP `brv-curate`: what was written, or every error and the element vocabulary so the agent can fix
 * the topic and call again (the front end marks that result `isError`).
 */
export function curateMarkdown(result: CurateHtmlView): string {
  if (result.ok && result.review?.gated) {
    return [
      heldLine(result.topicPath, result.review.id, result.unchanged),
      ...(result.removed ? [`  ${removedText(result.topicPath, result.removed)}`] : []),
      ...result.warnings.map((w) => `  ⚠ ${w}`),
    ].join('\n');
  }
  if (result.ok) {
    const verb = result.unchanged
      ? 'Unchanged (identical to the stored topic):'
      : result.type === 'ADD'
        ? 'Wrote topic to'
        : 'Replaced topic at';
    const lines = [`✓ ${verb} ${result.filePath}${result.commit ? ` (commit ${shortOid(result.commit)})` : ''}`];
    const { review } = result;
    if (review) lines.push(`  review ${review.id} opened${review.gated ? ': the change waits for approval' : ''} (brv review pending)`);
    if (result.removed) lines.push(`  ${removedText(result.topicPath, result.removed)}`);
    for (const warning of result.warnings) lines.push(`  ⚠ ${warning}`);
    return lines.join('\n');
  }
  const lines = ['The topic was not written. Fix these and call brv-curate again:'];
  for (const error of result.errors) {
    lines.push(errorMarkdown(error.kind, error.message));
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
    // An agent's or a model's words (subject, reason), escaped as in vc log.
    lines.push(`${shortOid(entry.commit)}  ${entry.time}  ${markdownInline(entry.subject)}${tags ? `  [${markdownInline(tags)}]` : ''}`);
    if (entry.meta.reason) lines.push(`            reason: ${markdownInline(entry.meta.reason)}`);
    for (const change of entry.changes)
      if (!change.path.startsWith('.brv/')) lines.push(`            ${change.status} ${markdownInline(change.path)}`);
  }
  return lines.join('\n');
}

/** MCP's `brv-curate` tool description: the protocol in one screen, with the element vocabulary. */
export function curateToolDescription(): string {
  return [
    "Record what you learned in this project's brv context tree, as one topic (an HTML document), in one call.",
    `The topic is validated, stored as a git commit on ${branchRef('<branch>')}, and found by brv-query right away.`,
    '',
    'Path: "domain/topic" (or domain/topic/subtopic), lower-case words with - or _, e.g. security/jwt-signing. Reuse existing domains (brv-list).',
    'Name it after what it is about: a question word found in a path ranks that topic higher.',
    'A topic already at that path is refused with path-exists and its content: merge your knowledge into it and call again with confirmOverwrite: true.',
    'meta (optional): {"impact": "low"|"high", "reason": "why", "summary": "one line"}; impact "high" opens a human review.',
    '',
    'Example:',
    '<bv-topic path="security/jwt" title="JWT signing" summary="RS256, monthly key rotation" tags="auth,jwt">',
    '  <bv-rule severity="must">Sign JWTs with RS256.</bv-rule>',
    '  <bv-fact subject="key_rotation" category="project" value="monthly">Signing keys rotate monthly.</bv-fact>',
    '  <bv-reason>Agreed in the auth review.</bv-reason>',
    '</bv-topic>',
    '',
    'On failure the result lists every error as "✗ <kind>: <message>" followed by the vocabulary, so you can fix and resend.',
    '',
    renderVocabulary(),
  ].join('\n');
}

/** A self-driven curate's step (`brv curate` with a model, the TUI's /curate): one line, then the errors a correction fixes. */
export function curateAutoStepText(event: Extract<CurateAutoProgress, { event: 'step' }>): string {
  const attempt = `attempt ${event.attempt} of ${event.of}`;
  if (event.step === 'generate-html') return `Asking the model to write the topic (${attempt})…`;
  const lines = [`Asking the model to correct the topic (${attempt}):`];
  for (const error of event.errors.slice(0, 8)) lines.push(`  - ${located(error)}${error.kind}: ${clip(error.message, 200)}`);
  if (event.errors.length > 8) lines.push(`  - … ${event.errors.length - 8} more`);
  return lines.join('\n');
}

/** One line for a busy indicator (the TUI's): the step, its attempt, what it corrects, the characters received. */
export function curateAutoProgressLine(event: CurateAutoProgress): string {
  const attempt = `attempt ${event.attempt}`;
  if (event.event === 'received') return `${attempt}: ${event.characters.toLocaleString('en-US')} characters received`;
  if (event.event === 'writing') return `${attempt}: checking and writing the topic`;
  if (event.step === 'generate-html') return `asking the model (${attempt} of ${event.of})`;
  const kinds = [...new Set(event.errors.map((e) => e.kind))].join(', ');
  return `asking the model to correct ${kinds || 'the topic'} (${attempt} of ${event.of})`;
}

/** Progress within a model call: the characters received so far. */
export function curateAutoReceivedText(characters: number): string {
  return `receiving the reply: ${characters.toLocaleString('en-US')} characters`;
}

/** What a self-driven curate attached and left out, for stderr (the result itself is curateText's). */
export function curateAutoNotes(result: Pick<CurateAutoResult, 'attached' | 'skipped'>): string[] {
  const lines: string[] = [];
  if (result.attached.length > 0) lines.push(`Attached: ${result.attached.join(', ')}`);
  for (const { mention, reason } of result.skipped) lines.push(`Not attached: @${clip(mention, 120)}: ${reason}.`);
  return lines;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
