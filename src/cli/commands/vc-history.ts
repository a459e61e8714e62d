import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { checkNumbers } from '../options.js';
import { diffText, gitConfigText, logText, showText, vcStatusText } from '../../views/vc.js';

interface LogOptions extends GlobalOptions {
  limit: number;
  all: boolean;
  path?: string;
}

export const vcLogCommand: CommandModule<GlobalOptions, LogOptions> = {
  command: 'log [path]',
  describe: 'Commits of the current brv branch (or of all with --all), newest first, with their trailers',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Only commits that changed this topic or folder' })
      .option('limit', { alias: 'n', type: 'number', default: 10, describe: 'How many commits (1–10000)' })
      .option('all', { type: 'boolean', default: false, describe: 'Every local brv branch' })
      .check(checkNumbers({ limit: { type: 'number', min: 1, max: 10000 } }) as never),
  handler: (argv) =>
    withBrv('vc log', argv, async (brv) => {
      const entries = await brv.history.log({ limit: argv.limit, all: argv.all, path: argv.path });
      if (argv.format === 'json') return printJson('vc log', true, { branch: brv.branch, entries });
      printText(logText(brv.branch, entries));
    }),
};

interface DiffOptions extends GlobalOptions {
  range?: string;
  stat: boolean;
  path?: string[];
}

export const vcDiffCommand: CommandModule<GlobalOptions, DiffOptions> = {
  command: 'diff [range]',
  describe: 'Topics added, removed and changed between brv commits, with a diff of each changed topic',
  builder: (y) =>
    y
      .positional('range', {
        type: 'string',
        describe: 'Nothing: the last commit; <rev>: from rev to the tip; <a>..<b>: between two (branches, commits, main~2, dates)',
      })
      .option('stat', { type: 'boolean', default: false, describe: 'Only list the changed topics' })
      .option('path', { type: 'string', array: true, describe: 'Only these topics or folders' }),
  handler: (argv) =>
    withBrv('vc diff', argv, async (brv) => {
      const paths = argv.path?.map((p) => p.replace(/\/+$/, '').replace(/\.html$/, ''));
      const result = await brv.history.diff({ range: argv.range, patch: !argv.stat, paths });
      if (argv.format === 'json') return printJson('vc diff', true, result);
      printText(diffText(result));
    }),
};

interface ShowOptions extends GlobalOptions {
  spec?: string;
  stat: boolean;
}

export const vcShowCommand: CommandModule<GlobalOptions, ShowOptions> = {
  command: 'show [spec]',
  describe: 'One brv commit and its topic changes, or <rev>:<path> for a topic as it was then',
  builder: (y) =>
    y
      .positional('spec', { type: 'string', describe: 'A brv commit, branch (main~1), tag or date; or <rev>:<topic path>' })
      .option('stat', { type: 'boolean', default: false, describe: 'List changed topics without their diffs' }),
  handler: (argv) =>
    withBrv('vc show', argv, async (brv) => {
      const result = await brv.history.show({ spec: argv.spec, patch: !argv.stat });
      if (argv.format === 'json') return printJson('vc show', true, result.kind === 'topic' ? result.topic : result.commit);
      printText(showText(result));
    }),
};

export const vcStatusCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'status',
  describe: 'The brv branch, how far it is ahead of / behind its remote, and open reviews',
  handler: (argv) =>
    withBrv('vc status', argv, async (brv) => {
      const status = await brv.history.status();
      if (argv.format === 'json') return printJson('vc status', true, status);
      printText(vcStatusText(status));
    }),
};

interface ConfigOptions extends GlobalOptions {
  key: string;
  value?: string;
}

export const vcConfigCommand: CommandModule<GlobalOptions, ConfigOptions> = {
  command: 'config <key> [value]',
  describe: "Read or set the author of brv commits (the repository's git user.name / user.email)",
  builder: (y) =>
    y
      .positional('key', { choices: ['user.name', 'user.email'] as const, demandOption: true, describe: 'user.name or user.email' })
      .positional('value', { type: 'string', describe: 'New value (omit to read)' }),
  handler: (argv) =>
    withBrv('vc config', argv, async (brv) => {
      const result = await brv.setup.gitConfig({ key: argv.key as 'user.name' | 'user.email', value: argv.value });
      if (argv.format === 'json') return printJson('vc config', true, result);
      printText(gitConfigText(argv.key, result.value));
    }),
};
