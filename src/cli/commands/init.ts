import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { initText } from '../../views/setup.js';
import { branchRef, BRV_REF_PREFIX, DEFAULT_BRANCH, REMOTE_LAYOUTS, type RemoteLayout } from '../../base/ref-names.js';
import { stoppingGit } from '../stop-git-with-brv.js';
import { withSyncProgress } from './vc-remote.js';

interface InitOptions extends GlobalOptions {
  track?: string;
  layout?: RemoteLayout;
}

export const initCommand: CommandModule<GlobalOptions, InitOptions> = {
  command: 'init',
  describe: `Create the context tree (${branchRef(DEFAULT_BRANCH)}) in this git repository, or adopt the remote's; safe to run again`,
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
      })
      .epilog(
        "In a clone whose remote has knowledge (a plain git clone), init adopts it: the brv branch starts at the remote's " +
          '(fetched first unless a git fetch already brought it), never as a second history. Without a remote, or when the ' +
          'remote has no knowledge, init creates the first commit. A remote that cannot be reached is a note: init then starts ' +
          "a branch of its own, and brv sync merges the remote's into it later.",
      ),
  handler: stoppingGit((argv) =>
    withBrv('init', argv, async (brv) => {
      // Tracked first: a remote that does not exist stops init before anything is written.
      const tracked = argv.track ? await brv.sharing.track({ remote: argv.track, layout: argv.layout }) : undefined;
      const result = await withSyncProgress(argv, (onProgress) => brv.setup.init({ remote: argv.track, onProgress }));
      if (argv.format === 'json') return printJson('init', true, { ...result, ...(tracked ? { tracked } : {}) });
      printText(initText(result, tracked));
    }),
  ),
};
