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

/** An example command line: the positional words given so far, then the table's example of each one still missing. */
function exampleLine(script: string, path: readonly string[], decl: CommandDecl, given: readonly (string | undefined)[]): string {
  const values = (decl.positionals ?? []).filter((p) => p.demand).map((p, i) => given[i] ?? p.example ?? `<${p.name}>`);
  return [script, ...path, ...values].join(' ');
}

/**
 * The message for a command line that gives only `given` of the positional words the command at
 * `path` needs (yargs' "Not enough non-option arguments"; a word undefined when it is not known):
 * what is missing, or the sub-commands to choose from. Undefined when the table does not know the command.
 */
export function missingArgumentsMessage(
  script: string,
  path: readonly string[],
  given: readonly (string | undefined)[],
): string | undefined {
  const decl = findCommand(path);
  if (!decl) return undefined;
  if (decl.subcommands && !decl.positionals) return subcommandList(script, path, decl);
  const missing = (decl.positionals ?? []).filter((p, i) => p.demand && i >= given.length);
  if (missing.length === 0) return undefined;
  const said = (p: (typeof missing)[number]) => (p.describe ? `${p.describe.replace(/\.$/, '')}.` : '');
  const example = `For example: ${exampleLine(script, path, decl, given)}`;
  const command = `${script} ${path.join(' ')}`;
  if (missing.length === 1) return `${command} is missing <${missing[0]!.name}>: ${said(missing[0]!)} ${example}`.replace(/: {2}/, ': ');
  const names = missing.map((p) => `<${p.name}>`);
  const each = missing.filter((p) => p.describe).map((p) => `<${p.name}>: ${said(p)}`);
  return [`${command} is missing ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}.`, ...each, example].join(' ');
}

/** The message for a command that needs a sub-command and got none it knows (`brv vc`, `brv hooks foo`). */
export function subcommandsMessage(script: string, path: readonly string[]): string | undefined {
  const decl = findCommand(path);
  return decl?.subcommands ? subcommandList(script, path, decl) : undefined;
}
