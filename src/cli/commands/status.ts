import { withBrv } from '../context.js';
import { printJson, printText } from '../output.js';
import { statusText } from '../../views/setup.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

export const statusCommand = tableCommand(declaration('status'), {
  handler: (argv) =>
    withBrv('status', argv, async (brv) => {
      const status = await brv.setup.status();
      if (argv.format === 'json') return printJson('status', true, status);
      printText(statusText(status));
    }),
});
