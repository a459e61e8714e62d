import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { branchRef, DEFAULT_BRANCH } from '../../base/ref-names.js';
import { readText } from '../../views/topics.js';

interface ReadOptions extends GlobalOptions {
  path: string;
  raw: boolean;
  at?: string;
}

export const readCommand: CommandModule<GlobalOptions, ReadOptions> = {
  command: 'read <path>',
  describe: 'Show one topic, rendered as markdown (or its stored HTML with --raw)',
  builder: (y) =>
    y
      .positional('path', { type: 'string', demandOption: true, describe: 'Topic path, e.g. security/auth (".html" optional)' })
      .option('raw', {
        type: 'boolean',
        default: false,
        describe: 'Print the stored <bv-topic> HTML instead of markdown (control characters shown as U+FFFD; see below)',
      })
      .option('at', { type: 'string', describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)' })
      .epilog(
        `Nothing brv prints carries a control character, --raw included: one in a topic (only a blob that never met brv's validator, such as a teammate's push made with plumbing, can hold one) is shown as U+FFFD, so it cannot drive your terminal (escape sequences, window titles, clipboard writes). The exact stored text: --raw --format json (data.content, controls escaped in the JSON string), or git itself: git show ${branchRef(DEFAULT_BRANCH)}:<path>.html.`,
      ),
  handler: (argv) =>
    withBrv('read', argv, async (brv) => {
      const result = await brv.knowledge.read({ path: argv.path, raw: argv.raw, at: argv.at });
      if (argv.format === 'json') return printJson('read', true, result);
      printText(readText(result));
    }),
};
