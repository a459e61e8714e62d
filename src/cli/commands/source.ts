import path from 'node:path';
import { stoppingGit } from '../stop-git-with-brv.js';
import { withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { printJson, printText } from '../output.js';
import { sourceAddedText, sourceRefreshText, sourceRemovedText, sourcesText } from '../../views/worktree.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface AddOptions extends GlobalOptions {
  location: string;
  alias?: string;
  branch?: string;
}

const addCommand = tableCommand<AddOptions>(declaration('source add'), {
  handler: stoppingGit((argv) =>
    withBrv('source add', argv, async (brv) => {
      const source = await brv.sharing.addSource({
        location: argv.location,
        alias: argv.alias,
        branch: argv.branch,
        cwd: path.resolve(cliCwd(argv.C)),
      });
      if (argv.format === 'json') return printJson('source add', true, source);
      printText(sourceAddedText(source));
    }),
  ),
});

interface RemoveOptions extends GlobalOptions {
  source: string;
}

const removeCommand = tableCommand<RemoveOptions>(declaration('source remove'), {
  handler: (argv) =>
    withBrv('source remove', argv, async (brv) => {
      const source = await brv.sharing.removeSource({ source: argv.source });
      if (argv.format === 'json') return printJson('source remove', true, source);
      printText(sourceRemovedText(source));
    }),
});

const listCommand = tableCommand(declaration('source list'), {
  handler: (argv) =>
    withBrv('source list', argv, async (brv) => {
      const sources = await brv.sharing.sources();
      if (argv.format === 'json') return printJson('source list', true, { sources });
      printText(sourcesText(sources));
    }),
});

const refreshCommand = tableCommand<GlobalOptions>(declaration('source refresh'), {
  handler: stoppingGit((argv) =>
    withBrv('source refresh', argv, async (brv) => {
      const results = await brv.sharing.refreshSources();
      if (argv.format === 'json') return printJson('source refresh', true, { sources: results });
      printText(sourceRefreshText(results));
    }),
  ),
});

export const sourceCommand = tableCommand(declaration('source'), { subcommands: [addCommand, listCommand, removeCommand, refreshCommand] });
