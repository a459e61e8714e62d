import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { statusText } from '../../views/setup.js';

export const statusCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'status',
  describe: 'Show the repository, brv branch and tip, topic count and open curate sessions',
  handler: (argv) =>
    withBrv('status', argv, async (brv) => {
      const status = await brv.setup.status();
      if (argv.format === 'json') return printJson('status', true, status);
      printText(statusText(status));
    }),
};
