import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { BrvError } from '../../errors.js';
import type { EditSaveResult } from '../../service/knowledge.js';
import { cliActor, cliService, withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { editErrorsComment, editText, stripEditErrorsComment } from '../../views/edit.js';
import type { Brv } from '../../service/brv.js';

type SavedEdit = Extract<EditSaveResult, { ok: true }>;

interface EditOptions extends GlobalOptions {
  path: string;
}

/** The editor a person asked for ($VISUAL, then $EDITOR), or undefined. */
function configuredEditor(): string | undefined {
  for (const name of ['VISUAL', 'EDITOR'] as const) {
    const value = process.env[name]?.trim();
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
  if (!configured && !(process.stdin.isTTY && process.stdout.isTTY)) {
    throw new BrvError(
      'no-terminal',
      'brv edit needs a terminal to run vi in. Run it in a terminal, or name an editor in $VISUAL or $EDITOR (e.g. EDITOR="code --wait").',
    );
  }
  const editor = configured ?? 'vi';
  const service = await cliService();
  const opened = await brv.knowledge.editOpen({ path: topic });
  const dir = await mkdtemp(path.join(tmpdir(), 'brv-edit-'));
  try {
    const file = path.join(dir, `${path.basename(opened.topicPath)}.html`);
    let text = opened.html;
    let header = '';
    let failed: string | undefined;
    for (;;) {
      await writeFile(file, header + text);
      await service.runEditor({ editor, file });
      text = stripEditErrorsComment(await readEdited(file));
      if (text.trim() === '') throw new BrvError('edit-aborted', `The file was emptied: ${opened.topicPath} is unchanged.`);
      if (failed !== undefined && text === failed) {
        const { file: kept } = await brv.knowledge.keepEditText({ path: opened.topicPath, html: text });
        throw new BrvError(
          'edit-aborted',
          `The topic still fails validation and was saved unchanged, so nothing was written. Your text is in ${kept}.`,
        );
      }
      if (text === opened.html)
        return { ok: true, topicPath: opened.topicPath, filePath: opened.filePath, commit: undefined, unchanged: true };
      const result = await brv.knowledge.editSave({ path: opened.topicPath, html: text, version: opened.version }, cliActor());
      if (result.ok) return result;
      failed = text;
      header = editErrorsComment(result.errors);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The file the editor saved, refused before reading when an editor or a paste made it absurdly large. */
async function readEdited(file: string): Promise<string> {
  const { size } = await stat(file);
  if (size > MAX_EDITED_BYTES) {
    throw new BrvError('too-large', `The edited file is ${size} bytes, far over a topic's limit; nothing was saved.`);
  }
  return readFile(file, 'utf8');
}

/** Well above a topic's limit (the service reports that one precisely), far below what could exhaust memory. */
const MAX_EDITED_BYTES = 16 * 1024 * 1024;

export const editCommand: CommandModule<GlobalOptions, EditOptions> = {
  command: 'edit <path>',
  describe: 'Edit a topic in $VISUAL/$EDITOR: checked on save, committed only if nobody changed it meanwhile (Brv-Op: edit)',
  builder: (y) =>
    y
      .positional('path', { type: 'string', demandOption: true, describe: 'Topic path, e.g. security/auth (".html" optional)' })
      .epilogue(
        'The editor is $VISUAL, else $EDITOR, else vi (vi only on a terminal). A topic that fails validation is reopened with the ' +
          'errors in a comment at the top; save it unchanged (or empty the file) to give up. If the topic changed while you ' +
          'edited, nothing is written and your text is kept in a file the error names.',
      ),
  handler: (argv) =>
    withBrv('edit', argv, async (brv) => {
      const result = await editInEditor(brv, argv.path);
      if (argv.format === 'json') return printJson('edit', true, result);
      printText(editText(result));
    }),
};
