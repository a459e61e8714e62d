#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { commands } from './commands/index.js';
import type { GlobalOptions } from './context.js';
import { EXIT_USAGE, printError, type OutputFormat } from './output.js';

const args = hideBin(process.argv);
// BRV_TRACE=1 prints where a command spent its time (performance marks set across the library).
if (process.env.BRV_TRACE) {
  process.on('exit', () => {
    for (const mark of performance.getEntriesByType('mark'))
      process.stderr.write(`${mark.startTime.toFixed(1).padStart(8)} ms  ${mark.name}\n`);
  });
}
performance.mark('cli: modules loaded');
// Invoked as `git brv …`, git puts us on PATH as git-brv; the program is the same.
const scriptName = process.argv[1]?.endsWith('git-brv') ? 'git brv' : 'brv';

function requestedFormat(): OutputFormat {
  const index = args.findIndex((a) => a === '--format' || a.startsWith('--format='));
  if (index < 0) return 'text';
  const value = args[index]!.includes('=') ? args[index]!.split('=')[1] : args[index + 1];
  return value === 'json' ? 'json' : 'text';
}

class UsageFailure extends Error {}

const parser = yargs(args)
  .scriptName(scriptName)
  .usage('$0 <command> [options]\n\nPersistent, structured memory for AI coding agents, stored on refs/brv/* in this git repository.')
  .option('format', {
    choices: ['text', 'json'] as const,
    default: 'text' as OutputFormat,
    describe: 'Output format (json: one line, for agents and scripts)',
  })
  .option('C', { type: 'string', describe: 'Run as if brv was started in this directory', requiresArg: true })
  .command(commands)
  .demandCommand(1, 'Name a command.')
  .strict()
  .recommendCommands()
  .help()
  .alias('help', 'h')
  .version()
  .wrap(Math.min(110, process.stdout.columns || 100))
  .fail((message, error) => {
    if (error) throw error;
    const command = args.find((a) => !a.startsWith('-')) ?? 'brv';
    printError(command, requestedFormat(), 'usage', `${message}${requestedFormat() === 'text' ? ' (see --help)' : ''}`, EXIT_USAGE);
    // Stop yargs here: without this it would still run the command's handler.
    throw new UsageFailure(message);
  });

// yargs renders (and caches) a command's whole help text every time the command runs, in case a
// later error wants it: ~40 ms of string-width work per invocation, measured. We print our own
// errors, so skip that cache; `--help` still renders help on demand.
const internals = (
  parser as unknown as { getInternalMethods?: () => { getUsageInstance(): { cacheHelpMessage: () => void } } }
).getInternalMethods?.();
if (internals && !args.some((a) => a === '--help' || a === '-h')) internals.getUsageInstance().cacheHelpMessage = () => {};

try {
  await parser.parseAsync();
} catch (error) {
  if (!(error instanceof UsageFailure)) throw error;
}
