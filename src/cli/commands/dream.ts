import { DREAM_KINDS, type DreamKind } from '../../service/knowledge.js';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { ArgumentCheckError } from '../options.js';
import { note, printJson, printText } from '../output.js';
import { startProgress, type Progress } from '../progress.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

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

export const dreamCommand = tableCommand<DreamOptions>(declaration('dream'), {
  // Code, not data: --kinds is a comma-separated list of the kinds (one value, so no `choices`).
  check: (argv) => {
    try {
      parseKinds(argv.kinds);
    } catch (error) {
      return error as Error;
    }
    return true;
  },
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
});
