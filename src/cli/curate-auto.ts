import path from 'node:path';
import type { Brv } from '../service/brv.js';
import type { CurateAutoProgress } from '../service/knowledge.js';
import { isBrvError } from '../base/errors.js';
import { cliActor, type GlobalOptions } from './context.js';
import { EXIT_FAILURE, note, printError, printJson, printText } from './output.js';
import { stepNotes } from './progress.js';
import { cliIo, setExitCode } from './io.js';

/** Exit code of a run cancelled with Ctrl-C, as a shell reports SIGINT. */
const EXIT_INTERRUPTED = 130;

/** Flags of the session protocol, which a self-driven curate does not take. */
const PROTOCOL_FLAGS = ['session', 'response', 'response-file', 'delete-response-file', 'html-file', 'meta'] as const;

/** What `brv curate` passes on (its options, as yargs or the fast path read them). */
type CurateArgs = GlobalOptions & { intent?: string; overwrite?: boolean } & Partial<Record<(typeof PROTOCOL_FLAGS)[number], unknown>>;

/**
 * `brv curate` self-driven: brv.knowledge.curateAuto with progress on stderr (steps as lines, the
 * characters received rewritten in place on a terminal), the token line at the end, Ctrl-C cancelling.
 */
export async function curateAuto(brv: Brv, argv: CurateArgs, files: string[]): Promise<void> {
  const misuse = PROTOCOL_FLAGS.find((flag) => argv[flag] !== undefined);
  if (misuse) {
    const envelope = {
      ok: false,
      status: 'failed',
      errors: [
        {
          kind: 'invalid-flag-combination',
          message: `--auto starts a self-driven curate from an intent; --${misuse} belongs to the agent protocol (drop --auto).`,
        },
      ],
    };
    setExitCode(EXIT_FAILURE);
    if (argv.format === 'json') return printJson('curate', false, envelope);
    return printText(`Curate failed:\n  - invalid-flag-combination: ${envelope.errors[0]!.message}`);
  }
  const views = await import('../views/curate.js');
  const progress = stepNotes<CurateAutoProgress>(
    (event) => (event.event === 'step' ? views.curateAutoStepText(event) : ''),
    { format: argv.format },
    (event) =>
      event.event === 'received' ? { phase: `attempt ${event.attempt}`, text: views.curateAutoReceivedText(event.characters) } : undefined,
  );
  const controller = new AbortController();
  // The first Ctrl-C cancels (nothing is written); a second one stops at once.
  const interrupt = () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    controller.abort();
  };
  process.on('SIGINT', interrupt);
  try {
    const result = await brv.knowledge.curateAuto(
      {
        intent: argv.intent ?? '',
        files: files.map((file) => path.resolve(cliIo().cwd, file)),
        overwrite: argv.overwrite,
        signal: controller.signal,
        onProgress: (event) => {
          if (event.event !== 'writing') progress.onStep(event);
        },
      },
      cliActor(),
    );
    progress.finish();
    if (!result.ok) setExitCode(EXIT_FAILURE);
    if (argv.format === 'json') return printJson('curate', result.ok, result);
    printText(views.curateText(result));
    for (const line of views.curateAutoNotes(result)) note(line);
    if (result.usage.requests > 0) note((await import('../views/usage.js')).usageLine(result.usage));
  } catch (error) {
    progress.finish();
    if (isBrvError(error) && error.kind === 'llm-cancelled' && controller.signal.aborted) {
      return printError('curate', argv.format, 'llm-cancelled', 'Curate cancelled; nothing was written.', EXIT_INTERRUPTED);
    }
    throw error;
  } finally {
    process.removeListener('SIGINT', interrupt);
  }
}
