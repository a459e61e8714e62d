import yargs, { type Argv, type CommandModule } from 'yargs';
import { commands } from './commands/index.js';
import { GLOBAL_OPTIONS } from './options.js';
import { EXIT_USAGE, printError, type OutputFormat } from './output.js';

/** The version from package.json, put in by the build (yargs' own guess reads the package.json above the cwd). */
declare const BRV_VERSION: string | undefined;

class UsageFailure extends Error {}

function requestedFormat(args: readonly string[]): OutputFormat {
  const index = args.findIndex((a) => a === '--format' || a.startsWith('--format='));
  if (index < 0) return 'text';
  const value = args[index]!.includes('=') ? args[index]!.split('=')[1] : args[index + 1];
  return value === 'json' ? 'json' : 'text';
}

/**
 * The full command line: every command, `--help`, `--version`, usage errors (exit 2). Tests swap in
 * `list` (handlers that record the parsed arguments) and `reportUsage`.
 */
export function createParser(
  args: string[],
  scriptName: string,
  list: readonly CommandModule[] = commands,
  reportUsage: (command: string, format: OutputFormat, message: string) => void = (command, format, message) =>
    printError(command, format, 'usage', `${message}${format === 'text' ? ' (see --help)' : ''}`, EXIT_USAGE),
): Argv {
  const parser = yargs(args)
    .scriptName(scriptName)
    .usage('$0 <command> [options]\n\nPersistent, structured memory for AI coding agents, stored on refs/brv/* in this git repository.')
    .options(GLOBAL_OPTIONS as never)
    .command(list as CommandModule[])
    .demandCommand(1, 'Name a command.')
    .strict()
    .recommendCommands()
    .help()
    .alias('help', 'h');
  (typeof BRV_VERSION === 'string' ? parser.version(BRV_VERSION) : parser.version())
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((message, error) => {
      if (error) throw error;
      const command = args.find((a) => !a.startsWith('-')) ?? 'brv';
      reportUsage(command, requestedFormat(args), message);
      // Stop yargs here: without this it would still run the command's handler.
      throw new UsageFailure(message);
    });

  // yargs renders (and caches) a command's whole help text every time the command runs, in case a
  // later error wants it: ~40 ms of string-width work per invocation, measured. We print our own
  // errors, so skip that cache; `--help` still renders help on demand.
  const internals = (
    parser as unknown as { getInternalMethods?: () => { getUsageInstance(): { cacheHelpMessage: () => void } } }
  ).getInternalMethods?.();
  if (internals && !args.some((a) => a === '--help' || a === '-h')) internals.getUsageInstance().cacheHelpMessage = () => {};
  return parser;
}

export async function runParser(args: string[], scriptName: string): Promise<void> {
  try {
    await createParser(args, scriptName).parseAsync();
  } catch (error) {
    if (!(error instanceof UsageFailure)) throw error;
  }
}
