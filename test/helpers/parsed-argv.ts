import { commands } from '../../src/cli/commands/index.js';
import { createParser } from '../../src/cli/parser.js';

/** The argv any command, sub-commands included, would get: taken once validation passed, before its handler runs; undefined for a usage error. */
export async function parsedArgv(args: string[]): Promise<Record<string, unknown> | undefined> {
  let seen: Record<string, unknown> | undefined;
  let failed = false;
  const stop = new Error('parsed');
  const parser = createParser(args, 'brv', commands, () => (failed = true))
    .exitProcess(false)
    .middleware((argv) => {
      seen = { ...argv };
      throw stop;
    });
  try {
    await parser.parseAsync();
  } catch (error) {
    if (error !== stop) failed = true;
  }
  return failed ? undefined : seen;
}
