import path from 'node:path';
import { cliActor, withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { EXIT_FAILURE, note, printJson, printText } from '../output.js';
import { importNotes, importProgressText, importRefusedText, importText } from '../../views/transfer.js';
import { cliIo, setExitCode } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface ImportOptions extends GlobalOptions {
  dir: string;
  overwrite: boolean;
  'skip-invalid': boolean;
  'dry-run': boolean;
}

/** Without a terminal, a progress line every this many topics (only for trees at least this large). */
const PROGRESS_EVERY = 500;
/** On a terminal, the progress line is shown (and rewritten in place) for trees at least this large. */
const PROGRESS_TTY_MIN = 100;

/** Progress on stderr: rewritten in place on a terminal, a count line every PROGRESS_EVERY topics otherwise. */
function progress(): (validated: number, total: number) => void {
  const tty = cliIo().stderr.isTTY === true;
  let shown = false;
  return (validated, total) => {
    if (tty) {
      if (total < PROGRESS_TTY_MIN || (validated % 25 !== 0 && validated !== total)) return;
      cliIo().stderr.write(`\r${importProgressText(validated, total)}${validated === total ? '\n' : ''}`);
      shown = validated !== total;
    } else if (total >= PROGRESS_EVERY && validated > 0 && (validated % PROGRESS_EVERY === 0 || (validated === total && shown))) {
      note(importProgressText(validated, total));
      shown = true;
    }
  };
}

export const importCommand = tableCommand<ImportOptions>(declaration('import'), {
  handler: (argv) =>
    withBrv('import', argv, async (brv) => {
      if (argv.format === 'text') note(`Validating topics under ${argv.dir}…`);
      const result = await brv.knowledge.importTree(
        {
          directory: path.resolve(cliCwd(argv.C), argv.dir),
          overwrite: argv.overwrite,
          skipInvalid: argv['skip-invalid'],
          dryRun: argv['dry-run'],
          ...(argv.format === 'text' ? { onProgress: progress() } : {}),
        },
        cliActor(),
      );
      if (!result.ok) setExitCode(EXIT_FAILURE);
      if (argv.format === 'json') return printJson('import', result.ok, result);
      if (!result.ok) return printText(importRefusedText(result));
      for (const line of importNotes(result)) note(line);
      printText(importText(result));
    }),
});
