import type { GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';
import { completionScript, type CompletionShell } from '../../views/completion.js';

interface CompletionOptions extends GlobalOptions {
  shell: CompletionShell;
}

export const completionCommand = tableCommand<CompletionOptions>(declaration('completion'), {
  handler: (argv) => {
    const script = completionScript(argv.shell);
    if (argv.format === 'json') return printJson('completion', true, { shell: argv.shell, script });
    printText(script);
  },
});
