import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';

interface ViewOptions extends GlobalOptions {
  limit: number;
}

export const curateViewCommand: CommandModule<GlobalOptions, ViewOptions> = {
  command: 'view',
  describe: 'Show the curate history of the current brv branch (read from its commits and trailers)',
  builder: (y) => y.option('limit', { type: 'number', default: 10, describe: 'How many entries, newest first (1–1000)' }),
  handler: (argv) =>
    withBrv('curate view', argv, async (brv) => {
      const limit = Math.max(1, Math.min(1000, Math.floor(argv.limit)));
      const entries = await brv.history.log({ limit });
      if (argv.format === 'json') return printJson('curate view', true, { branch: brv.branch, entries });
      printText((await import('../../views/curate.js')).curateHistoryText(brv.branch, entries));
    }),
};
