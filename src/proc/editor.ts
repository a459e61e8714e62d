import { childProcess } from '../git/child-process.js';
import { BrvError } from '../base/errors.js';
import type { GitProcesses } from '../git/processes.js';

/**
 * Runs a person's editor on `file` the way git runs `core.editor`: the command is shell text (it may
 * carry arguments, `code --wait`), the file is passed as one argument, the terminal is inherited.
 * Resolves when the editor exits successfully; otherwise `editor-failed`.
 */
export function runEditor(processes: GitProcesses, command: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn('sh', ['-c', `${command} "$@"`, command, file], { stdio: 'inherit', env: processes.environment() });
    processes.track(child);
    child.on('error', (error) =>
      reject(
        new BrvError(
          'editor-failed',
          `Could not start the editor (${command}): ${error.message}. Set $VISUAL or $EDITOR to one that exists.`,
        ),
      ),
    );
    child.on('exit', (code, signal) => {
      if (code === 0) return resolve();
      reject(
        new BrvError(
          'editor-failed',
          `The editor (${command}) ${signal ? `was stopped by ${signal}` : `exited with code ${code}`}; nothing was saved.`,
        ),
      );
    });
  });
}
