import path from 'node:path';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { worktreeAddedText, worktreeRemovedText, worktreesText } from '../../views/worktree.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface AddOptions extends GlobalOptions {
  path: string;
  commitish?: string;
  b?: string;
  'brv-branch'?: string;
  'create-brv-branch': boolean;
}

const addCommand = tableCommand<AddOptions>(declaration('worktree add'), {
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
});

interface RemoveOptions extends GlobalOptions {
  path: string;
  force: boolean;
}

const removeCommand = tableCommand<RemoveOptions>(declaration('worktree remove'), {
  handler: (argv) =>
    withBrv('worktree remove', argv, async (brv) => {
      const result = await brv.setup.removeWorktree({ directory: path.resolve(argv.path), force: argv.force });
      if (argv.format === 'json') return printJson('worktree remove', true, result);
      printText(worktreeRemovedText(result));
    }),
});

const listCommand = tableCommand(declaration('worktree list'), {
  handler: (argv) =>
    withBrv('worktree list', argv, async (brv) => {
      const worktrees = await brv.setup.worktrees();
      if (argv.format === 'json') return printJson('worktree list', true, { worktrees });
      printText(worktreesText(worktrees));
    }),
});

export const worktreeCommand = tableCommand(declaration('worktree'), { subcommands: [addCommand, removeCommand, listCommand] });
