import path from 'node:path';
import { withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { printJson, printText } from '../output.js';
import { publishText } from '../../views/publish.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface PublishOptions extends GlobalOptions {
  toDir?: string;
  toBranch?: string;
  force: boolean;
  source?: string;
  at?: string;
}

export const publishCommand = tableCommand<PublishOptions>(declaration('publish'), {
  handler: (argv) =>
    withBrv('publish', argv, async (brv) => {
      const result = await brv.sharing.publish({
        toDir: argv.toDir === undefined ? undefined : path.resolve(cliCwd(argv.C), argv.toDir),
        toBranch: argv.toBranch,
        force: argv.force,
        source: argv.source,
        at: argv.at,
      });
      if (argv.format === 'json') return printJson('publish', true, result);
      printText(publishText(result));
    }),
});
