// `brv __complete <words…>` (hidden): what can follow the words typed so far, one candidate a line,
// for the scripts `brv completion` writes. Commands, sub-commands and options come from the command
// table; values from the service (src/service/completion.ts): local git reads only, never the network.
import path from 'node:path';
import { completionValues, type ValueKind } from '../service/completion.js';
import { COMMAND_TABLE, GLOBAL_OPTION_DECLS, pathCandidates, type CommandDecl, type OptionDecl } from '../views/command-table.js';

/**
 * The candidates of a kind of value for the word being typed: topic paths one folder at a time;
 * element kinds as `--kind` takes them, `rule` (or `bv-rule` once `bv-` is typed).
 */
async function valuesOf(kind: ValueKind, cwd: string, env: Readonly<Record<string, string | undefined>>, typed: string): Promise<string[]> {
  const values = await completionValues(kind, cwd, env);
  if (kind === 'kind') return typed.startsWith('bv-') ? values : values.map((name) => name.replace(/^bv-/, ''));
  return kind === 'topic-path' || kind === 'folder' ? pathCandidates(values, typed, kind === 'folder') : values;
}

const optionWord = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

function findOption(options: Readonly<Record<string, OptionDecl>>, word: string): OptionDecl | undefined {
  const name = word.replace(/^--?/, '').replace(/=.*$/, '');
  for (const [key, decl] of Object.entries(options)) {
    const aliases = typeof decl.alias === 'string' ? [decl.alias] : (decl.alias ?? []);
    if (key === name || aliases.includes(name)) return decl;
  }
  return undefined;
}

/**
 * Whether a candidate can be printed for a shell, one a line: no control character (a newline or a
 * carriage return would split or overwrite a line, an escape would drive the terminal; nor the Unicode
 * line and paragraph separators), and something printable in each of its `/` parts (not only spaces
 * and invisible format characters). Values come from refs and trees a teammate's push can plant.
 */
function printable(candidate: string): boolean {
  if (/[\p{Cc}\u2028\u2029]/u.test(candidate)) return false;
  const parts = candidate.split('/').filter(Boolean);
  return parts.length > 0 && parts.every((part) => /[^\s\p{Cf}]/u.test(part));
}

/**
 * The words as typed, with an option's value joined to it: bash splits `--kind=ru` at the `=`
 * (COMP_WORDBREAKS) into `--kind`, `=`, `ru`, and readline then completes only the part after `=`.
 * `split` says the typed word came that way, so candidates are bare values.
 */
function joinValues(words: readonly string[]): { words: string[]; split: boolean } {
  const joined: string[] = [];
  let split = false;
  for (let i = 0; i < words.length; i++) {
    const previous = joined[joined.length - 1];
    if (words[i] === '=' && previous?.startsWith('-') && !previous.includes('=')) {
      const value = i + 1 < words.length ? words[++i]! : '';
      joined[joined.length - 1] = `${previous}=${value}`;
      split = i === words.length - 1;
    } else {
      joined.push(words[i]!);
      split = false;
    }
  }
  return { words: joined, split };
}

/** What can follow `words` (the last one is the word being typed, '' for a new one), printable ones only. */
export async function complete(
  typedWords: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string[]> {
  const { words, split } = joinValues(typedWords);
  let typing = words[words.length - 1] ?? '';
  const done = words.slice(0, -1);
  let commands: readonly CommandDecl[] = COMMAND_TABLE;
  let command: CommandDecl | undefined;
  let options: Record<string, OptionDecl> = { ...GLOBAL_OPTION_DECLS };
  const positionals: string[] = [];
  let where = cwd;
  // An array option (`--kind rule decision`) takes every word up to the next option, as yargs reads it.
  let taking: OptionDecl | undefined;
  for (let i = 0; i < done.length; i++) {
    const word = done[i]!;
    if (word.startsWith('-')) {
      const decl = findOption(options, word);
      if (decl && decl.type !== 'boolean' && !word.includes('=')) {
        if (word === '-C' && done[i + 1]) where = path.resolve(cwd, done[i + 1]!);
        i++;
      }
      taking = decl?.array && decl.nargs === undefined ? decl : undefined;
      continue;
    }
    if (taking) continue;
    const sub = positionals.length === 0 ? commands.find((c) => c.name === word) : undefined;
    if (sub) {
      command = sub;
      commands = sub.subcommands ?? [];
      options = { ...options, ...sub.options };
    } else positionals.push(word);
  }
  let candidates: string[];
  const previous = done[done.length - 1];
  const valueOf = previous?.startsWith('-') && !previous.includes('=') ? findOption(options, previous) : undefined;
  const declared = (decl: { values?: ValueKind; choices?: readonly string[] } | undefined, typed: string) =>
    decl?.choices ? [...decl.choices] : decl?.values ? valuesOf(decl.values, where, env, typed) : [];
  // `--kind=ru`: the option's values, written after `--kind=` unless bash split the word there.
  const inline = /^(--?[^=]+)=(.*)$/s.exec(typing);
  const inlineOption = inline ? findOption(options, inline[1]!) : undefined;
  if (inline && inlineOption && inlineOption.type !== 'boolean') {
    const values = await declared(inlineOption, inline[2]!);
    candidates = split ? values : values.map((value) => `${inline[1]}=${value}`);
    if (split) typing = inline[2]!;
  } else if (valueOf && valueOf.type !== 'boolean') candidates = await declared(valueOf, typing);
  else if (typing.startsWith('-')) candidates = Object.keys(options).map(optionWord);
  else if (taking) candidates = await declared(taking, typing);
  else if (positionals.length === 0 && commands.length > 0) candidates = commands.map((c) => c.name);
  else candidates = await declared(command?.positionals?.[positionals.length], typing);
  return candidates.filter((candidate) => candidate.startsWith(typing) && printable(candidate));
}
