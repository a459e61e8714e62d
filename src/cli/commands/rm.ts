import type { CommandModule } from 'yargs';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { removeText } from '../../views/topics.js';

interface RmOptions extends GlobalOptions {
  path: string;
  recursive: boolean;
  reason?: string;
}

export const rmCommand: CommandModule<GlobalOptions, RmOptions> = {
  command: 'rm <path>',
  describe: 'Remove a topic (or a folder of topics with --recursive) in one DELETE commit',
  builder: (y) =>
    y
      .positional('path', { type: 'string', demandOption: true, describe: 'Topic path, e.g. security/auth (".html" optional)' })
      .option('recursive', { alias: 'r', type: 'boolean', default: false, describe: 'Remove every topic under a folder' })
      .option('reason', { type: 'string', describe: 'Why, recorded in the commit (Brv-Reason)' }),
  handler: (argv) =>
    withBrv('rm', argv, async (brv) => {
      const result = await brv.knowledge.remove({ path: argv.path, recursive: argv.recursive, reason: argv.reason }, cliActor());
      if (argv.format === 'json') return printJson('rm', true, result);
      printText(removeText(result));
    }),
};
