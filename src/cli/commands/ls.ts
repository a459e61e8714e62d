import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { listText } from '../../views/topics.js';

interface LsOptions extends GlobalOptions {
  prefix?: string;
  at?: string;
}

export const lsCommand: CommandModule<GlobalOptions, LsOptions> = {
  command: 'ls [prefix]',
  describe: 'List the topics of the context tree, or of one folder',
  builder: (y) =>
    y
      .positional('prefix', { type: 'string', describe: 'A folder, e.g. security/' })
      .option('at', { type: 'string', describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)' }),
  handler: (argv) =>
    withBrv('ls', argv, async (brv) => {
      const result = await brv.knowledge.list({ prefix: argv.prefix, at: argv.at });
      if (argv.format === 'json') return printJson('ls', true, result);
      printText(listText(result));
    }),
};
