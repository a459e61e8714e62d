// What the prompt's slash commands accept, and how a line is split into them. Pure: completion.ts
// and commands.ts build on it.
import type { ValueKind } from '../service/completion.js';
import { findCommand } from '../views/command-table.js';

/** What an argument names, for Tab completion. */
export type ArgKind = 'topic' | 'folder' | 'branch' | 'remote' | 'review' | 'setting' | 'source' | 'agent' | 'text' | 'file';

export interface CommandShape {
  /** Positional arguments, by position; the last one repeats when `repeat` is set. */
  args?: readonly ArgKind[];
  repeat?: boolean;
  /** `--name` → the kind of its value, or 'flag' for a switch. */
  options?: Readonly<Record<string, ArgKind | 'flag'>>;
  /** A word starting with `@` names a file of the work tree (Tab completes it). */
  mentions?: boolean;
}

export interface CommandSpec extends CommandShape {
  /** Without the slash: `vc`. */
  name: string;
  summary: string;
  usage: string;
  /** Sub-commands by name (`/vc log`), each with its own arguments. */
  subcommands?: Readonly<Record<string, CommandShape & { summary: string }>>;
}

/** The TUI's name for each kind of value the command table names. */
const ARG_KINDS: Record<ValueKind, ArgKind> = {
  'topic-path': 'topic',
  folder: 'folder',
  branch: 'branch',
  remote: 'remote',
  'review-id': 'review',
  agent: 'agent',
  'setting-key': 'setting',
  kind: 'text',
  source: 'source',
  provider: 'text',
};

/**
 * A slash command's arguments and options from the CLI command at `path` in the command table
 * (src/views/command-table.ts): its positionals in order (the last repeating when it takes every
 * remaining word), and the `options` named (the TUI takes fewer than the CLI), each a flag or the kind of its value.
 */
export function fromTable(path: readonly string[], options: readonly string[] = []): Pick<CommandShape, 'args' | 'repeat' | 'options'> {
  const decl = findCommand(path);
  if (!decl) throw new Error(`No command ${path.join(' ')} in the command table.`);
  const kind = (d: { values?: ValueKind }): ArgKind => (d.values ? ARG_KINDS[d.values] : 'text');
  const positionals = decl.positionals ?? [];
  const shape: Pick<CommandShape, 'args' | 'repeat' | 'options'> = {
    args: positionals.map(kind),
    ...(positionals[positionals.length - 1]?.variadic ? { repeat: true } : {}),
  };
  if (options.length > 0)
    return {
      ...shape,
      options: Object.fromEntries(
        options.map((name) => {
          const option = decl.options?.[name];
          if (!option) throw new Error(`No option --${name} of ${path.join(' ')} in the command table.`);
          return [`--${name}`, option.type === 'boolean' ? 'flag' : kind(option)];
        }),
      ),
    };
  return shape;
}

export interface ParsedCommand {
  name: string;
  subcommand?: string;
  args: string[];
  options: Record<string, string | true>;
}

/** Words of a line: spaces separate them, "double" or 'single' quotes keep spaces inside one. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === ' ') {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

export class CommandLineError extends Error {}

/** A slash command line (`/vc log --limit 5`) against the specs; throws CommandLineError for bad input. */
export function parseCommandLine(line: string, specs: readonly CommandSpec[]): ParsedCommand {
  const words = splitWords(line.trim().replace(/^\//, ''));
  const name = words.shift() ?? '';
  const spec = specs.find((s) => s.name === name);
  if (!spec) {
    const close = specs.filter((s) => s.name.startsWith(name.slice(0, 2))).map((s) => `/${s.name}`);
    throw new CommandLineError(`No command /${name}.${close.length ? ` Did you mean ${close.join(', ')}?` : ''} /help lists them all.`);
  }
  let shape: CommandShape = spec;
  let subcommand: string | undefined;
  if (spec.subcommands) {
    subcommand = words.shift();
    const chosen = subcommand === undefined ? undefined : spec.subcommands[subcommand];
    if (!chosen) {
      throw new CommandLineError(
        `${subcommand === undefined ? `/${name} needs a sub-command` : `/${name} has no sub-command ${subcommand}`}: ${Object.keys(spec.subcommands).join(', ')}.`,
      );
    }
    shape = chosen;
  }
  const args: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith('--') && word.length > 2) {
      const [option, inline] = word.includes('=')
        ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
        : [word, undefined];
      const kind = shape.options?.[option];
      if (kind === undefined) {
        const known = Object.keys(shape.options ?? {});
        throw new CommandLineError(
          `${usageName(name, subcommand)} has no option ${option}.${known.length ? ` Its options: ${known.join(', ')}.` : ''}`,
        );
      }
      if (kind === 'flag') {
        if (inline !== undefined) throw new CommandLineError(`${option} takes no value.`);
        options[option] = true;
      } else {
        const value = inline ?? words[++i];
        if (value === undefined || value === '') throw new CommandLineError(`${option} needs a value.`);
        options[option] = value;
      }
    } else args.push(word);
  }
  const allowed = shape.args?.length ?? 0;
  if (!shape.repeat && args.length > allowed) {
    throw new CommandLineError(
      `${usageName(name, subcommand)} takes ${allowed === 0 ? 'no arguments' : `at most ${allowed}`}: ${spec.usage}`,
    );
  }
  return { name, ...(subcommand ? { subcommand } : {}), args, options };
}

function usageName(name: string, subcommand: string | undefined): string {
  return `/${name}${subcommand ? ` ${subcommand}` : ''}`;
}
