import type { Argv, CommandModule } from 'yargs';
import type { KeyStorage, Providers } from '../../service/service.js';
import { cliService, reportingErrors, type GlobalOptions } from '../context.js';
import { EXIT_USAGE, note, printError, printJson, printText } from '../output.js';
import { readStdin } from '../stdin.js';
import { cliIo } from '../io.js';

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

const listCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'list',
  describe: 'Every provider, which are connected and in use, and where each key comes from (never the key)',
  handler: (argv) => withProviders('providers list', argv, (p) => printList(p, argv, 'providers list')),
};

async function printList(providers: Providers, argv: GlobalOptions, command: string): Promise<void> {
  const list = await providers.list();
  if (argv.format === 'json') return printJson(command, true, list);
  printText((await views()).providerListText(list));
}

const connectCommand: CommandModule<GlobalOptions, ConnectOptions> = {
  command: 'connect <provider>',
  describe: 'Connect a provider and use it (the key is kept outside every repository)',
  builder: (y) =>
    y
      .positional('provider', {
        type: 'string',
        demandOption: true,
        describe:
          'openai, anthropic, google, mistral, groq, xai, deepseek, openrouter, togetherai, fireworks, cerebras, openai-compatible (or ollama, lmstudio, vllm, llama.cpp)',
      })
      .option('model', { type: 'string', describe: "The chat model (default: the provider's default; brv model list)" })
      .option('base-url', { type: 'string', describe: 'The server URL (OpenAI-compatible servers; also a proxy for the others)' })
      .option('api-key', {
        type: 'string',
        // `-` is a value here (standard input), not a positional argument.
        nargs: 1,
        describe: 'The API key; - reads it from standard input (keeps it out of shell history). Environment variables still win',
      })
      .option('key-storage', {
        choices: ['auto', 'file', 'credential-helper'] as const,
        describe: "Where to keep --api-key: git's credential helper when one is configured (auto), or a 0600 file in ~/.config/brv",
      })
      .option('embedding-model', { type: 'string', describe: 'Embed topics with this model for hybrid retrieval (none: off)' })
      .option('use', { type: 'boolean', default: true, describe: 'Make it the provider in use (--no-use keeps the current one)' })
      .example('$0 providers connect openai', 'Uses OPENAI_API_KEY from the environment')
      .example('echo "$KEY" | $0 providers connect anthropic --api-key -', 'Store a key (read from standard input)')
      .example('$0 providers connect ollama --model llama3.1 --embedding-model nomic-embed-text', 'A local server, no key'),
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
};

const switchCommand: CommandModule<GlobalOptions, ProviderOptions> = {
  command: 'switch <provider>',
  describe: 'Use another connected provider',
  builder: (y) => y.positional('provider', { type: 'string', demandOption: true }),
  handler: (argv) =>
    withProviders('providers switch', argv, async (providers) => {
      const entry = await providers.switch({ provider: argv.provider });
      if (argv.format === 'json') return printJson('providers switch', true, { provider: entry });
      printText((await views()).providerEntryText(entry, 'provider'));
    }),
};

const disconnectCommand: CommandModule<GlobalOptions, ProviderOptions> = {
  command: 'disconnect <provider>',
  describe: 'Forget a provider and the key brv stored for it',
  builder: (y) => y.positional('provider', { type: 'string', demandOption: true }),
  handler: (argv) =>
    withProviders('providers disconnect', argv, async (providers) => {
      const result = await providers.disconnect({ provider: argv.provider });
      if (argv.format === 'json') return printJson('providers disconnect', true, result);
      printText((await views()).disconnectText(result));
    }),
};

const checkCommand: CommandModule<GlobalOptions, { provider?: string } & GlobalOptions> = {
  command: 'check [provider]',
  describe: 'Send one small request to the provider in use (or the one named): key, URL and model work',
  builder: (y) => y.positional('provider', { type: 'string' }),
  handler: (argv) =>
    withProviders('providers check', argv, async (providers) => {
      const result = await providers.check({ provider: argv.provider });
      if (argv.format === 'json') return printJson('providers check', true, result);
      printText((await views()).checkText(result));
    }),
};

export const providersCommand: CommandModule<GlobalOptions, SubOptions> = {
  command: 'providers [command]',
  describe: 'Model providers (optional): list, connect <provider>, switch <provider>, disconnect <provider>, check',
  builder: (y: Argv<GlobalOptions>) =>
    y
      .command(listCommand)
      .command(connectCommand as never)
      .command(switchCommand as never)
      .command(disconnectCommand as never)
      .command(checkCommand as never)
      .epilog(
        'brv needs no model: agents bring their own. With a provider connected, brv curate "<text>" curates by itself, ' +
          'brv query --answer answers from the topics, brv dream proposes merges, and an embedding model adds hybrid retrieval. ' +
          'Connections live in ~/.config/brv/providers.json; keys come from the environment first, else a 0600 file there or ' +
          "git's credential helper, never a repository. BRV_LLM_PROVIDER (with BRV_LLM_MODEL, BRV_LLM_BASE_URL, BRV_LLM_API_KEY) " +
          'chooses one for a single process; BRV_LLM_PROVIDER=none turns the layer off.',
      ),
  handler: (argv) => {
    if (argv.command !== undefined)
      return unknownSub('providers', argv, 'list, connect <provider>, switch <provider>, disconnect <provider> or check');
    return withProviders('providers', argv, (p) => printList(p, argv, 'providers'));
  },
};

interface ModelSwitchOptions extends GlobalOptions {
  model: string;
  provider?: string;
  embedding?: boolean;
}

const modelListCommand: CommandModule<GlobalOptions, { provider?: string } & GlobalOptions> = {
  command: 'list',
  describe: 'Well-known models of the provider in use (or --provider), the current one marked',
  builder: (y) => y.option('provider', { type: 'string', describe: 'Another provider' }),
  handler: (argv) => withProviders('model list', argv, (p) => printModels(p, argv, 'model list')),
};

async function printModels(providers: Providers, argv: GlobalOptions & { provider?: string }, command: string): Promise<void> {
  const list = await providers.models({ provider: argv.provider });
  if (argv.format === 'json') return printJson(command, true, list);
  printText((await views()).modelListText(list));
}

const modelSwitchCommand: CommandModule<GlobalOptions, ModelSwitchOptions> = {
  command: 'switch <model>',
  describe: 'Use another model of the provider in use (any id the provider accepts)',
  builder: (y) =>
    y
      .positional('model', { type: 'string', demandOption: true })
      .option('provider', { type: 'string', describe: 'Another connected provider' })
      .option('embedding', { type: 'boolean', describe: 'Set the embedding model (hybrid retrieval) instead; none turns it off' })
      .example('$0 model switch gpt-5', 'The chat model')
      .example('$0 model switch --embedding text-embedding-3-small', 'Hybrid retrieval on'),
  handler: (argv) =>
    withProviders('model switch', argv, async (providers) => {
      const entry = await providers.switchModel({ model: argv.model, provider: argv.provider, embedding: argv.embedding });
      if (argv.format === 'json') return printJson('model switch', true, { provider: entry });
      printText((await views()).providerEntryText(entry, argv.embedding ? 'embedding' : 'model'));
    }),
};

export const modelCommand: CommandModule<GlobalOptions, SubOptions & { provider?: string }> = {
  command: 'model [command]',
  describe: 'The model in use: list, switch <model>',
  builder: (y: Argv<GlobalOptions>) =>
    y
      .command(modelListCommand as never)
      .command(modelSwitchCommand as never)
      .option('provider', { type: 'string', describe: 'Another provider' }),
  handler: (argv) => {
    if (argv.command !== undefined) return unknownSub('model', argv, 'list or switch <model>');
    return withProviders('model', argv, (p) => printModels(p, argv, 'model'));
  },
};

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
