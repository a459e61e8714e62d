import type { CommandModule } from 'yargs';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { branchCreatedText, branchDeletedText, branchesText, checkoutText, mergeText } from '../../views/vc.js';

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
        const result = await brv.history.deleteBranch({ name: argv.delete, force: argv.force });
        if (argv.format === 'json') return printJson('vc branch', true, { deleted: result });
        return printText(branchDeletedText(result));
      }
      if (argv.name) {
        const result = await brv.history.createBranch({ name: argv.name });
        if (argv.format === 'json') return printJson('vc branch', true, { created: result });
        return printText(branchCreatedText(result));
      }
      const branches = await brv.history.branches({ all: argv.all });
      if (argv.format === 'json') return printJson('vc branch', true, { current: brv.branch, branches });
      printText(branchesText(branches));
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
        const result = await brv.history.checkout({ name: argv.branch, create: argv.b });
        if (argv.format === 'json') return printJson('vc checkout', true, result);
        printText(checkoutText(result));
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
      const result = await brv.history.merge({ source: argv.branch }, cliActor());
      if (argv.format === 'json') return printJson('vc merge', true, result);
      printText(mergeText(argv.branch, result));
    }),
};
