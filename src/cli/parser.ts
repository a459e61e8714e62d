import yargs, { type Argv, type CommandModule } from 'yargs';
import { commands } from './commands/index.js';
import { ArgumentCheckError } from './options.js';
import { GLOBAL_OPTION_DECLS, findCommand } from '../views/command-table.js';
import { missingArgumentsMessage, subcommandsMessage } from '../views/command-usage.js';
import { BRV_REF_PREFIX, DEFAULT_BRANCH, branchRef } from '../base/ref-names.js';
import { ELEMENTS } from '../topic/registry.js';
import { EXIT_USAGE, commandWord, printError, requestedFormat, type OutputFormat } from './output.js';
import { cliIo, currentCliIo } from './io.js';

/** The version from package.json, put in by the build (yargs' own guess reads the package.json above the cwd). */
declare const BRV_VERSION: string | undefined;

class UsageFailure extends Error {}

/**
 * `--` ends options on every command: each word after it is a positional, whatever it looks like
 * (`brv query -- "-Werror flag"`, `brv curate -- view`). yargs keeps such words out of positionals
 * (and re-parses positionals as options), so they are handed to it marked with a private-use
 * character, which `unmarkLiterals` strips before validation and the handler.
 */
const LITERAL = '\uE000';

function markLiterals(args: readonly string[]): string[] {
  const end = args.indexOf('--') < 0 ? args.length : args.indexOf('--');
  const options: string[] = [];
  for (let i = 0; i < end; i++) {
    // yargs never takes a lone "-" as a value; for the options that read a file, it means standard input.
    if (STDIN_OPTIONS.has(args[i]!) && args[i + 1] === '-' && i + 1 < end) options.push(`${args[i++]!}=-`);
    else options.push(args[i]!);
  }
  if (end === args.length) return options;
  // The marker option stops an array option before `--` (`--kind rule -- -x`) from taking the words after it.
  return [...options, `--${END_OF_OPTIONS}`, ...args.slice(end + 1).map((word) => LITERAL + word)];
}

/** A hidden flag standing where `--` was; removed with the marks. */
const END_OF_OPTIONS = 'brv-end-of-options';

/** Options whose value "-" means standard input. */
const STDIN_OPTIONS = new Set(['--html-file']);

function unmarkLiterals(argv: Record<string, unknown>): void {
  const unmark = (value: unknown): unknown =>
    typeof value === 'string' && value.startsWith(LITERAL) ? value.slice(LITERAL.length) : Array.isArray(value) ? value.map(unmark) : value;
  for (const key of Object.keys(argv)) argv[key] = unmark(argv[key]);
  delete argv[END_OF_OPTIONS];
  delete argv.brvEndOfOptions;
}

/**
 * ByteRover's commands that brv has under another name, or not at all: what to run instead.
 * (Without this, yargs would suggest the nearest spelling: `brv pull` → "Did you mean ls?".)
 */
const BYTEROVER_COMMANDS: Record<string, string> = {
  pull: 'brv pulls knowledge with git: run `brv vc pull` (or `brv sync` to pull and push).',
  push: 'brv pushes knowledge with git: run `brv vc push` (or `brv sync` to pull and push).',
  hub: 'brv has no hub: `brv connectors install <agent>` installs the rules, MCP server, skill and hook for an agent.',
  swarm: "brv has no swarm: `brv source add <repository>` makes another repository's knowledge answer queries too.",
  space: 'brv has no spaces: knowledge lives in this git repository; share it with `brv vc remote` and `brv sync`.',
  login: 'brv has no account: knowledge is shared through your git remotes and their credentials (`brv vc remote`, `brv sync`).',
  logout: 'brv has no account: knowledge is shared through your git remotes and their credentials.',
  migrate: 'Run `brv import <project folder>`: it reads a ByteRover .brv/context-tree, HTML and legacy Markdown alike.',
  index: 'brv keeps its search index up to date by itself; `brv doctor` checks it.',
  restart: 'brv runs no daemon, so there is nothing to restart; `brv doctor` checks the setup.',
  debug: '`brv doctor` checks git, the repository, hooks, connectors and the index; BRV_TRACE=1 brv … shows timings.',
  locations: 'brv keeps knowledge in each git repository; `brv status` shows this one, `brv source list` the others it reads.',
  'query-log': 'brv records no query log; `brv vc log` shows the history of the knowledge.',
  'gen-rules':
    "brv writes an agent's rules with its connectors: `brv connectors install <agent> --type rules` puts brv's rules block in that agent's rules file (`brv connectors list` names each agent's file).",
  // ByteRover's `brv vc` works a separate git repository in .brv/context-tree with a staging area; brv's
  // knowledge is git objects in this repository, and every write is already a commit.
  'vc init': `Run \`brv init\`: it creates the context tree in this git repository (${branchRef(DEFAULT_BRANCH)}); there is no separate .brv/context-tree repository to initialise.`,
  'vc add':
    'brv has no staging area: curate, edit, rm and import each record one commit at once, so there is nothing to add. `brv vc log` lists them.',
  'vc commit':
    'brv commits each change as it is made (curate, edit, rm, import; the commit names who, why and the impact), so there is nothing to commit. `brv vc log` lists them.',
  'vc reset':
    'brv has no staging area or working copy of the knowledge to reset. Undo a change with `brv review reject <id>` (it reverts that change on the current tip), bring one topic back as it was with `brv read <path> --at <rev> --raw | brv curate --html-file - --overwrite`, or switch branches with `brv vc checkout <branch>`.',
};

/** The first words of a command line that are not options (nor the values of brv's global options), before any `--`. */
function typedWords(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg === '--format' || arg === '-C') i++;
    else if (!arg.startsWith('-')) words.push(arg);
  }
  return words;
}

/** What to run instead of a ByteRover command brv does not have (`brv pull`, `brv vc add`), when `known` are the command words yargs recognised. */
function byteRoverHint(args: readonly string[], known: readonly string[]): string | undefined {
  const typed = typedWords(args).slice(0, known.length + 1);
  return typed.length === known.length + 1 ? BYTEROVER_COMMANDS[typed.join(' ')] : undefined;
}

/** yargs reads `--limit abc` as NaN and runs the command anyway: a number option must hold a number. */
function numbersAreNumbers(argv: Record<string, unknown>, options: { number?: string[] }): true | Error {
  for (const key of options.number ?? []) {
    const values = Array.isArray(argv[key]) ? (argv[key] as unknown[]) : [argv[key]];
    if (values.some((value) => value !== undefined && !(typeof value === 'number' && Number.isFinite(value))))
      return new ArgumentCheckError(`${key.length === 1 ? '-' : '--'}${key} needs a number.`);
  }
  return true;
}

/** `--kind` (query, search) names topic elements (`rule` or `bv-rule`); anything else would silently match nothing. */
function kindsAreElements(argv: Record<string, unknown>): true {
  if (!Array.isArray(argv.kind)) return true;
  const kinds = ELEMENTS.map((e) => e.name).filter((name) => name.startsWith('bv-') && name !== 'bv-topic');
  for (const given of argv.kind) {
    const name = String(given).toLowerCase();
    if (!kinds.includes(name.startsWith('bv-') ? name : `bv-${name}`))
      throw new ArgumentCheckError(
        `--kind ${JSON.stringify(String(given))} is not a topic element; use one of: ${kinds.map((k) => k.slice(3)).join(', ')}.`,
      );
  }
  return true;
}

/** The option keys of a parse (with their aliases and camelCase forms) that take several values. */
function arrayKeys(options: { array?: string[]; alias?: Record<string, string[]> }): Set<string> {
  const keys = new Set<string>();
  for (const name of options.array ?? [])
    for (const key of [name, ...(options.alias?.[name] ?? [])])
      keys.add(key).add(key.replace(/-+([^-])/g, (_, c: string) => c.toUpperCase()));
  return keys;
}

/**
 * yargs makes an array of any option given more than once, and a command reading `argv.format ===
 * 'json'` then silently prints text. An option declared as an array (or repeatable, `array` with
 * `nargs: 1`) keeps its values; any other given twice with the same value is given once (`--format
 * json --format json`, as a wrapper that adds flags may write), before validation.
 */
function oneValueEach(argv: Record<string, unknown>, parsing: { getOptions(): Parameters<typeof arrayKeys>[0] }): void {
  const arrays = arrayKeys(parsing.getOptions());
  for (const [key, value] of Object.entries(argv))
    if (key !== '_' && Array.isArray(value) && !arrays.has(key) && value.length > 0 && value.every((v) => v === value[0]))
      argv[key] = value[0];
}

/** …and given with different values (`--format json --format text`), a usage error naming them, never a silent choice. */
function noConflictingValues(argv: Record<string, unknown>, options: { array?: string[]; alias?: Record<string, string[]> }): true {
  const arrays = arrayKeys(options);
  for (const [key, value] of Object.entries(argv)) {
    if (key === '_' || !Array.isArray(value) || arrays.has(key)) continue;
    const flag = `${key.length === 1 ? '-' : '--'}${key}`;
    const given = [...new Set(value.map((v) => JSON.stringify(String(v))))].join(', ');
    throw new ArgumentCheckError(`${flag} was given more than once, with different values (${given}); give it once.`);
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
function explain(message: string, script: string, commands: readonly string[], args: readonly string[]): string {
  const short = /^Not enough non-option arguments: got (\d+), need at least \d+$/.exec(message);
  if (short) {
    // The positional words given, for the example; unknown when an option's value may be among them.
    const words = typedWords(args).slice(commands.length);
    const given = words.length === Number(short[1]) ? words : Array.from({ length: Number(short[1]) }, () => undefined);
    return missingArgumentsMessage(script, commands, given) ?? message;
  }
  if (commands.length > 0 && message === findCommand(commands)?.demandCommand) return subcommandsMessage(script, commands) ?? message;
  // yargs suggests hidden commands too (`brv hooks foo` → "Did you mean run?"): list the ones people run instead.
  const suggested = /^Did you mean (\S+)\?$/.exec(message)?.[1];
  if (suggested !== undefined && findCommand([...commands, suggested])?.hidden) return subcommandsMessage(script, commands) ?? message;
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
    // A message that ends with an example needs no pointer to --help (it would read as part of the example).
    printError(
      command,
      format,
      'usage',
      `${message}${format === 'text' && !/For example: .*$/.test(message) ? ' (see --help)' : ''}`,
      EXIT_USAGE,
    ),
): Argv {
  const parser = yargs(markLiterals(args))
    .scriptName(scriptName)
    .usage(
      `$0 <command> [options]\n\nPersistent, structured memory for AI coding agents, stored on ${BRV_REF_PREFIX}* in this git repository.`,
    )
    .options(GLOBAL_OPTION_DECLS as never)
    .option(END_OF_OPTIONS, { type: 'boolean', hidden: true })
    .command(list as CommandModule[])
    .middleware(unmarkLiterals as never, true)
    .middleware(oneValueEach as never, true)
    .demandCommand(1, 'Name a command.')
    .strict()
    .check(noConflictingValues as never, true)
    .check(numbersAreNumbers as never, true)
    .check(kindsAreElements as never, true)
    .help()
    .alias('help', 'h');
  // A misspelt command gets "Did you mean …?"; not a word after `--`, which is never a command.
  if (!args.includes('--')) parser.recommendCommands();
  (typeof BRV_VERSION === 'string' ? parser.version(BRV_VERSION) : parser.version())
    .wrap(Math.min(110, currentCliIo()?.stdout.columns || 100))
    .fail((message, error) => {
      // Already reported (an asynchronous check's failure comes back through here once more).
      if (error instanceof UsageFailure) throw error;
      // A handler's own failure: main's top-level handler reports it (internal-error, exit 1).
      if (!isUsageError(error)) throw error;
      // The command being parsed when it failed (e.g. "source add"), else the first word.
      const words = (parser as unknown as { getInternalMethods(): { getContext(): { commands: string[] } } })
        .getInternalMethods()
        .getContext().commands;
      const command = words.length ? words.join(' ') : commandWord(args);
      const byterover = byteRoverHint(args, words);
      reportUsage(
        command,
        requestedFormat(args),
        byterover ??
          explain(
            (error instanceof ArgumentCheckError ? error.message : message) || error?.message || 'Invalid command line.',
            scriptName,
            words,
            args,
          ),
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
    // `brv` alone shows what it can do (exit 0), until the TUI lands.
    if (args.length === 0) {
      createParser(['--help'], scriptName).showHelp((text) => cliIo().stdout.write(`${text}\n`));
      return;
    }
    // yargs prints --help and --version itself, and exits: here it hands the text back instead, and the
    // run writes it to its own stdout (main.ts's is the process's), exit code 0.
    let shown = '';
    let failure: unknown;
    await createParser(args, scriptName)
      .exitProcess(false)
      .parseAsync(markLiterals(args), {}, (error: unknown, _argv: unknown, output: string) => {
        failure = error ?? undefined;
        shown = output;
      });
    if (failure) throw failure;
    if (shown) cliIo().stdout.write(`${shown}\n`);
  } catch (error) {
    if (!(error instanceof UsageFailure)) throw error;
  }
}
