import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { reviewDecisionText, reviewsText, reviewToggleText } from '../../views/review.js';
import type { Brv } from '../../service/brv.js';

async function printPending(brv: Brv, format: GlobalOptions['format'], command: string): Promise<void> {
  const list = await brv.review.pending();
  if (format === 'json') return printJson(command, true, list);
  printText(reviewsText(list));
}

const reviewPendingCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'pending',
  describe: 'List changes awaiting review (high impact, deletions, merges that kept two versions)',
  handler: (argv) => withBrv('review pending', argv, (brv) => printPending(brv, argv.format, 'review pending')),
};

interface DecideOptions extends GlobalOptions {
  id: string;
  file?: string[];
}

function decideCommand(decision: 'approve' | 'reject'): CommandModule<GlobalOptions, DecideOptions> {
  return {
    command: `${decision} <id>`,
    describe:
      decision === 'approve'
        ? 'Keep a reviewed change (a held change lands on the branch now)'
        : 'Undo a reviewed change on the current tip (later, unrelated changes survive)',
    builder: (y) =>
      y
        .positional('id', { type: 'string', demandOption: true, describe: 'The review id from brv review pending (a prefix is enough)' })
        .option('file', { type: 'string', array: true, describe: 'Only these topics (repeatable); the rest stay pending' }),
    handler: (argv) =>
      withBrv(`review ${decision}`, argv, async (brv) => {
        const result =
          decision === 'approve'
            ? await brv.review.approve({ id: argv.id, files: argv.file })
            : await brv.review.reject({ id: argv.id, files: argv.file });
        if (argv.format === 'json') return printJson(`review ${decision}`, true, { ...result, status: 'success' });
        printText(reviewDecisionText(decision, result));
      }),
  };
}

interface ReviewOptions extends GlobalOptions {
  enable?: boolean;
  disable?: boolean;
}

export const reviewCommand: CommandModule<GlobalOptions, ReviewOptions> = {
  command: 'review [command]',
  describe: 'Human review of agent changes: pending, approve <id>, reject <id>',
  builder: (y) =>
    y
      .command(reviewPendingCommand)
      .command(decideCommand('approve') as never)
      .command(decideCommand('reject') as never)
      .option('enable', { type: 'boolean', describe: 'Open reviews again (git config brv.review.enabled true)' })
      .option('disable', { type: 'boolean', describe: 'Stop opening reviews in this repository' })
      .conflicts('enable', 'disable'),
  handler: (argv) =>
    withBrv('review', argv, async (brv) => {
      if (argv.enable || argv.disable) {
        await brv.review.setEnabled({ enabled: Boolean(argv.enable) });
        if (argv.format === 'json') return printJson('review', true, { enabled: Boolean(argv.enable) });
        return printText(reviewToggleText(Boolean(argv.enable)));
      }
      await printPending(brv, argv.format, 'review');
    }),
};
