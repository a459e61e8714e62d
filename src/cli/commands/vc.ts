import type { CommandModule } from 'yargs';
import type { GlobalOptions } from '../context.js';
import { vcBranchCommand, vcCheckoutCommand, vcMergeCommand } from './vc-branch.js';
import { vcConfigCommand, vcDiffCommand, vcLogCommand, vcShowCommand, vcStatusCommand } from './vc-history.js';
import { vcCloneCommand, vcFetchCommand, vcPullCommand, vcPushCommand, vcRemoteCommand } from './vc-remote.js';

export const vcCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'vc <command>',
  describe: 'Version control of the knowledge: log, diff, branches, merge, remotes, push/pull (git underneath)',
  builder: (y) =>
    y
      .command(vcStatusCommand)
      .command(vcLogCommand as never)
      .command(vcDiffCommand as never)
      .command(vcShowCommand as never)
      .command(vcBranchCommand as never)
      .command(vcCheckoutCommand as never)
      .command(vcMergeCommand as never)
      .command(vcRemoteCommand as never)
      .command(vcFetchCommand as never)
      .command(vcPullCommand as never)
      .command(vcPushCommand as never)
      .command(vcCloneCommand as never)
      .command(vcConfigCommand as never)
      .demandCommand(1, 'Name a vc command (see brv vc --help).'),
  handler: () => {},
};
