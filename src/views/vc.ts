import type { BranchInfo, DiffResult, HistoryEntry, ShowResult, VcStatusResult } from '../service/vc.js';
import type { CloneResult } from '../service/service.js';
import type {
  FetchSummary,
  HeldIncoming,
  PullResult,
  LayoutChange,
  PushResult,
  RemoteEntry,
  RemoteLayout,
  RemovedTopics,
  SyncProgress,
  SyncSummary,
} from '../service/sharing.js';
import { markdownInline } from '../topic/inline.js';
import { plural, shortOid } from './format.js';
import { BRV_REF_PREFIX } from '../base/ref-names.js';

type DiffView = DiffResult;
type ShowView = ShowResult;
type VcStatusView = VcStatusResult;
type BranchesView = BranchInfo[];
type FetchView = FetchSummary;
type PushView = PushResult;
type SyncView = SyncSummary;
type CloneView = CloneResult;
type RemotesView = RemoteEntry[];

/** A commit author as markdown: `Name <email>` keeps its address (an email autolink, inert in every renderer), the rest is escaped. */
function authorText(author: string): string {
  const open = author.lastIndexOf(' <');
  const email = open < 0 ? '' : author.slice(open + 2);
  return /^[\w.+-]{1,64}@[A-Za-z\d.-]{1,255}>$/.test(email) ? `${markdownInline(author.slice(0, open))} <${email}` : markdownInline(author);
}

/** `brv vc log`: each commit with its author, subject, trailers and changed topics. */
export function logText(branch: string, entries: HistoryEntry[]): string {
  if (entries.length === 0) return `No commits on brv branch ${branch}.`;
  const lines: string[] = [];
  for (const entry of entries) {
    const tags = [entry.meta.op, entry.meta.type, entry.meta.impact && `impact ${entry.meta.impact}`].filter(Boolean).join(', ');
    lines.push(`${shortOid(entry.commit)}  ${entry.time}  ${authorText(entry.author)}`);
    if (entry.signature) lines.push(`    ${markdownInline(entry.signature.text)}`);
    lines.push(`    ${markdownInline(entry.subject)}${tags ? `  [${markdownInline(tags)}]` : ''}`);
    for (const path of entry.meta.conflicts ?? []) lines.push(`    conflict kept for review: ${markdownInline(path)}`);
    for (const change of entry.changes)
      if (!change.path.startsWith('.brv/')) lines.push(`    ${change.status} ${markdownInline(change.path)}`);
    if (entry.shallow) lines.push('    (shallow clone: the history before this commit is not in this clone)');
  }
  return lines.join('\n');
}

/**
 * Each diff indented four columns after a blank line, as git log indents messages: a unified diff's
 * `+`/`-` prefixes would otherwise turn the rendered markdown's code blocks into list items and
 * paragraphs, live HTML in any Markdown viewer; an indented block is code in every renderer.
 */
function changeLines(changes: DiffView['changes']): string[] {
  const lines: string[] = [];
  for (const change of changes) {
    lines.push(`${change.status.padEnd(8)} ${markdownInline(change.path)}`);
    if (change.diff)
      lines.push(
        '',
        ...change.diff
          .trimEnd()
          .split('\n')
          .map((line) => `    ${line}`),
        '',
      );
    else if (change.problem) lines.push(`    not shown (${change.problem.kind}): ${markdownInline(change.problem.message)}`, '');
  }
  return lines;
}

/** `brv vc diff`: each changed topic, with its diff unless --stat. */
export function diffText(result: DiffView): string {
  if (result.changes.length === 0) return 'No topic changes.';
  return changeLines(result.changes).join('\n');
}

/** `brv vc show`: a commit in `git show` layout, or the topic's content. */
export function showText(result: ShowView): string {
  if (result.kind === 'topic') return result.topic.content;
  const { commit } = result;
  // Subject and trailers are an agent's or a model's words (a commit message may carry a payload).
  const lines = [
    `commit ${commit.commit}`,
    `Author: ${authorText(commit.author)}`,
    `Date:   ${commit.time}`,
    '',
    `    ${markdownInline(commit.subject)}`,
    '',
  ];
  for (const [key, value] of Object.entries(commit.meta))
    lines.push(`    ${markdownInline(key)}: ${markdownInline(Array.isArray(value) ? value.join(', ') : String(value))}`);
  if (Object.keys(commit.meta).length > 0) lines.push('');
  lines.push(...changeLines(commit.changes));
  return lines.join('\n');
}

/** `brv vc status`: the branch, where it stands against its remote, open reviews. */
export function vcStatusText(status: VcStatusView): string {
  const lines = [`On brv branch ${status.branch} (${status.tip ? shortOid(status.tip) : 'no commits yet'})`];
  const where = `${status.remote}/${status.branch}`;
  if (!status.remote) lines.push('No git remote: knowledge is only here. Add one with brv vc remote add origin <url>.');
  else if (!status.tracking && !status.tip)
    lines.push(
      status.fetched
        ? `No knowledge here yet, and ${status.remote} had no brv branch ${status.branch} when brv last fetched: brv init starts one (brv vc fetch ${status.remote} looks again).`
        : `No knowledge here yet, and nothing fetched from ${status.remote}, which may have some: brv init fetches it and starts from it.`,
    );
  else if (!status.tip)
    lines.push(
      `${where} has ${status.behind} commit(s) of knowledge this clone has not taken yet: brv init starts from it (no fetch needed).`,
    );
  else if (!status.tracking)
    lines.push(
      status.fetched
        ? `Not pushed to ${status.remote} yet (brv has not seen ${status.branch} there): brv vc push -u ${status.remote}.`
        : `Nothing fetched from ${status.remote} yet, so brv cannot tell what it has: brv sync fetches, merges and pushes.`,
    );
  else if (status.ahead === 0 && status.behind === 0) lines.push(`Up to date with ${where}.`);
  else if (status.held.some((h) => h.source === where))
    lines.push(`${status.ahead} commit(s) to push, ${status.behind} to pull (${where}), held for review (below).`);
  else if (status.ahead === 0)
    lines.push(`${status.behind} commit(s) to pull from ${where}: brv vc pull takes them (brv sync also pushes).`);
  else lines.push(`${status.ahead} commit(s) to push, ${status.behind} to pull (${where}); brv sync does both.`);
  if (status.remote && status.plainFetch === false)
    lines.push(
      `A plain git pull does not bring knowledge from ${status.remote}: brv init --track ${status.remote} sets that up (so does any brv vc fetch, pull or sync).`,
    );
  for (const hold of status.held)
    lines.push(
      `Held for review ${hold.id}: ${hold.subject}. Decide with brv review approve|reject ${hold.id}; sync pushes nothing meanwhile.`,
    );
  lines.push(
    status.openReviews === 0
      ? 'No open reviews.'
      : `${status.openReviews} open review(s), ${status.pendingChanges} change(s) pending: brv review pending.`,
  );
  return lines.join('\n');
}

/** `brv vc config <key>`: the value, or how to set it. */
export function gitConfigText(key: string, value: string | undefined): string {
  return value ?? `${key} is not set (git config ${key} "…").`;
}

/** `brv vc branch`: the branches, the current one starred. */
export function branchesText(branches: BranchesView): string {
  if (branches.length === 0) return 'No brv branches yet: run brv init.';
  return branches.map((b) => `${b.current ? '*' : ' '} ${b.remote ? `remotes/${b.branch}` : b.branch}  ${shortOid(b.commit)}`).join('\n');
}

/** `brv vc branch <name>`. */
export function branchCreatedText(result: { branch: string; commit?: string }): string {
  return `Created brv branch ${result.branch} at ${shortOid(result.commit)}. Switch to it with brv vc checkout ${result.branch}.`;
}

/** `brv vc branch -d <name>`. */
export function branchDeletedText(result: { branch: string; commit?: string }): string {
  return `Deleted brv branch ${result.branch} (was ${shortOid(result.commit)}).`;
}

/** `brv vc checkout`. */
export function checkoutText(result: { branch: string; commit?: string; created?: boolean }): string {
  return `${result.created ? 'Created and switched' : 'Switched'} to brv branch ${result.branch}${result.commit ? ` (${shortOid(result.commit)})` : ''}.`;
}

/** A merge of `source` into the current branch (`brv vc merge`, `pull`, `sync`). */
export function mergeText(
  source: string,
  result: {
    status: string;
    commit?: string;
    merged: string[];
    conflicts: string[];
    review?: { id: string };
    removed?: RemovedTopics;
    held?: HeldIncoming;
  },
): string {
  if (result.status === 'up-to-date') return `Already up to date with ${source}.`;
  if (result.status === 'held' && result.held) return heldLines(source, result.held, result.removed).join('\n');
  const removed = result.removed ? removedLines(result.removed) : [];
  if (result.status === 'fast-forward') return [`Fast-forwarded to ${source} (${shortOid(result.commit)}).`, ...removed].join('\n');
  const lines = [`Merged ${source} (commit ${shortOid(result.commit)}).`, ...removed];
  if (result.merged.length) lines.push(`Merged section by section: ${result.merged.join(', ')}`);
  if (result.conflicts.length) {
    lines.push(`Both versions kept, marked in the topic: ${result.conflicts.join(', ')}`);
    if (result.review) lines.push(`Review opened: brv review pending (id ${result.review.id}).`);
  }
  return lines.join('\n');
}

/** Topics named in text before "and N more" (JSON lists them all). */
const REMOVED_SHOWN = 10;

function bounded(topics: readonly string[]): string {
  const shown = topics.slice(0, REMOVED_SHOWN).join(', ');
  return topics.length > REMOVED_SHOWN ? `${shown} and ${topics.length - REMOVED_SHOWN} more` : shown;
}

/** What an incoming change removes, for pull, sync, merge and the git hooks; nothing when it removes nothing. */
export function removedLines(removed: RemovedTopics, indent = ''): string[] {
  const lines: string[] = [];
  const count = removed.deleted.length + removed.emptied.length;
  if (count === 0) return lines;
  lines.push(`${indent}It removes ${plural(count, 'topic')}:`);
  if (removed.deleted.length) lines.push(`${indent}  deleted: ${bounded(removed.deleted)}`);
  if (removed.emptied.length) lines.push(`${indent}  emptied: ${bounded(removed.emptied)}`);
  return lines;
}

/** A held incoming change: what it would remove, that nothing moved, and how to decide. */
export function heldLines(source: string, held: HeldIncoming, removed: RemovedTopics | undefined): string[] {
  if (held.kind === 'untrusted') {
    const commits = held.untrusted ?? [];
    return [
      `${held.opened ? 'Held' : 'Still held'}: ${source} has ${plural(commits.length, 'commit')} not signed by an allowed key (setting sync.requireSigned), so brv did not apply it; ` +
        `your topics are unchanged. Review ${held.id}.`,
      ...commits
        .slice(0, REMOVED_SHOWN)
        .map(
          (c) => `  ${shortOid(c.commit)} ${c.author}: ${c.why}${c.signer ? ` (signer ${c.signer})` : ''}${c.key ? ` [key ${c.key}]` : ''}`,
        ),
      ...(commits.length > REMOVED_SHOWN ? [`  and ${commits.length - REMOVED_SHOWN} more`] : []),
      `Look at it with brv review show ${held.id}; accept it this once with brv review approve ${held.id}, or keep your branch as it is with brv review reject ${held.id}.`,
    ];
  }
  const count = removed ? removed.deleted.length + removed.emptied.length : 0;
  return [
    `${held.opened ? 'Held' : 'Still held'}: ${source} would remove ${count} of ${held.topics} topics (${held.rule}), so brv did not apply it; ` +
      `your topics are unchanged. Review ${held.id}.`,
    ...removedLines(removed ?? { deleted: [], emptied: [] }).slice(1),
    `Look at it with brv review pending; take it with brv review approve ${held.id}, or keep the topics with brv review reject ${held.id}.`,
  ];
}

/** `brv vc remote`: name and URL a line. */
export function remotesText(remotes: RemotesView): string {
  return remotes.length
    ? remotes.map((r) => `${r.name}\t${r.url}${r.layout === 'branches' ? '\t(knowledge on branches brv/*)' : ''}`).join('\n')
    : 'No remotes. Add one with brv vc remote add origin <url>.';
}

/** Where a remote in a layout keeps knowledge, in words. */
function layoutWords(layout: RemoteLayout): string {
  return layout === 'branches' ? 'on ordinary branches (brv/<branch>, brv-review/<id>)' : `under ${BRV_REF_PREFIX} (the default)`;
}

/** `brv vc remote set-layout`. */
export function layoutChangedText(result: LayoutChange): string {
  if (result.previous === result.layout) return `${result.name} already keeps knowledge ${layoutWords(result.layout)}.`;
  const lines = [
    `${result.name} now keeps knowledge ${layoutWords(result.layout)}; local brv branches are unchanged.`,
    `brv vc push or brv sync puts it there; nothing on ${result.name} was changed or deleted.`,
  ];
  if (result.tracked.added.length) lines.push(`A plain git fetch from ${result.name} follows the new layout.`);
  return lines.join('\n');
}

/** `brv vc remote add|set-url|remove`. */
export function remoteChangedText(
  action: 'add' | 'set-url' | 'remove',
  result: { name: string; url?: string; tracked?: string[]; layout?: RemoteLayout },
): string {
  if (action === 'remove') return `Removed remote ${result.name}.`;
  const changed =
    `${action === 'add' ? 'Added' : 'Updated'} remote ${result.name} → ${result.url}.` +
    (result.layout === 'branches' ? ` It keeps knowledge ${layoutWords('branches')}.` : '');
  return action === 'add' ? `${changed}\n${trackedLine(result.name)}` : changed;
}

/** Said when brv's fetch refspecs are (now) on a remote. */
function trackedLine(remote: string): string {
  return `A plain git fetch or git pull from ${remote} now brings knowledge too (git push still pushes code only; brv vc push shares knowledge).`;
}

/** Said when a fetch found the remote in the branches layout and chose it. */
function layoutFound(remote: string, fetch: { layoutFound?: RemoteLayout }): string[] {
  return fetch.layoutFound
    ? [
        `${remote} keeps knowledge ${layoutWords(fetch.layoutFound)}: brv now uses that layout for it (brv vc remote set-layout ${remote} changes it).`,
      ]
    : [];
}

/** The line fetch, pull and sync add when they set up the remote for a plain git pull. */
function trackedNow(remote: string, result: { tracked?: string[] }): string[] {
  return result.tracked && result.tracked.length > 0 ? [trackedLine(remote)] : [];
}

/** `brv vc fetch` (refused tips are notes, for stderr: see `refusedNotes`). */
export function fetchText(result: FetchView): string {
  const lines = [...layoutFound(result.remote, result), `Fetched ${result.branches.length} brv branch(es) from ${result.remote}.`];
  if (result.createdBranches.length) lines.push(`New local brv branches: ${result.createdBranches.join(', ')}`);
  if (result.reviews.opened.length) lines.push(`Reviews opened by teammates: ${result.reviews.opened.join(', ')}`);
  if (result.reviews.closed.length) lines.push(`Reviews decided by teammates: ${result.reviews.closed.join(', ')}`);
  lines.push(...trackedNow(result.remote, result));
  return lines.join('\n');
}

/** One note per remote tip that fetch or clone refused. */
export function refusedNotes(refused: { ref: string; message: string }[]): string[] {
  return refused.map((r) => `Refused ${r.ref}: ${r.message}`);
}

/** `brv vc pull`: the merge. */
export function pullText(result: PullResult): string {
  return [
    ...layoutFound(result.remote, result.fetch),
    mergeText(`${result.remote}/${result.branch}`, result.merge),
    ...trackedNow(result.remote, result),
  ].join('\n');
}

/** `brv vc push`. */
export function pushText(result: PushView): string {
  const branch = result.refs.find((r) => r.ref.endsWith(`/heads/${result.branch}`));
  return (
    `${branch?.status === 'up-to-date' ? 'Already up to date on' : 'Pushed brv branch ' + result.branch + ' to'} ${result.remote}.` +
    (result.upstreamSet ? ` Upstream set to ${result.remote}.` : '')
  );
}

/** `brv sync`: the merge, then the push. */
export function syncText(result: SyncView): string {
  const lines: string[] = [...layoutFound(result.remote, result.fetch)];
  if (result.merge) lines.push(mergeText(`${result.remote}/${result.branch}`, result.merge));
  const pushed = result.push.refs.find((r) => r.ref.endsWith(`/heads/${result.branch}`));
  if (result.push.skipped === 'held') lines.push(`Nothing pushed to ${result.remote} until the review is decided; then brv sync again.`);
  else lines.push(pushed?.status === 'ok' ? `Pushed to ${result.remote}.` : `Nothing to push to ${result.remote}.`);
  lines.push(...trackedNow(result.remote, result));
  return lines.join('\n');
}

/** `brv vc clone`. */
export function cloneText(result: CloneView): string {
  return (
    `Cloned into ${result.directory}; brv branches: ${result.branches.length ? result.branches.join(', ') : 'none yet (run brv init)'}.` +
    ` A plain git fetch now brings knowledge too.` +
    (result.layout === 'branches' ? ` origin keeps knowledge ${layoutWords('branches')}.` : '')
  );
}

/** One step of a fetch, pull, push or sync, for a progress line. */
export function syncStepText(step: SyncProgress): string {
  const again = step.attempt > 1 ? ` (attempt ${step.attempt}: the remote moved meanwhile)` : '';
  if (step.step === 'fetch') return `Fetching knowledge from ${step.remote}…${again}`;
  if (step.step === 'merge') return `Merging ${step.remote}/${step.branch} into ${step.branch}…${again}`;
  return `Pushing ${step.branch} to ${step.remote}…${again}`;
}

/** git's transfer within a sync step, for a progress line: `Receiving objects 45% (450/1000)`. */
export function syncTransferText(step: SyncProgress): { phase: string; text: string } | undefined {
  const t = step.transfer;
  if (!t) return undefined;
  const phase = `${t.remote ? 'remote: ' : ''}${t.phase}`;
  const count = t.total ? `${Math.floor((t.done / Math.max(t.total, 1)) * 100)}% (${t.done}/${t.total})` : `${t.done}`;
  return { phase, text: `${phase} ${count}` };
}
