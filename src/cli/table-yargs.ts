// yargs command modules made from the command table (src/views/command-table.ts): the command string,
// description, positionals, options, examples, epilogue and sub-commands all come from the command's
// declaration; a command module adds its handler (and, rarely, a check that is code, not data).
// Only yargs' types are imported, and only the table's types: the fast path loads the agent commands'
// modules without yargs and without the rest of the table.
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { CommandDecl, OptionDecl, OptionTable, PositionalDecl } from '../views/agent-commands.js';
import type { GlobalOptions } from './context.js';
import { checkNumbers } from './options.js';

/** What a command module adds to its declaration. */
export interface CommandCode<T> {
  handler?: (argv: ArgumentsCamelCase<T>) => void | Promise<void>;
  /** The command's sub-commands' modules, one for each sub-command the table declares. */
  subcommands?: readonly Pick<CommandModule, 'command'>[];
  /** A check yargs runs before the handler (a usage error when it returns or throws an Error). */
  check?: (argv: ArgumentsCamelCase<T>) => true | Error;
}

/** yargs' command string: `query <question..>`, `vc <command>`, `review [command]`. */
export function usage(decl: CommandDecl): string {
  const words = [decl.name];
  for (const p of decl.positionals ?? []) {
    const name = `${p.name}${p.variadic ? '..' : ''}`;
    words.push(p.demand ? `<${name}>` : `[${name}]`);
  }
  // A command with sub-commands and no positionals of its own names the sub-command's place: <command>
  // when it needs one, [command] when it runs itself without one; none when a sub-command is the default.
  if (decl.subcommands && !decl.positionals && !decl.subcommands.some((s) => s.default))
    words.push(decl.demandCommand ? '<command>' : '[command]');
  return words.join(' ');
}

/** An option or positional as yargs takes it: without what only brv reads. */
function forYargs(decl: OptionDecl | PositionalDecl): Record<string, unknown> {
  const {
    values: _values,
    min: _min,
    max: _max,
    name: _name,
    demand: _demand,
    variadic: _variadic,
    example: _example,
    ...spec
  } = decl as OptionDecl & Partial<PositionalDecl>;
  return spec;
}

/** Whether an option's number must be checked by brv (yargs knows no range). */
const hasRange = (options: OptionTable) => Object.values(options).some((o) => o.type === 'number' && (o.min ?? o.max) !== undefined);

/** The yargs builder of a declaration: positionals, options, checks, sub-commands, examples, epilogue. */
function builderFor<T>(
  decl: CommandDecl,
  code: Pick<CommandCode<T>, 'subcommands' | 'check'> = {},
): (y: Argv<GlobalOptions>) => Argv<GlobalOptions> {
  const subcommands = inTableOrder(decl.subcommands ?? [], code.subcommands ?? [], `${decl.name} `);
  // yargs' methods change the instance they are called on (and return it).
  return (y) => {
    const options = decl.options ?? {};
    const untyped = y as typeof y & YargsUntyped;
    if (decl.inherit === false) untyped.global([...(decl.positionals ?? []).map((p) => p.name), ...Object.keys(options)], false);
    if (decl.recommend === false) untyped.recommendCommands(false);
    for (const sub of subcommands) y.command(sub as CommandModule<GlobalOptions, GlobalOptions>);
    for (const p of decl.positionals ?? []) y.positional(p.name, forYargs(p));
    for (const [name, spec] of Object.entries(options)) y.option(name, forYargs(spec));
    if (hasRange(options)) y.check(checkNumbers(options));
    if (code.check) y.check(code.check as never);
    for (const [command, description] of decl.examples ?? []) y.example(command, description);
    if (decl.demandCommand) y.demandCommand(1, decl.demandCommand);
    if (decl.epilog) y.epilog(decl.epilog);
    return y;
  };
}

/** yargs methods its type declarations leave out. */
interface YargsUntyped {
  global(keys: string[], global: boolean): unknown;
  recommendCommands(enable: boolean): unknown;
}

/** The modules of the commands `decls` declares, in the table's order; throws if one is missing or not in the table. */
export function inTableOrder<M extends Pick<CommandModule, 'command'>>(
  decls: readonly CommandDecl[],
  modules: readonly M[],
  parent = '',
): M[] {
  const extra = modules.find((m) => !decls.some((d) => d.name === commandName(m)));
  if (extra) throw new Error(`"${parent}${commandName(extra)}" is not in the command table.`);
  return decls.map((decl) => {
    const module = modules.find((m) => commandName(m) === decl.name);
    if (!module) throw new Error(`No module for the command table's "${parent}${decl.name}".`);
    return module;
  });
}

function commandName(module: Pick<CommandModule, 'command'>): string {
  const command = Array.isArray(module.command) ? module.command[0] : module.command;
  return String(command).split(' ')[0]!;
}

/**
 * The yargs module of a command declared in the command table (`declaration('vc log')`, or one of
 * agent-commands.ts), with the module's handler: everything yargs reads but the handler comes from the table.
 */
export function tableCommand<T extends GlobalOptions = GlobalOptions>(
  decl: CommandDecl,
  code: CommandCode<T> = {},
): CommandModule<GlobalOptions, T> {
  return {
    command: decl.default ? [usage(decl), '$0'] : usage(decl),
    describe: decl.hidden ? false : decl.describe,
    builder: builderFor(decl, code) as never,
    handler: (code.handler ?? (() => {})) as never,
  };
}
