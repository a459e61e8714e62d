import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { readText } from '../../views/topics.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface ReadOptions extends GlobalOptions {
  path: string;
  raw: boolean;
  at?: string;
}

export const readCommand = tableCommand<ReadOptions>(declaration('read'), {
  handler: (argv) =>
    withBrv('read', argv, async (brv) => {
      const result = await brv.knowledge.read({ path: argv.path, raw: argv.raw, at: argv.at });
      if (argv.format === 'json') return printJson('read', true, result);
      printText(readText(result));
    }),
});
