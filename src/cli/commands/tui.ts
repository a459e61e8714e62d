import { tmpdir } from 'node:os';
import { cliActor, cliService, reportingErrors, type GlobalOptions, cliCwd } from '../context.js';
import { EXIT_USAGE, printError } from '../output.js';
import { configuredEditor } from './edit.js';
import { cliIo } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

/** NO_COLOR (no-color.org): present and not empty. */
function noColor(): boolean {
  const value = cliIo().env.NO_COLOR;
  return value !== undefined && value !== '';
}

/** Opens the terminal REPL (`brv tui`, and `brv` with no arguments on a terminal). Its code (ink, React) is loaded here only. */
export async function startTui(argv: GlobalOptions): Promise<void> {
  await reportingErrors('tui', argv, async () => {
    if (!cliIo().stdin.isTTY || !cliIo().stdout.isTTY) {
      return printError(
        'tui',
        argv.format,
        'usage',
        'brv tui needs a terminal on stdin and stdout. Scripts and agents use the commands (brv --help), or brv mcp.',
        EXIT_USAGE,
      );
    }
    const [{ runTui }, service] = await Promise.all([import('../../tui/run.js'), cliService()]);
    await runTui({
      service,
      cwd: cliCwd(argv.C),
      // Recorded as the Brv-Agent of what the REPL writes (like the dashboard's `webui`), unless BRV_AGENT names one.
      actor: { agent: cliActor().agent || 'tui' },
      stdin: process.stdin,
      stdout: process.stdout,
      noColor: noColor(),
      editor: configuredEditor() ?? 'vi',
      tempRoot: tmpdir(),
    });
  });
}

export const tuiCommand = tableCommand(declaration('tui'), {
  handler: (argv) => startTui(argv),
});
