import type { AddWorktreeResult, WorktreeInfo } from '../service/setup.js';
import type { Source, SourceRefresh } from '../service/sharing.js';
import { shortOid } from './format.js';

/** `brv worktree add`. */
export function worktreeAddedText(result: AddWorktreeResult): string {
  return `Created worktree ${result.path}${result.gitBranch ? ` on git branch ${result.gitBranch}` : ''}; its brv branch is ${result.brvBranch}.`;
}

/** `brv worktree remove`. */
export function worktreeRemovedText(result: { path: string }): string {
  return `Removed worktree ${result.path}.`;
}

/** `brv worktree list`: each worktree, its git branch and its brv branch; the current one starred. */
export function worktreesText(worktrees: WorktreeInfo[]): string {
  return worktrees
    .map(
      (w) =>
        `${w.current ? '*' : ' '} ${w.path}  git: ${w.bare ? '(bare)' : (w.gitBranch ?? '(detached)')}  brv: ${w.brvBranch ?? '(unreadable brv/HEAD: run brv vc checkout <branch> there)'}`,
    )
    .join('\n');
}

/** `brv source add`. */
export function sourceAddedText(source: { alias: string; url: string; commit?: string }): string {
  return `Added knowledge source ${source.alias} (${source.url}, ${shortOid(source.commit)}). brv sync refreshes it.`;
}

/** `brv source remove`. */
export function sourceRemovedText(source: { alias: string }): string {
  return `Removed knowledge source ${source.alias}.`;
}

/** `brv source list`: alias, location, branch and fetched tip, tab-separated. */
export function sourcesText(sources: Source[]): string {
  if (sources.length === 0) return 'No knowledge sources. Add one with brv source add <path-or-url>.';
  return sources.map((s) => `${s.alias}\t${s.url}\t${s.branch}\t${shortOid(s.commit)}`).join('\n');
}

/** `brv source refresh`: each source's new tip or why it failed. */
export function sourceRefreshText(results: SourceRefresh[]): string {
  return results.map((r) => `${r.alias}\t${r.error ? `failed: ${r.error}` : shortOid(r.commit)}`).join('\n') || 'No knowledge sources.';
}
