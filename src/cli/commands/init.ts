import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { initText } from '../../views/setup.js';
import type { RemoteLayout } from '../../base/ref-names.js';
import { stoppingGit } from '../stop-git-with-brv.js';
import { withSyncProgress } from './vc-remote.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface InitOptions extends GlobalOptions {
  track?: string;
  layout?: RemoteLayout;
}

export const initCommand = tableCommand<InitOptions>(declaration('init'), {
  handler: stoppingGit((argv) =>
    withBrv('init', argv, async (brv) => {
      // Tracked first: a remote that does not exist stops init before anything is written.
      const tracked = argv.track ? await brv.sharing.track({ remote: argv.track, layout: argv.layout }) : undefined;
      const result = await withSyncProgress(argv, (onProgress) => brv.setup.init({ remote: argv.track, onProgress }));
      if (argv.format === 'json') return printJson('init', true, { ...result, ...(tracked ? { tracked } : {}) });
      printText(initText(result, tracked));
    }),
  ),
});
