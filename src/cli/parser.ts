import yargs, { type Argv, type CommandModule } from 'yargs';
import { commands } from './commands/index.js';
import { GLOBAL_OPTIONS } from './options.js';
import { BRV_REF_PREFIX } from '../store/refs.js';
import { EXIT_USAGE, commandWord, printError, requestedFormat, type OutputFormat } from './output.js';

/** The version from package.json, put in by the build (yargs' own guess reads the package.json above the cwd). */
declare const BRV_VERSION: string | undefined;

class UsageFailure extends Error {}

/** A command line our own checks refuse (yargs hands it to the fail handler like its own). */
class ArgumentCheckError extends Error {}

/** yargs reads `--limit abc` as NaN and runs the command anyway: a number option must hold a number. */
function numbersAreNumbers(argv: Record<string, unknown>, options: { number?: string[] }): true | Error {
  for (const key of options.number ?? []) {
    const values = Array.isArray(argv[key]) ? (argv[key] as unknown[]) : [argv[key]];
    if (values.some((value) => value !== undefined && !(typeof value === 'number' && Number.isFinite(value))))
      return new ArgumentCheckError(`${key.length === 1 ? '-' : '--'}${key} needs a number.`);
  }
  return true;
}

/**
 * yargs reports a command line it cannot read in two ways: validation failures (unknown options,
 * missing positionals, bad choices) as a message, and parser errors (an option that requires a value
 * followed by another option: `--alias -x`) as a YError, thrown from inside the command's own parse.
 * Both are usage errors. Any other error handed to the fail handler is a command's own failure.
 */
function isUsageError(error: Error | null | undefined): boolean {
  return !error || error.name === 'YError' || error instanceof ArgumentCheckError;
}

/** yargs' messages, made to say what to do where they do not. */
function explain(message: string): string {
  const missing = /^Not enough arguments following: (\S+)$/.exec(message);
  // One line: "Invalid values:\n  Argument: format, Given: …" reads as well joined.
  if (!missing) return message.trim().replace(/\s*\n\s*/g, ' ');
  const flag = `${missing[1]!.length === 1 ? '-' : '--'}${missing[1]}`;
  return `${flag} needs a value (write a value that starts with "-" as ${flag}=VALUE)`;
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
    .usage(
      `$0 <command> [options]\n\nPersistent, structured memory for AI coding agents, stored on ${BRV_REF_PREFIX}* in this git repository.`,
    )
    .options(GLOBAL_OPTIONS as never)
    .command(list as CommandModule[])
    .demandCommand(1, 'Name a command.')
    .strict()
    .check(numbersAreNumbers as never, true)
    .recommendCommands()
    .help()
    .alias('help', 'h');
  (typeof BRV_VERSION === 'string' ? parser.version(BRV_VERSION) : parser.version())
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((message, error) => {
      // A handler's own failure: main's top-level handler reports it (internal-error, exit 1).
      if (!isUsageError(error)) throw error;
      // The command being parsed when it failed (e.g. "source add"), else the first word.
      const words = (parser as unknown as { getInternalMethods(): { getContext(): { commands: string[] } } })
        .getInternalMethods()
        .getContext().commands;
      const command = words.length ? words.join(' ') : commandWord(args);
      reportUsage(
        command,
        requestedFormat(args),
        explain((error instanceof ArgumentCheckError ? error.message : message) || error?.message || 'Invalid command line.'),
      );
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
