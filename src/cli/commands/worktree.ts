import path from 'node:path';
import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { worktreeAddedText, worktreeRemovedText, worktreesText } from '../../views/worktree.js';

interface AddOptions extends GlobalOptions {
  path: string;
  commitish?: string;
  b?: string;
  'brv-branch'?: string;
  'create-brv-branch': boolean;
}

const addCommand: CommandModule<GlobalOptions, AddOptions> = {
  command: 'add <path> [commitish]',
  describe: 'git worktree add, and give the new worktree a brv branch (it shares all knowledge of the repository)',
  builder: (y) =>
    y
      .positional('path', { type: 'string', demandOption: true, describe: 'Where the new working tree goes' })
      .positional('commitish', { type: 'string', describe: 'Code to check out there (as for git worktree add)' })
      .option('b', { type: 'string', requiresArg: true, describe: 'Create this git branch for the new worktree' })
      .option('brv-branch', { type: 'string', requiresArg: true, describe: "The new worktree's brv branch (default: this one's)" })
      .option('create-brv-branch', { type: 'boolean', default: false, describe: 'Create --brv-branch from the current brv tip' }),
  handler: (argv) =>
    withBrv('worktree add', argv, async (brv) => {
      const result = await brv.setup.addWorktree({
        directory: path.resolve(argv.path),
        gitBranch: argv.b,
        commitish: argv.commitish,
        brvBranch: argv['brv-branch'],
        createBrvBranch: argv['create-brv-branch'],
      });
      if (argv.format === 'json') return printJson('worktree add', true, result);
      printText(worktreeAddedText(result));
    }),
};

interface RemoveOptions extends GlobalOptions {
  path: string;
  force: boolean;
}

const removeCommand: CommandModule<GlobalOptions, RemoveOptions> = {
  command: 'remove <path>',
  describe: 'git worktree remove (knowledge stays: it lives in the shared refs)',
  builder: (y) =>
    y
      .positional('path', { type: 'string', demandOption: true, describe: 'The worktree to remove' })
      .option('force', { type: 'boolean', default: false, describe: 'Remove even with uncommitted code changes there' }),
  handler: (argv) =>
    withBrv('worktree remove', argv, async (brv) => {
      const result = await brv.setup.removeWorktree({ directory: path.resolve(argv.path), force: argv.force });
      if (argv.format === 'json') return printJson('worktree remove', true, result);
      printText(worktreeRemovedText(result));
    }),
};

const listCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'list',
  describe: 'Worktrees of this repository and the brv branch each works on',
  handler: (argv) =>
    withBrv('worktree list', argv, async (brv) => {
      const worktrees = await brv.setup.worktrees();
      if (argv.format === 'json') return printJson('worktree list', true, { worktrees });
      printText(worktreesText(worktrees));
    }),
};

export const worktreeCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'worktree <command>',
  describe: 'Git worktrees that share this knowledge, each on its own brv branch if you like',
  builder: (y) =>
    y.command(addCommand).command(removeCommand).command(listCommand).demandCommand(1, 'Name a worktree command: add, remove or list.'),
  handler: () => {},
};
