import type { KeyStorage, Providers } from '../../service/service.js';
import { cliService, reportingErrors, type GlobalOptions } from '../context.js';
import { EXIT_USAGE, note, printError, printJson, printText } from '../output.js';
import { readStdin } from '../stdin.js';
import { cliIo } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface SubOptions extends GlobalOptions {
  command?: string;
}

interface ProviderOptions extends GlobalOptions {
  provider: string;
}

interface ConnectOptions extends ProviderOptions {
  model?: string;
  'base-url'?: string;
  'api-key'?: string;
  'key-storage'?: KeyStorage;
  'embedding-model'?: string;
  use?: boolean;
}

function withProviders(command: string, argv: GlobalOptions, run: (providers: Providers) => Promise<void>): Promise<void> {
  return reportingErrors(command, argv, async () => run(await (await cliService()).providers()));
}

const views = () => import('../../views/providers.js');

const listCommand = tableCommand(declaration('providers list'), {
  handler: (argv) => withProviders('providers list', argv, (p) => printList(p, argv, 'providers list')),
});

async function printList(providers: Providers, argv: GlobalOptions, command: string): Promise<void> {
  const list = await providers.list();
  if (argv.format === 'json') return printJson(command, true, list);
  printText((await views()).providerListText(list));
}

const connectCommand = tableCommand<ConnectOptions>(declaration('providers connect'), {
  handler: (argv) =>
    withProviders('providers connect', argv, async (providers) => {
      let apiKey = argv['api-key'];
      if (apiKey === '-') apiKey = (await readStdin(64 * 1024)).toString('utf8').trim();
      else if (apiKey !== undefined && argv.format === 'text') {
        note('warning: a key given on the command line can stay in your shell history; --api-key - reads it from standard input.');
      } else if (apiKey === undefined && argv.format === 'text' && cliIo().stdin.isTTY && cliIo().stderr.isTTY) {
        apiKey = await askForKey(providers, argv.provider);
      }
      const result = await providers.connect({
        provider: argv.provider,
        model: argv.model,
        baseUrl: argv['base-url'],
        apiKey,
        keyStorage: argv['key-storage'],
        embeddingModel: argv['embedding-model'],
        activate: argv.use,
      });
      if (argv.format === 'json') return printJson('providers connect', true, result);
      printText((await views()).connectText(result));
    }),
});

const switchCommand = tableCommand<ProviderOptions>(declaration('providers switch'), {
  handler: (argv) =>
    withProviders('providers switch', argv, async (providers) => {
      const entry = await providers.switch({ provider: argv.provider });
      if (argv.format === 'json') return printJson('providers switch', true, { provider: entry });
      printText((await views()).providerEntryText(entry, 'provider'));
    }),
});

const disconnectCommand = tableCommand<ProviderOptions>(declaration('providers disconnect'), {
  handler: (argv) =>
    withProviders('providers disconnect', argv, async (providers) => {
      const result = await providers.disconnect({ provider: argv.provider });
      if (argv.format === 'json') return printJson('providers disconnect', true, result);
      printText((await views()).disconnectText(result));
    }),
});

const checkCommand = tableCommand<{ provider?: string } & GlobalOptions>(declaration('providers check'), {
  handler: (argv) =>
    withProviders('providers check', argv, async (providers) => {
      const result = await providers.check({ provider: argv.provider });
      if (argv.format === 'json') return printJson('providers check', true, result);
      printText((await views()).checkText(result));
    }),
});

export const providersCommand = tableCommand<SubOptions>(declaration('providers'), {
  subcommands: [listCommand, connectCommand, switchCommand, disconnectCommand, checkCommand],
  handler: (argv) => {
    if (argv.command !== undefined)
      return unknownSub('providers', argv, 'list, connect <provider>, switch <provider>, disconnect <provider> or check');
    return withProviders('providers', argv, (p) => printList(p, argv, 'providers'));
  },
});

interface ModelSwitchOptions extends GlobalOptions {
  model: string;
  provider?: string;
  embedding?: boolean;
}

const modelListCommand = tableCommand<{ provider?: string } & GlobalOptions>(declaration('model list'), {
  handler: (argv) => withProviders('model list', argv, (p) => printModels(p, argv, 'model list')),
});

async function printModels(providers: Providers, argv: GlobalOptions & { provider?: string }, command: string): Promise<void> {
  const list = await providers.models({ provider: argv.provider });
  if (argv.format === 'json') return printJson(command, true, list);
  printText((await views()).modelListText(list));
}

const modelSwitchCommand = tableCommand<ModelSwitchOptions>(declaration('model switch'), {
  handler: (argv) =>
    withProviders('model switch', argv, async (providers) => {
      const entry = await providers.switchModel({ model: argv.model, provider: argv.provider, embedding: argv.embedding });
      if (argv.format === 'json') return printJson('model switch', true, { provider: entry });
      printText((await views()).providerEntryText(entry, argv.embedding ? 'embedding' : 'model'));
    }),
});

export const modelCommand = tableCommand<SubOptions & { provider?: string }>(declaration('model'), {
  subcommands: [modelListCommand, modelSwitchCommand],
  handler: (argv) => {
    if (argv.command !== undefined) return unknownSub('model', argv, 'list or switch <model>');
    return withProviders('model', argv, (p) => printModels(p, argv, 'model'));
  },
});

function unknownSub(command: string, argv: SubOptions, known: string): void {
  const message = `Unknown ${command} command "${argv.command}": use ${known}.`;
  printError(command, argv.format, 'usage', `${message}${argv.format === 'text' ? ' (see --help)' : ''}`, EXIT_USAGE);
}

/** On a terminal, a provider that needs a key and has none yet asks for it (hidden); Enter skips. */
async function askForKey(providers: Providers, name: string): Promise<string | undefined> {
  const entry = (await providers.list()).providers.find((p) => p.id === name || p.name.toLowerCase() === name.toLowerCase());
  if (!entry || entry.keyOptional || entry.key.from !== 'none') return undefined;
  const { readSecret } = await import('../secret-prompt.js');
  const key = (await readSecret(`API key for ${entry.name} (not shown; Enter to skip and use ${entry.keyVariables[0]}): `))?.trim();
  return key ? key : undefined;
}
