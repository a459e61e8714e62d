import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { BrvError } from '../../base/errors.js';
import { EXIT_FAILURE, EXIT_USAGE, printError, printJson, printText } from '../output.js';
import type { ErrorKind } from '../../base/error-kinds.js';
import {
  conflictResolutionText,
  rejectConflictText,
  reviewConflictsText,
  reviewDecisionText,
  reviewsText,
  reviewToggleText,
} from '../../views/review.js';
import type { Brv } from '../../service/brv.js';
import type { ReviewFilter } from '../../service/review.js';
import { setExitCode } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface PendingOptions extends GlobalOptions, ReviewFilter {}

async function printPending(brv: Brv, format: GlobalOptions['format'], command: string, filter: ReviewFilter = {}): Promise<void> {
  const list = await brv.review.pending(filter);
  if (format === 'json') return printJson(command, true, list);
  printText(
    reviewsText(
      list,
      Object.values(filter).some((value) => value !== undefined && value !== ''),
    ),
  );
}

const reviewPendingCommand = tableCommand<PendingOptions>(declaration('review pending'), {
  handler: (argv) => {
    const { agent, author, impact, model, session, since } = argv;
    const filter = { agent, author, impact, model, session, since };
    return withBrv('review pending', argv, (brv) => printPending(brv, argv.format, 'review pending', filter));
  },
});

interface DecideOptions extends GlobalOptions {
  id: string;
  file?: string[];
  keepBoth?: boolean;
}

function decideCommand(decision: 'approve' | 'reject') {
  return tableCommand<DecideOptions>(declaration(`review ${decision}`), {
    handler: (argv) =>
      withBrv(`review ${decision}`, argv, async (brv) => {
        const result =
          decision === 'approve'
            ? await brv.review.approve({ id: argv.id, files: argv.file, keepBoth: argv.keepBoth })
            : await brv.review.reject({ id: argv.id, files: argv.file });
        if (result.conflicts.length > 0) {
          // Like git revert: the decision is recorded, but the undo is not done until someone picks (exit 1).
          setExitCode(EXIT_FAILURE);
          const error = { kind: 'reject-conflict' satisfies ErrorKind, message: rejectConflictText(result) };
          if (argv.format === 'json') return printJson(`review ${decision}`, false, { ...result, status: 'conflict', error });
          return printText(reviewDecisionText(decision, result));
        }
        if (argv.format === 'json') return printJson(`review ${decision}`, true, { ...result, status: 'success' });
        printText(reviewDecisionText(decision, result));
      }),
  });
}

const reviewShowCommand = tableCommand<GlobalOptions & { id: string }>(declaration('review show'), {
  handler: (argv) =>
    withBrv('review show', argv, async (brv) => {
      const result = await brv.review.conflicts({ id: argv.id });
      if (argv.format === 'json') return printJson('review show', true, result);
      printText(reviewConflictsText(result));
    }),
});

interface ResolveOptions extends GlobalOptions {
  id: string;
  topic: string;
  section?: string;
  ours?: boolean;
  theirs?: boolean;
  both?: boolean;
  edit?: boolean;
}

const reviewResolveCommand = tableCommand<ResolveOptions>(declaration('review resolve'), {
  handler: (argv) => {
    // Exactly one of four flags: more than yargs' pairwise `conflicts` can declare.
    const picked = (['ours', 'theirs', 'both', 'edit'] as const).filter((name) => argv[name]);
    if (picked.length !== 1) {
      const message = `review resolve needs exactly one of --ours, --theirs, --both, --edit${picked.length ? ` (given: ${picked.map((p) => `--${p}`).join(', ')})` : ''}`;
      return printError('review resolve', argv.format, 'usage', `${message}.${argv.format === 'text' ? ' (see --help)' : ''}`, EXIT_USAGE);
    }
    return withBrv('review resolve', argv, async (brv) => {
      if (argv.edit) {
        const pending = await brv.review.conflicts({ id: argv.id });
        if (!pending.topics.some((t) => t.path === argv.topic.replace(/\.html$/, '').replace(/^\/+/, ''))) {
          throw new BrvError(
            'file-not-in-review',
            `Review ${pending.taskId} has no topic ${argv.topic}. Its topics: ${pending.topics.map((t) => t.path).join(', ')}.`,
          );
        }
        const { editInEditor } = await import('./edit.js');
        const { editText } = await import('../../views/edit.js');
        const result = await editInEditor(brv, argv.topic);
        if (argv.format === 'json') return printJson('review resolve', true, result);
        return printText(editText(result));
      }
      const side = argv.ours ? 'ours' : argv.theirs ? 'theirs' : 'both';
      const result = await brv.review.resolve({ id: argv.id, topic: argv.topic, side, section: argv.section }, cliActor());
      if (argv.format === 'json') return printJson('review resolve', true, result);
      printText(conflictResolutionText(result));
    });
  },
});

interface ReviewOptions extends GlobalOptions {
  enable?: boolean;
  disable?: boolean;
}

export const reviewCommand = tableCommand<ReviewOptions>(declaration('review'), {
  subcommands: [reviewPendingCommand, reviewShowCommand, reviewResolveCommand, decideCommand('approve'), decideCommand('reject')],
  handler: (argv) =>
    withBrv('review', argv, async (brv) => {
      if (argv.enable || argv.disable) {
        await brv.review.setEnabled({ enabled: Boolean(argv.enable) });
        if (argv.format === 'json') return printJson('review', true, { enabled: Boolean(argv.enable) });
        return printText(reviewToggleText(Boolean(argv.enable)));
      }
      await printPending(brv, argv.format, 'review');
    }),
});
