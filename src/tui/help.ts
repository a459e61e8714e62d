import type { CommandSpec } from './command-line.js';

/** `/help`: every command with what it does, then the keys. Markdown, laid out like a topic. */
export function helpMarkdown(commands: readonly CommandSpec[]): string {
  const rows = commands.map((c) => `| \`${c.usage.replace(/\|/g, '\\|')}\` | ${c.summary} |`);
  return [
    '# brv',
    'Type a question and press Enter: the matching topics, ranked, to open one by one. A line that starts with `/` is a command.',
    '## Commands',
    ['| Command | What it does |', '| --- | --- |', ...rows].join('\n'),
    '## Keys',
    '- **Tab** completes commands, options, topic paths, branches, remotes and review ids, and `@file` paths of the work tree after `/curate`.',
    '- **↑ ↓** recall earlier lines (kept for this repository); **Ctrl-R** searches them, again for older matches.',
    '- **Ctrl-A / Ctrl-E** start and end of the line, **Ctrl-W** the word before, **Ctrl-U** everything before the caret, **Ctrl-K** after.',
    '- In a list or page: **↑ ↓ PgUp PgDn Space Home End** move, **Enter** opens, **Esc** goes back.',
    '- **Ctrl-C** stops what is running (its result is dropped; a model-driven `/curate` is cancelled and writes nothing); twice at the prompt, or **Ctrl-D** on an empty line, leaves.',
    '## Live',
    'The status line shows the repository, the brv branch, its topics, pending reviews and how it stands with its remote. A change made anywhere else (an agent curating, `git fetch`, another terminal) shows up as a note and refreshes what is on screen.',
  ].join('\n\n');
}
