// `brv __complete <words…>` (hidden): what can follow the words typed so far, one candidate a line,
// for the scripts `brv completion` writes. Commands, sub-commands and options come from the command
// table; values from the service (src/service/completion.ts): local git reads only, never the network.
import path from 'node:path';
import { completionValues, type ValueKind } from '../service/completion.js';
import { COMMAND_TABLE, GLOBAL_OPTION_DECLS, pathCandidates, type CommandDecl, type OptionDecl } from '../views/command-table.js';

/** The candidates of a kind of value for the word being typed: topic paths one folder at a time. */
async function valuesOf(kind: ValueKind, cwd: string, env: Readonly<Record<string, string | undefined>>, typed: string): Promise<string[]> {
  const values = await completionValues(kind, cwd, env);
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

/** What can follow `words` (the last one is the word being typed, '' for a new one), printable ones only. */
export async function complete(
  words: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string[]> {
  const typing = words[words.length - 1] ?? '';
  const done = words.slice(0, -1);
  let commands: readonly CommandDecl[] = COMMAND_TABLE;
  let command: CommandDecl | undefined;
  let options: Record<string, OptionDecl> = { ...GLOBAL_OPTION_DECLS };
  const positionals: string[] = [];
  let where = cwd;
  for (let i = 0; i < done.length; i++) {
    const word = done[i]!;
    if (word.startsWith('-')) {
      const decl = findOption(options, word);
      if (decl && decl.type !== 'boolean' && !word.includes('=')) {
        if (word === '-C' && done[i + 1]) where = path.resolve(cwd, done[i + 1]!);
        i++;
      }
      continue;
    }
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
  const declared = (decl: { values?: ValueKind; choices?: readonly string[] } | undefined) =>
    decl?.choices ? [...decl.choices] : decl?.values ? valuesOf(decl.values, where, env, typing) : [];
  if (valueOf && valueOf.type !== 'boolean') candidates = await declared(valueOf);
  else if (typing.startsWith('-')) candidates = Object.keys(options).map(optionWord);
  else if (positionals.length === 0 && commands.length > 0) candidates = commands.map((c) => c.name);
  else candidates = await declared(command?.positionals?.[positionals.length]);
  return candidates.filter((candidate) => candidate.startsWith(typing) && printable(candidate));
}
