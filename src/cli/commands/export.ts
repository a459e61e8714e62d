import path from 'node:path';
import { withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { printJson, printText } from '../output.js';
import { startProgress } from '../progress.js';
import { exportText } from '../../views/transfer.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface ExportOptions extends GlobalOptions {
  dir: string;
  force: boolean;
  at?: string;
}

export const exportCommand = tableCommand<ExportOptions>(declaration('export'), {
  handler: (argv) =>
    withBrv('export', argv, async (brv) => {
      const progress = startProgress('Exporting topics', argv);
      const result = await brv.knowledge
        .exportTree({
          directory: path.resolve(cliCwd(argv.C), argv.dir),
          force: argv.force,
          at: argv.at,
          onProgress: progress.onProgress,
        })
        .finally(progress.finish);
      if (argv.format === 'json') return printJson('export', true, result);
      printText(exportText(result));
    }),
});
