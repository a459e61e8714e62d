import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { tableCommand } from '../table-yargs.js';
import { CURATE_VIEW } from '../../views/agent-commands.js';

interface ViewOptions extends GlobalOptions {
  limit: number;
}

export const curateViewCommand = tableCommand<ViewOptions>(CURATE_VIEW, {
  handler: (argv) =>
    withBrv('curate view', argv, async (brv) => {
      const entries = await brv.history.log({ limit: argv.limit });
      if (argv.format === 'json') return printJson('curate view', true, { branch: brv.branch, entries });
      printText((await import('../../views/curate.js')).curateHistoryText(brv.branch, entries));
    }),
});
