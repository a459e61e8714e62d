import type { StaleTopic } from '../setup/hooks/cited.js';
import type { HookFileStatus, InstallChange, UninstallChange } from '../setup/hooks/install.js';
import type { HooksReport, HooksStatusReport } from '../setup/hooks/repository-hooks.js';
import type { IncomingResult } from '../service/sharing.js';
import { shortOid } from './format.js';
import { heldLines, removedLines } from './vc.js';

type InstallReport = HooksReport<InstallChange>;
type UninstallReport = HooksReport<UninstallChange>;

function header(report: HooksReport<unknown>): string {
  return `Hooks directory: ${report.hooksDirectory}${report.hooksPath ? ` (core.hooksPath = ${report.hooksPath})` : ''}`;
}

const INSTALLED: Record<InstallChange['action'], string> = {
  created: 'installed (new hook)',
  added: 'installed (added to your existing hook)',
  updated: 'updated',
  unchanged: 'already installed',
  skipped: 'skipped',
};

const UNINSTALLED: Record<UninstallChange['action'], string> = {
  removed: "removed brv's block (your hook is kept)",
  deleted: 'removed (the hook file held only brv)',
  'not-installed': 'not installed',
  skipped: 'skipped',
};

/** `brv hooks install`: what happened to each hook, how to chain brv from hooks it does not edit. */
export function hooksInstallText(report: InstallReport): string {
  const lines = [header(report)];
  for (const hook of report.hooks) {
    lines.push(`  ${hook.name.padEnd(14)} ${INSTALLED[hook.action]}${hook.reason ? `: ${hook.reason}` : ''}`);
    if (hook.chain) lines.push(`  ${''.padEnd(14)} to chain brv, call from it: ${hook.chain}`);
    if (hook.note) lines.push(`  ${''.padEnd(14)} note: ${hook.note}`);
  }
  for (const line of report.notes) lines.push(`note: ${line}`);
  return lines.join('\n');
}

/** `brv hooks uninstall`. */
export function hooksUninstallText(report: UninstallReport): string {
  const lines = [header(report)];
  for (const hook of report.hooks)
    lines.push(`  ${hook.name.padEnd(14)} ${UNINSTALLED[hook.action]}${hook.reason ? `: ${hook.reason}` : ''}`);
  return lines.join('\n');
}

function hookState(hook: HookFileStatus): string {
  const interpreter = hook.interpreter && hook.interpreter !== 'sh' ? ` (${hook.interpreter})` : '';
  switch (hook.state) {
    case 'installed':
      return `installed${interpreter}${hook.executable ? '' : ' — not executable, so git ignores it'}`;
    case 'outdated':
      return 'outdated — run brv hooks install to update it';
    case 'foreign':
      return `not installed: a hook brv does not edit${interpreter}; call "brv hooks run ${hook.name}" from it`;
    default:
      return hook.exists ? 'not installed (a hook of yours is there; install adds to it)' : 'not installed';
  }
}

/** `brv hooks status`: each hook's state and what pre-commit does. */
export function hooksStatusText(report: HooksStatusReport): string {
  const lines = [header(report), ...report.hooks.map((hook) => `  ${hook.name.padEnd(14)} ${hookState(hook)}`)];
  lines.push(
    `pre-commit:     ${report.preCommit === 'block' ? 'refuses commits that touch cited files' : 'warns only (git config brv.hooks.preCommit block to refuse)'}`,
  );
  for (const line of report.notes) lines.push(`note: ${line}`);
  return lines.join('\n');
}

/**
 * The warning the pre-commit hook prints. The shell block in hooks/pre-commit prints the same text
 * from the cache with awk; keep the two in step.
 */
export function staleWarning(stale: readonly StaleTopic[], mode: 'warn' | 'block'): string {
  const lines = ['brv: staged changes touch files cited by these topics; they may be stale:'];
  for (const { topic, files } of stale.slice(0, 20)) lines.push(`  ${topic} (${files.join(', ')})`);
  if (stale.length > 20) lines.push(`  and ${stale.length - 20} more`);
  lines.push(
    mode === 'block'
      ? 'brv: commit refused (git config brv.hooks.preCommit is block). Update the topics with brv curate, or commit with BRV_SKIP_HOOKS=1.'
      : 'Update them with brv curate, or ignore.',
  );
  return `${lines.join('\n')}\n`;
}

/** What post-merge / post-checkout say when they brought fetched knowledge into the brv branch. */
export function integratedNote(
  branch: string,
  before: string | undefined,
  after: string | undefined,
  merge: Pick<IncomingResult, 'conflicts' | 'removed' | 'held'> | undefined,
  source = 'the fetched knowledge',
): string | undefined {
  // Held: the branch did not move; said on every run while the review is open (it is the reason the hook ran).
  if (merge?.held)
    return heldLines(source, merge.held, merge.removed)
      .map((line) => `brv: ${line}`)
      .join('\n');
  if (after === before) return undefined;
  const conflicts = merge?.conflicts ?? [];
  const kept = conflicts.length > 0 ? ` ${conflicts.length} topic(s) changed on both sides keep both versions for review.` : '';
  return [
    `brv: brv branch ${branch} now includes fetched knowledge (${before ? `${shortOid(before)} -> ` : ''}${shortOid(after)}).${kept}`,
    ...(merge?.removed ? removedLines(merge.removed, 'brv: ') : []),
  ].join('\n');
}
