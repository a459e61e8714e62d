import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { checkNumbers, type OptionTable } from '../options.js';

interface ViewOptions extends GlobalOptions {
  limit: number;
}

const VIEW_OPTIONS = {
  limit: { type: 'number', default: 10, min: 1, max: 1000, describe: 'How many entries, newest first (1–1000)' },
} as const satisfies OptionTable;

export const curateViewCommand: CommandModule<GlobalOptions, ViewOptions> = {
  command: 'view',
  describe: 'Show the curate history of the current brv branch (read from its commits and trailers)',
  builder: (y) => y.options(VIEW_OPTIONS).check(checkNumbers(VIEW_OPTIONS) as never) as never,
  handler: (argv) =>
    withBrv('curate view', argv, async (brv) => {
      const entries = await brv.history.log({ limit: argv.limit });
      if (argv.format === 'json') return printJson('curate view', true, { branch: brv.branch, entries });
      printText((await import('../../views/curate.js')).curateHistoryText(brv.branch, entries));
    }),
};
