import type { ApiFailure, CommitResponse, TopicDiffResponse } from '../api-types.js';
import { str, wire } from './json.js';
// Unified diffs as the pages show them (one line per span, coloured by type), the version pair of the topic
// history, and the API's commit answer read defensively. Pure: no DOM, tested in test/web/client-diff.test.ts.

export type DiffLineKind = 'add' | 'del' | 'hunk' | 'file' | 'note' | 'context';

export interface DiffLine {
  type: DiffLineKind;
  text: string;
}

/**
 * The lines of a unified diff with their types. `---`/`+++` are file headers only outside a hunk: the hunk
 * header's line counts say where a hunk ends, so inside one `---x` is the removed line `--x`.
 */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  // Lines of the current hunk still to come, old side and new side (0 and 0: outside a hunk).
  let oldLeft = 0;
  let newLeft = 0;
  return lines.map((text): DiffLine => {
    if (oldLeft > 0 || newLeft > 0) {
      if (text.startsWith('\\')) return { type: 'note', text };
      if (text.startsWith('+')) {
        newLeft--;
        return { type: 'add', text };
      }
      if (text.startsWith('-')) {
        oldLeft--;
        return { type: 'del', text };
      }
      oldLeft--;
      newLeft--;
      return { type: 'context', text };
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(text);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      return { type: 'hunk', text };
    }
    if (text.startsWith('@@')) return { type: 'hunk', text };
    if (/^(diff |index |Index: |={3,}$|--- |\+\+\+ )/.test(text)) return { type: 'file', text };
    if (text.startsWith('\\')) return { type: 'note', text };
    if (text.startsWith('+')) return { type: 'add', text };
    if (text.startsWith('-')) return { type: 'del', text };
    return { type: 'context', text };
  });
}

/** Lines added and removed (headers and hunk lines not counted). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diffLines(diff)) {
    if (line.type === 'add') added++;
    else if (line.type === 'del') removed++;
  }
  return { added, removed };
}

/**
 * The versions ticked in a topic's history: ticking a third one drops the one ticked first, unticking removes
 * it. At most two, in the order they were ticked.
 */
export function toggleVersion(selected: readonly string[], commit: string): string[] {
  if (selected.includes(commit)) return selected.filter((c) => c !== commit);
  return [...selected, commit].slice(-2);
}

/** The diff to ask for between two ticked versions: older → newer, by their place in the history (newest first). */
export function versionRange(selected: readonly string[], newestFirst: readonly string[]): { from: string; to: string } | null {
  if (selected.length !== 2) return null;
  const [a, b] = selected as [string, string];
  const ia = newestFirst.indexOf(a);
  const ib = newestFirst.indexOf(b);
  if (ia < 0 || ib < 0 || ia === ib) return null;
  return ia > ib ? { from: a, to: b } : { from: b, to: a };
}

/** GET /api/topic/diff?path&from&to */
export function topicDiffHref(path: string, from: string, to?: string): `/api/topic/diff?${string}` {
  const params = new URLSearchParams({ path, from });
  if (to !== undefined) params.set('to', to);
  return `/api/topic/diff?${params.toString()}`;
}

export interface CommitChangeView {
  path: string;
  status: string;
  diff: string;
  /** Why there is no diff: the topic is a blob over the size limit, never read (the server's message). */
  problem?: string;
}

export interface CommitView {
  commit: string;
  time: string;
  author: string;
  subject: string;
  changes: CommitChangeView[];
  /** Topics changed beyond the ones listed (the server lists at most 100 with diffs). */
  omitted: number;
}

/** GET /api/commit?rev= : the commit with the per-topic diffs of its rendered markdown. */
export function readCommit(raw: unknown): CommitView {
  // `oid`, `date`, `filePath`: older shapes, still read.
  const body = wire<CommitResponse, 'oid' | 'date'>(raw);
  const changes = (Array.isArray(body.changes) ? body.changes : []).map((value) => {
    const change = wire<CommitResponse['changes'][number], 'filePath'>(value);
    const path = str(change.path) || str(change.filePath).replace(/\.html$/, '');
    const problem = str(wire<ApiFailure>(change.problem).message);
    return { path, status: str(change.status), diff: str(change.diff), ...(problem ? { problem } : {}) };
  });
  const omitted = body.changesOmitted;
  return {
    commit: str(body.commit) || str(body.oid),
    time: str(body.time) || str(body.date),
    author: str(body.author),
    subject: str(body.subject).split('\n')[0] ?? '',
    changes,
    omitted: typeof omitted === 'number' && omitted > 0 ? omitted : Array.isArray(omitted) ? omitted.length : 0,
  };
}

/** GET /api/topic/diff: the diff text ('' when the versions render the same). */
export function readTopicDiff(raw: unknown): string {
  return str(wire<TopicDiffResponse>(raw).diff);
}
