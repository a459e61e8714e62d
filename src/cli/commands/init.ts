import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { initText } from '../../views/setup.js';
import { branchRef, BRV_REF_PREFIX, DEFAULT_BRANCH, REMOTE_LAYOUTS, type RemoteLayout } from '../../store/refs.js';

interface InitOptions extends GlobalOptions {
  track?: string;
  layout?: RemoteLayout;
}

export const initCommand: CommandModule<GlobalOptions, InitOptions> = {
  command: 'init',
  describe: `Create the context tree (${branchRef(DEFAULT_BRANCH)}) in this git repository; safe to run again`,
  builder: (y) =>
    y
      .option('track', {
        type: 'string',
        requiresArg: true,
        describe: 'Also add brv fetch refspecs to this git remote, so a plain git fetch brings knowledge (push stays as it was)',
      })
      .option('layout', {
        choices: REMOTE_LAYOUTS,
        implies: 'track',
        describe: `With --track: where that remote keeps knowledge, refs (${BRV_REF_PREFIX}*, the default) or branches (brv/<branch>, for hosts that accept only branches and tags)`,
      }),
  handler: (argv) =>
    withBrv('init', argv, async (brv) => {
      const result = await brv.setup.init();
      const tracked = argv.track ? await brv.sharing.track({ remote: argv.track, layout: argv.layout }) : undefined;
      if (argv.format === 'json') return printJson('init', true, { ...result, ...(tracked ? { tracked } : {}) });
      printText(initText(result, tracked));
    }),
};
