import path from 'node:path';
import type { CommandModule } from 'yargs';
import { stoppingGit } from '../stop-git-with-brv.js';
import { withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { printJson, printText } from '../output.js';
import { sourceAddedText, sourceRefreshText, sourceRemovedText, sourcesText } from '../../views/worktree.js';

interface AddOptions extends GlobalOptions {
  location: string;
  alias?: string;
  branch?: string;
}

const addCommand: CommandModule<GlobalOptions, AddOptions> = {
  command: 'add <location>',
  describe: "Read another repository's knowledge too (queries include it as origin: shared); it is never written to",
  builder: (y) =>
    y
      .positional('location', { type: 'string', demandOption: true, describe: 'A path to another repository, or any URL git can fetch' })
      .option('alias', { type: 'string', requiresArg: true, describe: 'Name for it (default: the last path segment)' })
      .option('branch', { type: 'string', requiresArg: true, describe: 'Its brv branch to read (default: main)' }),
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
};

interface RemoveOptions extends GlobalOptions {
  source: string;
}

const removeCommand: CommandModule<GlobalOptions, RemoveOptions> = {
  command: 'remove <source>',
  describe: 'Stop reading a knowledge source (by alias or location)',
  builder: (y) => y.positional('source', { type: 'string', demandOption: true, describe: 'Alias or location' }),
  handler: (argv) =>
    withBrv('source remove', argv, async (brv) => {
      const source = await brv.sharing.removeSource({ source: argv.source });
      if (argv.format === 'json') return printJson('source remove', true, source);
      printText(sourceRemovedText(source));
    }),
};

const listCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'list',
  describe: 'Knowledge sources and the tip fetched from each',
  handler: (argv) =>
    withBrv('source list', argv, async (brv) => {
      const sources = await brv.sharing.sources();
      if (argv.format === 'json') return printJson('source list', true, { sources });
      printText(sourcesText(sources));
    }),
};

const refreshCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'refresh',
  describe: 'Fetch every knowledge source again (brv sync does this too)',
  handler: stoppingGit((argv) =>
    withBrv('source refresh', argv, async (brv) => {
      const results = await brv.sharing.refreshSources();
      if (argv.format === 'json') return printJson('source refresh', true, { sources: results });
      printText(sourceRefreshText(results));
    }),
  ),
};

export const sourceCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'source <command>',
  describe: "Other repositories' knowledge, read-only: add, list, remove, refresh",
  builder: (y) =>
    y
      .command(addCommand)
      .command(listCommand)
      .command(removeCommand)
      .command(refreshCommand)
      .demandCommand(1, 'Name a source command: add, list, remove or refresh.'),
  handler: () => {},
};
