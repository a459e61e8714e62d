import { printJson, printText } from '../output.js';
import { setExitCode } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { HOOK_PROMPT_SUBMIT } from '../../views/agent-commands.js';

/**
 * Claude Code's UserPromptSubmit hook: whatever it prints is appended to the user's prompt, so it
 * prints the short "query first, curate after" guide (templates/prompt-hook.md). It runs before every
 * prompt, so it starts no git and reads one file; and it must never get in the user's way: any
 * failure (no template, no repository, a closed stdout) prints nothing and exits 0.
 */
export const hookPromptSubmitCommand = tableCommand(HOOK_PROMPT_SUBMIT, {
  handler: async (argv) => {
    let text = '';
    try {
      const { promptHookText } = await import('../../service/texts.js');
      text = await promptHookText();
    } catch {
      text = '';
    }
    try {
      if (argv.format === 'json') printJson('hook-prompt-submit', true, { text });
      else if (text) printText(text);
    } catch {
      // stdout closed by the caller: nothing to report to anyone
    }
    setExitCode(0);
  },
});
