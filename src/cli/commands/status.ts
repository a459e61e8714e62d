import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { shortOid } from '../../views/format.js';

export const statusCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'status',
  describe: 'Show the repository, brv branch and tip, topic count and open curate sessions',
  handler: (argv) =>
    withBrv('status', argv, async (brv) => {
      const status = await brv.status();
      if (argv.format === 'json') return printJson('status', true, status);
      printText(
        [
          `Repository:     ${status.repository}${status.bare ? ' (bare)' : ''}`,
          `brv branch:     ${status.branch} (${status.ref})`,
          `Tip:            ${status.initialized ? shortOid(status.tip) : 'none yet — run "brv init" or curate a topic'}`,
          `Topics:         ${status.topics}`,
          `Open sessions:  ${status.openSessions}`,
          `git:            ${status.gitVersion}`,
        ].join('\n'),
      );
    }),
};
