import type { CommandModule } from 'yargs';
import { DREAM_KINDS, type DreamKind } from '../../service/knowledge.js';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { ArgumentCheckError } from '../options.js';
import { note, printJson, printText } from '../output.js';
import { startProgress, type Progress } from '../progress.js';

interface DreamOptions extends GlobalOptions {
  scope?: string;
  kinds?: string;
  max: number;
  'dry-run': boolean;
}

const STEP_LABELS: Record<string, string> = {
  read: 'Reading topics',
  compare: 'Comparing topics',
  history: 'Reading history',
  model: 'Asking the model',
  write: 'Recording the proposals',
};

function parseKinds(value: string | undefined): DreamKind[] | undefined {
  if (value === undefined) return undefined;
  const kinds = value
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !(DREAM_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0 || kinds.length === 0) {
    throw new ArgumentCheckError(
      `--kinds takes a comma-separated list of ${DREAM_KINDS.join(', ')} (got ${JSON.stringify(value.slice(0, 100))}).`,
    );
  }
  return kinds as DreamKind[];
}

export const dreamCommand: CommandModule<GlobalOptions, DreamOptions> = {
  command: 'dream',
  describe: 'Find topics to consolidate (merge, link, prune, stale, synthesize) and propose changes as one held review',
  builder: (y) =>
    y
      .option('scope', { type: 'string', describe: 'Only topics in this folder, e.g. security' })
      .option('kinds', {
        type: 'string',
        describe: `What to look for, comma-separated: ${DREAM_KINDS.join(',')} (default: all)`,
      })
      .option('max', { type: 'number', default: 50, describe: 'At most this many candidates, strongest first' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'Show candidates and proposals; record nothing, ask no model' })
      .check((argv) => {
        try {
          parseKinds(argv.kinds);
        } catch (error) {
          return error as Error;
        }
        return !Number.isInteger(argv.max) || argv.max < 1 ? new ArgumentCheckError('--max needs a whole number, 1 or more.') : true;
      })
      .epilog(
        [
          'Candidates are found without a model: near-duplicate topics (merge), similar topics or topics citing the same ' +
            'file with no related link (link), topics whose cited files were deleted or changed in the code (prune), facts ' +
            'on one subject that a more recently changed topic states differently (stale), and 3+ connected topics in a ' +
            'folder with no overview (synthesize).',
          'brv proposes what needs no model: the missing related links, and removing topics whose every cited file is ' +
            'gone. With a connected provider (brv providers connect) it also asks the model for merged topics and ' +
            'overviews; its reply is validated like any curate and may only write the topic the proposal names.',
          'All proposals of a run are ONE commit held on a review ref, never on the branch (also with review.gate off ' +
            'or review.enabled false: dream only proposes). "brv review pending" shows it per topic; ' +
            '"brv review approve <id>" lands it, "brv review reject <id>" discards it; after approval, reverting that commit undoes it.',
        ].join('\n\n'),
      ),
  handler: (argv) =>
    withBrv('dream', argv, async (brv) => {
      const kinds = parseKinds(argv.kinds);
      let progress: Progress | undefined;
      let step = '';
      const onProgress = (next: string, done: number, total?: number) => {
        if (next !== step) {
          progress?.finish();
          step = next;
          progress = startProgress(STEP_LABELS[next] ?? next, argv);
        }
        progress!.onProgress(done, total);
      };
      const result = await brv.knowledge
        .dream({ scope: argv.scope, kinds, max: argv.max, dryRun: argv['dry-run'], onProgress }, cliActor())
        .finally(() => progress?.finish());
      if (argv.format === 'json') return printJson('dream', true, result);
      printText((await import('../../views/dream.js')).dreamText(result));
      if (result.usage) note((await import('../../views/usage.js')).usageLine(result.usage));
    }),
};
