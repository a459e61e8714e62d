import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText, shortOid } from '../output.js';

export const initCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'init',
  describe: 'Create the context tree (refs/brv/heads/main) in this git repository; safe to run again',
  handler: (argv) =>
    withBrv('init', argv, async (brv) => {
      const result = await brv.init();
      if (argv.format === 'json') return printJson('init', true, result);
      printText(
        result.created
          ? `Initialized brv context tree on ${result.ref} (commit ${shortOid(result.commit)}).`
          : `brv is already initialized on ${result.ref} (tip ${shortOid(result.commit)}).`,
      );
    }),
};
