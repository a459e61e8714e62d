#!/usr/bin/env node
import { fastParse } from './fast-args.js';

// BRV_TRACE=1 prints where a command spent its time (performance marks set across the library).
if (process.env.BRV_TRACE) {
  process.on('exit', () => {
    for (const mark of performance.getEntriesByType('mark'))
      process.stderr.write(`${mark.startTime.toFixed(1).padStart(8)} ms  ${mark.name}\n`);
  });
}
performance.mark('cli: modules loaded');

const args = process.argv.slice(2);
// Invoked as `git brv …`, git puts us on PATH as git-brv; the program is the same.
const scriptName = process.argv[1]?.endsWith('git-brv') ? 'git brv' : 'brv';

async function main(): Promise<void> {
  // The commands agents run in a loop skip yargs when their command line is plain (fast-args.ts).
  const fast = fastParse(args, scriptName);
  if (fast) return fast.handler(fast.argv);
  const { runParser } = await import('./parser.js');
  performance.mark('cli: parser loaded');
  return runParser(args, scriptName);
}

// No top-level await: the build emits a script (see scripts/build.mjs). A failure here is a bug;
// rethrown outside the promise it ends the process with its stack and exit code 1.
main().catch((error: unknown) =>
  setImmediate(() => {
    throw error;
  }),
);
