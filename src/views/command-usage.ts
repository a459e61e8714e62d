// What a command line that stops short is told, derived from the command table (command-table.ts):
// the missing arguments by name with an example (`brv read` alone), or the sub-commands of a command
// that needs one (`brv vc` alone). yargs' own words ("Not enough non-option arguments: got 0, need
// at least 1") name neither.
import { findCommand, type CommandDecl } from './command-table.js';

/** The sub-commands of a command that needs one, on one line (as every usage error is), and an example. */
function subcommandList(script: string, path: readonly string[], decl: CommandDecl): string {
  const names = (decl.subcommands ?? []).filter((s) => !s.hidden).map((s) => s.name);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names.join('');
  const first = decl.subcommands!.find((s) => !s.hidden && !s.positionals?.some((p) => p.demand)) ?? decl.subcommands![0]!;
  const command = [script, ...path].join(' ');
  return `Name a ${path.join(' ')} command: ${list} (${command} --help says what each does). For example: ${command} ${first.name}`;
}

/** An example command line: the demanded positionals' examples (the table gives each one). */
function exampleLine(script: string, path: readonly string[], decl: CommandDecl): string {
  const values = (decl.positionals ?? []).filter((p) => p.demand).map((p) => p.example ?? `<${p.name}>`);
  return [script, ...path, ...values].join(' ');
}

/**
 * The message for a command line that gives `given` of the positional words the command at `path`
 * needs (yargs' "Not enough non-option arguments"): what is missing, or the sub-commands to choose
 * from. Undefined when the table does not know the command.
 */
export function missingArgumentsMessage(script: string, path: readonly string[], given: number): string | undefined {
  const decl = findCommand(path);
  if (!decl) return undefined;
  if (decl.subcommands && !decl.positionals) return subcommandList(script, path, decl);
  const missing = (decl.positionals ?? []).filter((p, i) => p.demand && i >= given);
  if (missing.length === 0) return undefined;
  const said = (describe: string | undefined) => describe?.replace(/\.$/, '');
  const what =
    missing.length === 1
      ? `<${missing[0]!.name}>${said(missing[0]!.describe) ? `: ${said(missing[0]!.describe)}` : ''}`
      : missing
          .map((p) => `<${p.name}>${said(p.describe) ? ` (${said(p.describe)})` : ''}`)
          .join(', ')
          .replace(/, (?=<[^<]*$)/, ' and ');
  return `${script} ${path.join(' ')} is missing ${what}. For example: ${exampleLine(script, path, decl)}`;
}

/** The message for a command that needs a sub-command and got none it knows (`brv vc`, `brv hooks foo`). */
export function subcommandsMessage(script: string, path: readonly string[]): string | undefined {
  const decl = findCommand(path);
  return decl?.subcommands ? subcommandList(script, path, decl) : undefined;
}
