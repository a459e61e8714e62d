import { tmpdir } from 'node:os';
import { BrvError } from '../../base/errors.js';
import type { EditSaveResult } from '../../service/knowledge.js';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { editText } from '../../views/edit.js';
import type { Brv } from '../../service/brv.js';
import { cliIo } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

type SavedEdit = Extract<EditSaveResult, { ok: true }>;

interface EditOptions extends GlobalOptions {
  path: string;
}

/** The editor a person asked for ($VISUAL, then $EDITOR), or undefined. */
export function configuredEditor(): string | undefined {
  for (const name of ['VISUAL', 'EDITOR'] as const) {
    const value = cliIo().env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * The edit loop of `brv edit` (and `brv review resolve --edit`): opens the topic in the person's editor,
 * saves it by compare-and-swap on the version opened, reopens it with the errors while it does not
 * validate. Throws `no-terminal`, `edit-aborted`, `edit-conflict`, `editor-failed`.
 */
export async function editInEditor(brv: Brv, topic: string): Promise<SavedEdit> {
  const configured = configuredEditor();
  if (!configured && !(cliIo().stdin.isTTY && cliIo().stdout.isTTY)) {
    throw new BrvError(
      'no-terminal',
      'brv edit needs a terminal to run vi in. Run it in a terminal, or name an editor in $VISUAL or $EDITOR (e.g. EDITOR="code --wait").',
    );
  }
  return brv.knowledge.editInEditor({ path: topic, editor: configured ?? 'vi', tempRoot: tmpdir() }, cliActor());
}

export const editCommand = tableCommand<EditOptions>(declaration('edit'), {
  handler: (argv) =>
    withBrv('edit', argv, async (brv) => {
      const result = await editInEditor(brv, argv.path);
      if (argv.format === 'json') return printJson('edit', true, result);
      printText(editText(result));
    }),
});
