import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { branchCreatedText, branchDeletedText, branchesText, checkoutText, mergeText } from '../../views/vc.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface BranchOptions extends GlobalOptions {
  name?: string;
  delete?: string;
  force: boolean;
  all: boolean;
}

export const vcBranchCommand = tableCommand<BranchOptions>(declaration('vc branch'), {
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
});

interface CheckoutOptions extends GlobalOptions {
  branch: string;
  b: boolean;
}

export const vcCheckoutCommand = tableCommand<CheckoutOptions>(declaration('vc checkout'), {
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
});

interface MergeOptions extends GlobalOptions {
  branch: string;
}

export const vcMergeCommand = tableCommand<MergeOptions>(declaration('vc merge'), {
  handler: (argv) =>
    withBrv('vc merge', argv, async (brv) => {
      const result = await brv.history.merge({ source: argv.branch }, cliActor());
      if (argv.format === 'json') return printJson('vc merge', true, result);
      printText(mergeText(argv.branch, result));
    }),
});
