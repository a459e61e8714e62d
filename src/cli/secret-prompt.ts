import { cliIo } from './io.js';

/**
 * Reads one line from the terminal without echoing it (an API key): raw mode, Enter ends it,
 * Backspace deletes, Ctrl-C / Ctrl-D give up (undefined), pasted text is taken whole.
 * For interactive use only: the caller checks that stdin and stderr are terminals.
 */
export function readSecret(prompt: string): Promise<string | undefined> {
  const input = cliIo().stdin as NodeJS.ReadStream;
  const output = cliIo().stderr;
  output.write(prompt);
  return new Promise((resolve) => {
    let value = '';
    const finish = (result: string | undefined) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish(value);
        if (char === '\u0003' || char === '\u0004') return finish(undefined);
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}
