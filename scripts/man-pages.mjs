// Writes the man pages, brv.1 and git-brv.1 (git maps `git brv --help` to `man git-brv`), into
// dist/man/man1/ from the built CLI's own --help texts: the page is the command tree yargs prints,
// every command and sub-command with its options, so it cannot drift from the program.
import { inkWithoutTopLevelAwait } from './ink-plugin.mjs';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Every command path with its --help text: scripts/help-tree.ts, bundled and run in one process. */
async function commandTree(build, define) {
  const bundle = 'dist/help-tree.mjs';
  await build({
    entryPoints: ['scripts/help-tree.ts'],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    define,
    alias: { 'string-width': './scripts/shims/string-width.mjs' },
    // The TUI's ink, as the CLI build has it (the help bundle reaches it through `brv tui`).
    plugins: [inkWithoutTopLevelAwait],
    logLevel: 'warning',
  });
  try {
    return JSON.parse(execFileSync(process.execPath, [bundle], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } }));
  } finally {
    await rm(bundle, { force: true });
  }
}

/** Text for roff: backslashes escaped, lines that would read as requests protected. */
const roff = (text) =>
  text
    .replace(/\\/g, '\\e')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');

export async function writeManPages(version, build, outDir = 'dist/man/man1') {
  const tree = await commandTree(build, { BRV_VERSION: JSON.stringify(version) });
  const [top, ...commands] = tree;
  const description = top.text.split('\n\n')[1]?.trim() ?? '';
  await mkdir(outDir, { recursive: true });
  for (const name of ['brv', 'git-brv']) {
    const invoked = name === 'git-brv' ? 'git brv' : 'brv';
    const page = [
      `.TH ${name.toUpperCase()} 1 "" "brv ${version}" "brv manual"`,
      '.SH NAME',
      `${name} \\- ${roff(description.replace(/\.$/, ''))}`,
      '.SH SYNOPSIS',
      `.B ${invoked}`,
      '.I command',
      '[options]',
      '.SH DESCRIPTION',
      roff(description),
      '.PP',
      `\\fBbrv\\fR and \\fBgit brv\\fR are the same program. Every command takes \\fB--format json\\fR (one line,`,
      'for agents and scripts) and \\fB--help\\fR. Exit status: 0 success, 1 failure, 2 usage error.',
      '\\fB--\\fR ends options: every word after it is an argument.',
      '.SH OVERVIEW',
      '.nf',
      roff(top.text),
      '.fi',
      '.SH COMMANDS',
      ...commands.flatMap(({ words, text }) => [`.SS ${invoked} ${words.join(' ')}`, '.nf', roff(text), '.fi']),
      '.SH SHELL COMPLETION',
      '.nf',
      'source <(brv completion bash)      # bash; zsh and fish: brv completion zsh|fish',
      '.fi',
      '.SH ENVIRONMENT',
      '.TP',
      '.B BRV_AGENT',
      'The agent running brv, recorded as the Brv-Agent trailer of its commits.',
      '.TP',
      '.B BRV_TRACE',
      'Print where a command spent its time.',
      '.TP',
      '.B BRV_DEBUG',
      'Print the stack of an unexpected failure.',
      '.TP',
      '.B BRV_PROGRESS',
      '"always" shows progress on stderr even when it is not a terminal; "never" hides it.',
      '.SH SEE ALSO',
      '\\fBgit\\fR(1), https://github.com/ (README.md of the brv package)',
      '',
    ].join('\n');
    await writeFile(path.join(outDir, `${name}.1`), page);
  }
  return tree.length;
}
