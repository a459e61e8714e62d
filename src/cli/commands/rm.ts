import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { removeText } from '../../views/topics.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface RmOptions extends GlobalOptions {
  path: string;
  recursive: boolean;
  reason?: string;
}

export const rmCommand = tableCommand<RmOptions>(declaration('rm'), {
  handler: (argv) =>
    withBrv('rm', argv, async (brv) => {
      const result = await brv.knowledge.remove({ path: argv.path, recursive: argv.recursive, reason: argv.reason }, cliActor());
      if (argv.format === 'json') return printJson('rm', true, result);
      printText(removeText(result));
    }),
});
