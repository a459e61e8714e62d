import { parseArgs } from 'node:util';
import type { CommandModule } from 'yargs';
import { curateViewCommand } from './commands/curate-view.js';
import { CURATE_OPTIONS, curateCommand } from './commands/curate.js';
import { hookPromptSubmitCommand } from './commands/hook-prompt-submit.js';
import { QUERY_OPTIONS, queryCommand } from './commands/query.js';
import { searchCommand } from './commands/search.js';
import { GLOBAL_OPTIONS, inRange, type OptionSpec, type OptionTable } from './options.js';
import { RETRIEVAL_OPTIONS } from './retrieval-options.js';

// Loading yargs and building its parser for every command costs ~30–40 ms per process (measured,
// docs/decisions/0002-startup-launcher-code-cache.md), most of an agent command's time above a bare Node start. The commands agents run
// in a loop are parsed here with node:util's parseArgs from the same option tables, and only when the
// command line is plain: anything else (help, version, unknown options, options repeated with another value, arrays,
// values yargs would read differently, values out of range) returns undefined and goes to yargs, which behaves as always.
// test/cli/fast-args.test.ts checks every accepted command line against yargs' own result.

interface FastCommand {
  module: CommandModule<never, never>;
  options: OptionTable;
  /** Names of the command's sub-commands: a first positional naming one is left to yargs. */
  subcommands: readonly string[];
}

const FAST_COMMANDS: Record<string, FastCommand> = {
  query: { module: queryCommand as CommandModule<never, never>, options: { ...RETRIEVAL_OPTIONS, ...QUERY_OPTIONS }, subcommands: [] },
  search: { module: searchCommand as CommandModule<never, never>, options: RETRIEVAL_OPTIONS, subcommands: [] },
  curate: {
    module: curateCommand as CommandModule<never, never>,
    options: CURATE_OPTIONS,
    subcommands: [curateViewCommand.command as string],
  },
  // Claude Code runs it before every prompt.
  'hook-prompt-submit': { module: hookPromptSubmitCommand as CommandModule<never, never>, options: {}, subcommands: [] },
};

export interface FastParse {
  handler: (argv: Record<string, unknown>) => void | Promise<void>;
  argv: Record<string, unknown>;
}

/** What the fast path can read exactly as yargs does: scalar options with a declared type. */
function fastType(spec: OptionSpec): 'string' | 'number' | 'boolean' | undefined {
  if (spec.array || spec.alias || spec.hidden) return undefined;
  return spec.type ?? (spec.choices ? 'string' : undefined);
}

const camelCase = (name: string) => name.replace(/-+([^-])/g, (_, c: string) => c.toUpperCase());

/** The argv yargs would hand the command's handler, or undefined when yargs must decide. */
export function fastParse(args: readonly string[], scriptName: string): FastParse | undefined {
  const command = args[0] === undefined ? undefined : FAST_COMMANDS[args[0]];
  if (!command || !command.module.handler) return undefined;
  // `query <question..>`: one required, variadic positional; `curate [intent]`: one optional; or none.
  const usage = command.module.command as string;
  const positional = /^\S+(?: [<[]([\w-]+)(\.\.)?[>\]])?$/.exec(usage);
  if (!positional) return undefined;
  const [, positionalName, variadic] = positional as unknown as [string, string | undefined, string | undefined];
  const required = usage.includes('<');

  const table: OptionTable = { ...GLOBAL_OPTIONS, ...command.options };
  const config: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, spec] of Object.entries(table)) {
    const type = fastType(spec);
    if (type) config[name] = { type: type === 'boolean' ? 'boolean' : 'string', ...(name.length === 1 ? { short: name } : {}) };
  }
  let tokens;
  try {
    ({ tokens } = parseArgs({ args: args.slice(1), options: config, strict: true, allowPositionals: true, tokens: true }));
  } catch {
    return undefined;
  }

  const argv: Record<string, unknown> = { _: [args[0]] };
  const seen = new Set<string>();
  const positionals: string[] = [];
  // After `--`, every word is a positional, whatever it looks like (as in parser.ts).
  let literal = false;
  let literals = 0;
  for (const [i, token] of tokens.entries()) {
    if (token.kind === 'option-terminator') {
      literal = true;
      continue;
    }
    if (token.kind === 'positional') {
      // yargs drops a lone "-" and runs its help command for "help" anywhere on the line.
      if (!literal && (token.value === '-' || token.value === 'help')) return undefined;
      positionals.push(token.value);
      if (literal) literals++;
      continue;
    }
    const spec = table[token.name]!;
    // -Cdir is read differently by yargs' short-option groups.
    if (token.rawName.length === 2 && token.inlineValue) return undefined;
    // parseArgs takes a lone "-" as a value; yargs does not.
    if (!token.inlineValue && token.value?.startsWith('-')) return undefined;
    let value: string | number | boolean;
    if (spec.type === 'boolean') {
      // yargs takes a following "true"/"false" as the flag's value.
      const next = tokens[i + 1];
      if (next?.kind === 'positional' && (next.value === 'true' || next.value === 'false')) return undefined;
      value = true;
    } else if (spec.type === 'number') {
      if (!/^(0|[1-9][0-9]{0,8})$/.test(token.value ?? '')) return undefined;
      value = Number(token.value);
      // Out of range: yargs reports it (options.ts checkNumbers).
      if (!inRange(spec, value)) return undefined;
    } else {
      value = token.value ?? '';
      if (spec.choices && !spec.choices.includes(value)) return undefined;
    }
    // Given again: with the same value it is given once (parser.ts, oneValueEach); with another, yargs reports the conflict.
    if (seen.has(token.name)) {
      if (argv[token.name] !== value) return undefined;
      continue;
    }
    seen.add(token.name);
    argv[token.name] = value;
    if (token.name.includes('-')) argv[camelCase(token.name)] = value;
  }
  for (const [name, spec] of Object.entries(table)) if (spec.default !== undefined && !(name in argv)) argv[name] = spec.default;

  if (positionalName === undefined) {
    if (positionals.length > 0) return undefined;
  } else if (variadic) {
    if (required && positionals.length === 0) return undefined;
    argv[positionalName] = positionals;
  } else {
    if (positionals.length > 1 || (required && positionals.length === 0)) return undefined;
    // A first positional that is a sub-command's name runs that sub-command (yargs); any other word,
    // however close to one ("review"), is the command's own positional (curate's intent).
    const first = positionals[0];
    const literalFirst = literals === positionals.length;
    if (first !== undefined && !literalFirst && command.subcommands.includes(first)) return undefined;
    if (positionals[0] !== undefined) argv[positionalName] = positionals[0];
  }
  argv.$0 = scriptName;
  return { handler: command.module.handler as FastParse['handler'], argv };
}
