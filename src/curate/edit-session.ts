import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import type { CurateError } from './envelope.js';
import type { OpenedTopic, SavedEdit } from './edit-topic.js';

/** The first line of the comment the edit loop puts above a topic that failed validation (and strips again). */
const EDIT_ERRORS_MARK = '<!-- brv edit:';

/** Well above a topic's limit (the save reports that one precisely), far below what could exhaust memory. */
const MAX_EDITED_BYTES = 16 * 1024 * 1024;

/**
 * The errors of a failed save, as an HTML comment placed above the topic when the editor reopens.
 * `--` cannot appear inside a comment, so it is broken up; the whole comment is stripped before validating.
 */
function editErrorsComment(errors: readonly CurateError[]): string {
  const lines = [`${EDIT_ERRORS_MARK} the topic was NOT saved. Fix what is listed, then save and quit.`];
  lines.push('  This comment is removed before the topic is checked. Save it unchanged to give up (your text is kept).');
  // Lines as the editor shows them: the topic starts below this comment.
  const shift = lines.length + errors.length + 1;
  for (const error of errors) {
    const where = error.line === undefined ? '' : `line ${error.line + shift}${error.column === undefined ? '' : `:${error.column}`}: `;
    lines.push(`  - ${where}${error.kind}: ${error.message}`.replace(/--/g, '- -').replace(/>/g, '&gt;'));
  }
  lines.push('-->');
  return `${lines.join('\n')}\n`;
}

/** The edited text without the errors comment `editErrorsComment` put above it. */
function stripEditErrorsComment(text: string): string {
  const start = text.search(/\S/);
  if (start < 0 || !text.startsWith(EDIT_ERRORS_MARK, start)) return text;
  const end = text.indexOf('-->', start);
  if (end < 0) return text;
  return text.slice(end + 3).replace(/^\r?\n/, '');
}

/** What the edit loop needs of the repository and of the person's editor. */
export interface EditSessionSteps {
  open(): Promise<OpenedTopic>;
  save(html: string, version: string): Promise<SavedEdit>;
  /** Keeps text that could not be saved; returns the file it is in. */
  keep(html: string): Promise<string>;
  /** Runs the person's editor on `file` and waits for it. */
  edit(file: string): Promise<void>;
}

/** The file the editor saved, refused before reading when an editor or a paste made it absurdly large. */
async function readEdited(file: string): Promise<string> {
  const { size } = await stat(file);
  if (size > MAX_EDITED_BYTES) {
    throw new BrvError('too-large', `The edited file is ${size} bytes, far over a topic's limit; nothing was saved.`);
  }
  return readFile(file, 'utf8');
}

/**
 * The edit loop of `brv edit` (the TUI's `/edit`, `brv review resolve --edit`): the topic goes into a
 * file in a fresh folder under `tempRoot`, the person's editor runs on it, the text is saved by
 * compare-and-swap on the version opened, and the file is reopened with the errors while it does not
 * validate. Saving it unchanged after a refusal (or emptying it) gives up. The folder is removed
 * whatever happens. Throws `edit-aborted`, `edit-conflict`, `editor-failed`, `too-large`.
 */
export async function runEditSession(tempRoot: string, steps: EditSessionSteps): Promise<Extract<SavedEdit, { ok: true }>> {
  const opened = await steps.open();
  const dir = await mkdtemp(path.join(tempRoot, 'brv-edit-'));
  try {
    const file = path.join(dir, `${path.basename(opened.topicPath)}.html`);
    let text = opened.html;
    let header = '';
    let failed: string | undefined;
    for (;;) {
      await writeFile(file, header + text);
      await steps.edit(file);
      text = stripEditErrorsComment(await readEdited(file));
      if (text.trim() === '') throw new BrvError('edit-aborted', `The file was emptied: ${opened.topicPath} is unchanged.`);
      if (failed !== undefined && text === failed) {
        const kept = await steps.keep(text);
        throw new BrvError(
          'edit-aborted',
          `The topic still fails validation and was saved unchanged, so nothing was written. Your text is in ${kept}.`,
        );
      }
      if (text === opened.html)
        return { ok: true, topicPath: opened.topicPath, filePath: opened.filePath, commit: undefined, unchanged: true };
      const result = await steps.save(text, opened.version);
      if (result.ok) return result;
      failed = text;
      header = editErrorsComment(result.errors);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
