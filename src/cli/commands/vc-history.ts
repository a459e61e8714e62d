import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { diffText, gitConfigText, logText, showText, vcStatusText } from '../../views/vc.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface LogOptions extends GlobalOptions {
  limit: number;
  all: boolean;
  path?: string;
}

export const vcLogCommand = tableCommand<LogOptions>(declaration('vc log'), {
  handler: (argv) =>
    withBrv('vc log', argv, async (brv) => {
      const entries = await brv.history.log({ limit: argv.limit, all: argv.all, path: argv.path });
      if (argv.format === 'json') return printJson('vc log', true, { branch: brv.branch, entries });
      printText(logText(brv.branch, entries));
    }),
});

interface DiffOptions extends GlobalOptions {
  range?: string;
  stat: boolean;
  path?: string[];
}

export const vcDiffCommand = tableCommand<DiffOptions>(declaration('vc diff'), {
  handler: (argv) =>
    withBrv('vc diff', argv, async (brv) => {
      const paths = argv.path?.map((p) => p.replace(/\/+$/, '').replace(/\.html$/, ''));
      const result = await brv.history.diff({ range: argv.range, patch: !argv.stat, paths });
      if (argv.format === 'json') return printJson('vc diff', true, result);
      printText(diffText(result));
    }),
});

interface ShowOptions extends GlobalOptions {
  spec?: string;
  stat: boolean;
}

export const vcShowCommand = tableCommand<ShowOptions>(declaration('vc show'), {
  handler: (argv) =>
    withBrv('vc show', argv, async (brv) => {
      const result = await brv.history.show({ spec: argv.spec, patch: !argv.stat });
      if (argv.format === 'json') return printJson('vc show', true, result.kind === 'topic' ? result.topic : result.commit);
      printText(showText(result));
    }),
});

export const vcStatusCommand = tableCommand(declaration('vc status'), {
  handler: (argv) =>
    withBrv('vc status', argv, async (brv) => {
      const status = await brv.history.status();
      if (argv.format === 'json') return printJson('vc status', true, status);
      printText(vcStatusText(status));
    }),
});

interface ConfigOptions extends GlobalOptions {
  key: string;
  value?: string;
}

export const vcConfigCommand = tableCommand<ConfigOptions>(declaration('vc config'), {
  handler: (argv) =>
    withBrv('vc config', argv, async (brv) => {
      const result = await brv.setup.gitConfig({ key: argv.key as 'user.name' | 'user.email', value: argv.value });
      if (argv.format === 'json') return printJson('vc config', true, result);
      printText(gitConfigText(argv.key, result.value));
    }),
});
