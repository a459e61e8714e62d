import type { CommandModule } from 'yargs';
import type { GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { COMPLETION_SHELLS, completionScript, type CompletionShell } from '../../views/completion.js';

interface CompletionOptions extends GlobalOptions {
  shell: CompletionShell;
}

export const completionCommand: CommandModule<GlobalOptions, CompletionOptions> = {
  command: 'completion <shell>',
  describe: 'Print a shell completion script for commands, sub-commands and options (bash, zsh or fish)',
  builder: (y) =>
    y
      .positional('shell', { choices: COMPLETION_SHELLS, demandOption: true, describe: 'The shell to complete in' })
      .example('source <(brv completion bash)', 'Complete brv (and git brv) in this bash session')
      .example('brv completion fish > ~/.config/fish/completions/brv.fish', 'Install it for fish'),
  handler: (argv) => {
    const script = completionScript(argv.shell);
    if (argv.format === 'json') return printJson('completion', true, { shell: argv.shell, script });
    printText(script);
  },
};
