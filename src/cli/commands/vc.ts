import { vcBranchCommand, vcCheckoutCommand, vcMergeCommand } from './vc-branch.js';
import { vcConfigCommand, vcDiffCommand, vcLogCommand, vcShowCommand, vcStatusCommand } from './vc-history.js';
import { vcCloneCommand, vcFetchCommand, vcPullCommand, vcPushCommand, vcRemoteCommand } from './vc-remote.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

export const vcCommand = tableCommand(declaration('vc'), {
  subcommands: [
    vcStatusCommand,
    vcLogCommand,
    vcDiffCommand,
    vcShowCommand,
    vcBranchCommand,
    vcCheckoutCommand,
    vcMergeCommand,
    vcRemoteCommand,
    vcFetchCommand,
    vcPullCommand,
    vcPushCommand,
    vcCloneCommand,
    vcConfigCommand,
  ],
});
