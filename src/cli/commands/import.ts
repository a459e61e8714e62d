import path from 'node:path';
import type { CommandModule } from 'yargs';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { EXIT_FAILURE, note, printJson, printText } from '../output.js';
import { importNotes, importRefusedText, importText } from '../../views/transfer.js';

interface ImportOptions extends GlobalOptions {
  dir: string;
  overwrite: boolean;
  'skip-invalid': boolean;
}

export const importCommand: CommandModule<GlobalOptions, ImportOptions> = {
  command: 'import <dir>',
  describe: 'Import a ByteRover context tree (HTML topics, legacy Markdown converted) or a folder of <bv-topic> files, as one commit',
  builder: (y) =>
    y
      .positional('dir', {
        type: 'string',
        demandOption: true,
        describe: 'A ByteRover project, its .brv/ or .brv/context-tree, or any folder of topics (scanned recursively)',
      })
      .option('overwrite', { type: 'boolean', default: false, describe: 'Replace existing topics whose content differs' })
      .option('skip-invalid', {
        type: 'boolean',
        default: false,
        describe: 'Import the valid topics and report the others, instead of importing nothing',
      }),
  handler: (argv) =>
    withBrv('import', argv, async (brv) => {
      if (argv.format === 'text') note(`Validating topics under ${argv.dir}…`);
      const result = await brv.knowledge.importTree(
        { directory: path.resolve(argv.C ?? process.cwd(), argv.dir), overwrite: argv.overwrite, skipInvalid: argv['skip-invalid'] },
        cliActor(),
      );
      if (!result.ok) process.exitCode = EXIT_FAILURE;
      if (argv.format === 'json') return printJson('import', result.ok, result);
      if (!result.ok) return printText(importRefusedText(result));
      for (const line of importNotes(result)) note(line);
      printText(importText(result));
    }),
};
