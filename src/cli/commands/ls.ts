import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { listText } from '../../views/topics.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface LsOptions extends GlobalOptions {
  prefix?: string;
  at?: string;
}

export const lsCommand = tableCommand<LsOptions>(declaration('ls'), {
  handler: (argv) =>
    withBrv('ls', argv, async (brv) => {
      const result = await brv.knowledge.list({ prefix: argv.prefix, at: argv.at });
      if (argv.format === 'json') return printJson('ls', true, result);
      printText(listText(result));
    }),
});
