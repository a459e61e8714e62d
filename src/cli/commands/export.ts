import path from 'node:path';
import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { printJson, printText } from '../output.js';
import { startProgress } from '../progress.js';
import { exportText } from '../../views/transfer.js';

interface ExportOptions extends GlobalOptions {
  dir: string;
  force: boolean;
  at?: string;
}

export const exportCommand: CommandModule<GlobalOptions, ExportOptions> = {
  command: 'export <dir>',
  describe: "Write the topics as files in ByteRover's layout (<dir>/.brv/context-tree/<path>.html)",
  builder: (y) =>
    y
      .positional('dir', {
        type: 'string',
        demandOption: true,
        describe: 'Project folder to write .brv/context-tree/ into (created if missing)',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Replace an existing non-empty .brv/context-tree (its hidden entries, such as .git/, are kept)',
      })
      .option('at', { type: 'string', describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)' }),
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
};
