import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { shortOid } from '../../views/format.js';

interface BranchOptions extends GlobalOptions {
  name?: string;
  delete?: string;
  force: boolean;
  all: boolean;
}

export const vcBranchCommand: CommandModule<GlobalOptions, BranchOptions> = {
  command: 'branch [name]',
  describe: 'List brv branches, create one at the current tip, or delete one (-d)',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'Create this brv branch at the current tip' })
      .option('delete', { alias: 'd', type: 'string', describe: 'Delete this brv branch (refused if not merged, unless --force)' })
      .option('force', { type: 'boolean', default: false, describe: 'With -d: delete even if not merged' })
      .option('all', { alias: 'a', type: 'boolean', default: false, describe: 'Also list remote-tracking brv branches' })
      .conflicts('name', 'delete'),
  handler: (argv) =>
    withBrv('vc branch', argv, async (brv) => {
      if (argv.delete) {
        const result = await brv.deleteBranch(argv.delete, { force: argv.force });
        if (argv.format === 'json') return printJson('vc branch', true, { deleted: result });
        return printText(`Deleted brv branch ${result.branch} (was ${shortOid(result.commit)}).`);
      }
      if (argv.name) {
        const result = await brv.createBranch(argv.name);
        if (argv.format === 'json') return printJson('vc branch', true, { created: result });
        return printText(
          `Created brv branch ${result.branch} at ${shortOid(result.commit)}. Switch to it with brv vc checkout ${result.branch}.`,
        );
      }
      const branches = await brv.branches({ all: argv.all });
      if (argv.format === 'json') return printJson('vc branch', true, { current: brv.branch, branches });
      if (branches.length === 0) return printText('No brv branches yet: run brv init.');
      printText(
        branches.map((b) => `${b.current ? '*' : ' '} ${b.remote ? `remotes/${b.branch}` : b.branch}  ${shortOid(b.commit)}`).join('\n'),
      );
    }),
};

interface CheckoutOptions extends GlobalOptions {
  branch: string;
  b: boolean;
}

export const vcCheckoutCommand: CommandModule<GlobalOptions, CheckoutOptions> = {
  command: 'checkout <branch>',
  describe: "Switch this worktree's brv branch (curate and query act on it); code checkout is untouched",
  builder: (y) =>
    y
      .positional('branch', { type: 'string', demandOption: true, describe: 'A brv branch (or one only on a remote, to track it)' })
      .option('b', { type: 'boolean', default: false, describe: 'Create the branch at the current tip first' }),
  handler: (argv) =>
    withBrv(
      'vc checkout',
      argv,
      async (brv) => {
        const result = await brv.checkout(argv.branch, { create: argv.b });
        if (argv.format === 'json') return printJson('vc checkout', true, result);
        printText(
          `${result.created ? 'Created and switched' : 'Switched'} to brv branch ${result.branch}${result.commit ? ` (${shortOid(result.commit)})` : ''}.`,
        );
      },
      undefined,
      { repairHead: true }, // checkout is the fix for a damaged brv/HEAD
    ),
};

interface MergeOptions extends GlobalOptions {
  branch: string;
}

export const vcMergeCommand: CommandModule<GlobalOptions, MergeOptions> = {
  command: 'merge <branch>',
  describe: 'Merge a brv branch (or <remote>/<branch>) into the current one, topic by topic; nothing is lost',
  builder: (y) => y.positional('branch', { type: 'string', demandOption: true, describe: 'The brv branch to merge in' }),
  handler: (argv) =>
    withBrv('vc merge', argv, async (brv) => {
      const result = await brv.merge(argv.branch);
      if (argv.format === 'json') return printJson('vc merge', true, result);
      printText(describeMerge(argv.branch, result));
    }),
};

export function describeMerge(
  source: string,
  result: { status: string; commit?: string; merged: string[]; conflicts: string[]; review?: { id: string } },
): string {
  if (result.status === 'up-to-date') return `Already up to date with ${source}.`;
  if (result.status === 'fast-forward') return `Fast-forwarded to ${source} (${shortOid(result.commit)}).`;
  const lines = [`Merged ${source} (commit ${shortOid(result.commit)}).`];
  if (result.merged.length) lines.push(`Merged section by section: ${result.merged.join(', ')}`);
  if (result.conflicts.length) {
    lines.push(`Both versions kept, marked in the topic: ${result.conflicts.join(', ')}`);
    if (result.review) lines.push(`Review opened: brv review pending (id ${result.review.id}).`);
  }
  return lines.join('\n');
}
