// Bundled and run once by scripts/man-pages.mjs at build time: prints, as JSON, every command path
// with its --help text, read from the same yargs command tree the CLI uses.
import { createParser } from '../src/cli/parser.js';

// Man pages are read in 80-column terminals.
Object.defineProperty(process.stdout, 'columns', { value: 78 });

function help(words: string[]): Promise<string> {
  const args = [...words, '--help'];
  return new Promise((resolve, reject) => {
    createParser(args, 'brv')
      .exitProcess(false)
      .parse(args, (error: Error | null, _argv: unknown, output: string) => (error ? reject(error) : resolve(output.trimEnd())));
  });
}

async function tree(words: string[], out: Array<{ words: string[]; text: string }>): Promise<void> {
  const text = await help(words);
  out.push({ words, text });
  const section = text.split('\n\n').find((block) => block.startsWith('Commands:'));
  const prefix = `  ${['brv', ...words].join(' ')} `;
  for (const line of section?.split('\n').slice(1) ?? []) {
    if (!line.startsWith(prefix)) continue;
    const name = /^[a-z][a-z-]*/.exec(line.slice(prefix.length))?.[0];
    if (name) await tree([...words, name], out);
  }
}

const out: Array<{ words: string[]; text: string }> = [];
await tree([], out);
process.stdout.write(JSON.stringify(out));
