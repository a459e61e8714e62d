import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { initText } from '../../views/setup.js';

interface InitOptions extends GlobalOptions {
  track?: string;
}

export const initCommand: CommandModule<GlobalOptions, InitOptions> = {
  command: 'init',
  describe: 'Create the context tree (refs/brv/heads/main) in this git repository; safe to run again',
  builder: (y) =>
    y.option('track', {
      type: 'string',
      requiresArg: true,
      describe: 'Also add brv fetch refspecs to this git remote, so a plain git fetch brings knowledge (push stays as it was)',
    }),
  handler: (argv) =>
    withBrv('init', argv, async (brv) => {
      const result = await brv.init();
      const tracked = argv.track ? await brv.track(argv.track) : undefined;
      if (argv.format === 'json') return printJson('init', true, { ...result, ...(tracked ? { tracked } : {}) });
      printText(initText(result, tracked));
    }),
};
