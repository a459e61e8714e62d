/**
 * brv's commit metadata lives in git trailers (`Brv-Op: curate`), so `git log` shows it and any git
 * tool can read it. One codec writes and reads them.
 */
import { printable } from '../topic/printable.js';

export type CommitOp =
  | 'init'
  | 'curate'
  | 'delete'
  | 'merge'
  | 'review-approve'
  | 'review-reject'
  | 'review-resolve'
  | 'import'
  | 'edit'
  | 'dream'
  | 'incoming-hold';

export interface CommitMeta {
  op: CommitOp;
  type?: string;
  impact?: string;
  reason?: string;
  summary?: string;
  previousSummary?: string;
  confidence?: string;
  session?: string;
  agent?: string;
  /** The model that wrote the change (`provider/model`): a self-driven curate, a dream. */
  model?: string;
  conflicts?: string[];
  /** The review a decision commit settles, and the files it decided. */
  review?: string;
  files?: string[];
  /** "held": a gated change, on its review ref only until approved. */
  gate?: string;
  /** An incoming-hold commit: the remote branch (`origin/main`) whose knowledge it holds. */
  incoming?: string;
  /** An incoming-hold commit: why it holds (`untrusted`: commits without a good signature by an allowed key; absent: removals). */
  hold?: string;
  /** An untrusted hold: one line per commit held (`<oid> <author>: <why>`). */
  untrusted?: string[];
  /** `brv dream`'s proposals, one per changed topic: `<kind> <file>: <action> — <why>`. */
  proposals?: string[];
  /** What a curate that replaced a topic took out of it, one per line: `fact <subject>`, `rule <text>`, `file <path>`, `section <name>`. */
  removed?: string[];
}

const KEYS: Array<[keyof CommitMeta, string]> = [
  ['op', 'Brv-Op'],
  ['type', 'Brv-Type'],
  ['impact', 'Brv-Impact'],
  ['confidence', 'Brv-Confidence'],
  ['reason', 'Brv-Reason'],
  ['summary', 'Brv-Summary'],
  ['previousSummary', 'Brv-Previous-Summary'],
  ['session', 'Brv-Session'],
  ['agent', 'Brv-Agent'],
  ['model', 'Brv-Model'],
  ['conflicts', 'Brv-Conflicts'],
  ['review', 'Brv-Review'],
  ['files', 'Brv-Files'],
  ['gate', 'Brv-Gate'],
  ['incoming', 'Brv-Incoming'],
  ['proposals', 'Brv-Proposal'],
  ['hold', 'Brv-Hold'],
  ['untrusted', 'Brv-Untrusted'],
  ['removed', 'Brv-Removed'],
];
const LIST_FIELDS = new Set<keyof CommitMeta>(['conflicts', 'files', 'proposals', 'untrusted', 'removed']);

const MAX_VALUE_LENGTH = 500;

/** Trailer values are single lines; anything longer than a sentence belongs in the topic. */
export function oneLine(value: string, max = MAX_VALUE_LENGTH): string {
  const flat = value
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function formatCommitMessage(subject: string, meta: CommitMeta): string {
  const lines: string[] = [];
  for (const [field, key] of KEYS) {
    const value = meta[field];
    if (value === undefined || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value]) lines.push(`${key}: ${oneLine(item)}`);
  }
  return `${oneLine(subject, 200)}\n\n${lines.join('\n')}\n`;
}

/** Longest subject or trailer value kept from a commit read back (brv writes at most 500). */
const MAX_READ_LENGTH = 1000;

/**
 * Text from a commit brv did not necessarily write (a teammate's push, a plumbing commit) as one
 * printable line: every control character (a terminal escape, a bell) and bidirectional override
 * becomes U+FFFD, and it is bounded. Whatever front end shows it, nothing in it reaches a terminal.
 */
export function printableLine(value: string): string {
  const line = printable(value);
  return line.length > MAX_READ_LENGTH ? `${line.slice(0, MAX_READ_LENGTH - 1)}…` : line;
}

export interface ParsedCommitMessage {
  subject: string;
  meta: Partial<CommitMeta>;
}

export function parseCommitMessage(message: string): ParsedCommitMessage {
  const paragraphs = message
    .replace(/\r/g, '')
    .trimEnd()
    .split(/\n{2,}/);
  const subject = printableLine((paragraphs[0] ?? '').split('\n')[0] ?? '');
  const meta: Partial<CommitMeta> = {};
  const last = paragraphs.length > 1 ? paragraphs[paragraphs.length - 1]! : '';
  for (const line of last.split('\n')) {
    const match = /^([A-Za-z-]+):\s?(.*)$/.exec(line);
    if (!match) continue;
    const entry = KEYS.find(([, key]) => key.toLowerCase() === match[1]!.toLowerCase());
    if (!entry) continue;
    const [field] = entry;
    const value = printableLine(match[2]!);
    if (LIST_FIELDS.has(field)) ((meta as Record<string, string[]>)[field] ??= []).push(value);
    else (meta as Record<string, string>)[field] = value;
  }
  return { subject, meta };
}
