import { parseArgs } from 'node:util';
import type { CommandModule } from 'yargs';
import { curateCommand } from './commands/curate.js';
import { hookPromptSubmitCommand } from './commands/hook-prompt-submit.js';
import { queryCommand } from './commands/query.js';
import { searchCommand } from './commands/search.js';
import { inRange } from './options.js';
import {
  CURATE,
  GLOBAL_OPTION_DECLS,
  HOOK_PROMPT_SUBMIT,
  QUERY,
  SEARCH,
  type CommandDecl,
  type OptionDecl,
  type OptionTable,
} from '../views/agent-commands.js';

// Loading yargs and building its parser for every command costs ~30–40 ms per process (measured,
// docs/decisions/0002-startup-launcher-code-cache.md), most of an agent command's time above a bare Node start. The commands agents run
// in a loop are parsed here with node:util's parseArgs from their declaration in the command table (options, positionals,
// sub-commands), and only when the command line is plain: anything else (help, version, unknown options, options repeated
// with another value, arrays, values yargs would read differently, values out of range) returns undefined and goes to yargs,
// which behaves as always. test/cli/fast-args.test.ts checks every accepted command line against yargs' own result.

/** The commands the fast path runs: their declarations in the command table, and their handlers. */
const FAST_COMMANDS: Record<string, { decl: CommandDecl; module: CommandModule<never, never> }> = {
  query: { decl: QUERY, module: queryCommand as CommandModule<never, never> },
  search: { decl: SEARCH, module: searchCommand as CommandModule<never, never> },
  curate: { decl: CURATE, module: curateCommand as CommandModule<never, never> },
  // Claude Code runs it before every prompt.
  'hook-prompt-submit': { decl: HOOK_PROMPT_SUBMIT, module: hookPromptSubmitCommand as CommandModule<never, never> },
};

export interface FastParse {
  handler: (argv: Record<string, unknown>) => void | Promise<void>;
  argv: Record<string, unknown>;
}

/** What the fast path can read exactly as yargs does: scalar options with a declared type. */
function fastType(spec: OptionDecl): 'string' | 'number' | 'boolean' | undefined {
  if (spec.array || spec.alias || spec.hidden) return undefined;
  return spec.type ?? (spec.choices ? 'string' : undefined);
}

const camelCase = (name: string) => name.replace(/-+([^-])/g, (_, c: string) => c.toUpperCase());

/** The argv yargs would hand the command's handler, or undefined when yargs must decide. */
export function fastParse(args: readonly string[], scriptName: string): FastParse | undefined {
  const fast = args[0] !== undefined && Object.hasOwn(FAST_COMMANDS, args[0]) ? FAST_COMMANDS[args[0]] : undefined;
  if (!fast?.module.handler) return undefined;
  const { decl, module } = fast;
  // `query <question..>`: one required, variadic positional; `curate [intent]`: one optional; or none.
  const positionals = decl.positionals ?? [];
  if (positionals.length > 1) return undefined;
  const { name: positionalName, variadic, demand: required } = positionals[0] ?? {};
  const subcommands = (decl.subcommands ?? []).map((s) => s.name);

  const table: OptionTable = { ...GLOBAL_OPTION_DECLS, ...decl.options };
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
  const words: string[] = [];
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
      words.push(token.value);
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
    if (words.length > 0) return undefined;
  } else if (variadic) {
    if (required && words.length === 0) return undefined;
    argv[positionalName] = words;
  } else {
    if (words.length > 1 || (required && words.length === 0)) return undefined;
    // A first positional that is a sub-command's name runs that sub-command (yargs); any other word,
    // however close to one ("review"), is the command's own positional (curate's intent).
    const first = words[0];
    const literalFirst = literals === words.length;
    if (first !== undefined && !literalFirst && subcommands.includes(first)) return undefined;
    if (first !== undefined) argv[positionalName] = first;
  }
  argv.$0 = scriptName;
  return { handler: module.handler as FastParse['handler'], argv };
}
