// Tab completion at the prompt: command names, sub-commands, options, and the values an argument
// names (topic paths folder by folder, branches, remotes, review ids…). Pure: the values come from
// the App's caches.
import { splitWords, type ArgKind, type CommandShape, type CommandSpec } from './command-line.js';
import type { Line } from './line-editor.js';
import { pathCandidates } from '../views/command-table.js';

export { pathCandidates };

export interface Completion {
  line: Line;
  /** What the word could still become, when Tab could not decide (shown under the prompt). */
  choices: string[];
}

/** Choices listed at most. */
const MAX_CHOICES = 40;

function commonPrefix(words: readonly string[]): string {
  if (words.length === 0) return '';
  let prefix = words[0]!;
  for (const word of words) {
    let i = 0;
    while (i < prefix.length && i < word.length && prefix[i] === word[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}

function shapeFor(spec: CommandSpec, words: readonly string[]): { shape: CommandShape; used: number } | undefined {
  if (!spec.subcommands) return { shape: spec, used: 1 };
  const sub = words[1] === undefined ? undefined : spec.subcommands[words[1]];
  return sub ? { shape: sub, used: 2 } : undefined;
}

/**
 * Completes the word before the caret. One match: it is put in (with a space after, unless it is a
 * folder). Several: their common beginning is put in and they are listed. None: nothing changes.
 */
export function complete(line: Line, specs: readonly CommandSpec[], values: (kind: ArgKind) => readonly string[]): Completion {
  const before = line.text.slice(0, line.cursor);
  const none = { line, choices: [] };
  if (!before.startsWith('/')) return none;
  const words = splitWords(before.slice(1));
  const typing = before.endsWith(' ') ? '' : (words.pop() ?? '');
  let candidates: string[];
  let folderLike = false;
  if (words.length === 0) {
    candidates = specs.map((s) => s.name);
  } else {
    const spec = specs.find((s) => s.name === words[0]);
    if (!spec) return none;
    if (spec.subcommands && words.length === 1) candidates = Object.keys(spec.subcommands);
    else {
      const found = shapeFor(spec, words);
      if (!found) return none;
      const { shape, used } = found;
      const previous = words[words.length - 1];
      const optionKind = previous?.startsWith('--') ? shape.options?.[previous] : undefined;
      if (typing.startsWith('-')) candidates = Object.keys(shape.options ?? {});
      else if (shape.mentions && typing.startsWith('@')) {
        candidates = pathCandidates(values('file'), typing.slice(1)).map((file) => `@${file}`);
        folderLike = true;
      } else {
        let kind: ArgKind | undefined;
        if (optionKind !== undefined && optionKind !== 'flag') kind = optionKind;
        else {
          // Positional words so far (an option's value is not one).
          let position = 0;
          for (let i = used; i < words.length; i++) {
            const word = words[i]!;
            if (word.startsWith('--')) {
              if (shape.options?.[word] !== 'flag' && !word.includes('=')) i++;
            } else position++;
          }
          const args = shape.args ?? [];
          kind = args[position] ?? (shape.repeat ? args[args.length - 1] : undefined);
        }
        if (kind === undefined || kind === 'text') return none;
        if (kind === 'topic' || kind === 'folder') {
          candidates = pathCandidates(values(kind), typing, kind === 'folder');
          folderLike = true;
        } else candidates = [...values(kind)];
      }
    }
  }
  const matches = candidates.filter((c) => c.startsWith(typing));
  if (matches.length === 0) return none;
  const start = line.cursor - typing.length;
  const replace = (word: string, finished: boolean): Line => {
    const rest = line.text.slice(line.cursor);
    const space = finished && !rest.startsWith(' ') ? ' ' : '';
    const text = line.text.slice(0, start) + word + space + rest;
    return { text, cursor: start + word.length + space.length };
  };
  if (matches.length === 1) {
    const only = matches[0]!;
    return { line: replace(only, !(folderLike && only.endsWith('/'))), choices: [] };
  }
  const prefix = commonPrefix(matches);
  return {
    line: prefix.length > typing.length ? replace(prefix, false) : line,
    choices: matches.slice(0, MAX_CHOICES),
  };
}
