import type { Brv } from '../../service/brv.js';
import type { CurateResult as CurateEnvelope } from '../../service/knowledge.js';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { EXIT_FAILURE, printJson, printText, terminalText } from '../output.js';
import { curateViewCommand } from './curate-view.js';
import { readStdin } from '../stdin.js';
import { setExitCode } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { CURATE } from '../../views/agent-commands.js';

interface CurateOptions extends GlobalOptions {
  intent?: string;
  session?: string;
  response?: string;
  'response-file'?: string;
  'delete-response-file'?: boolean;
  overwrite?: boolean;
  'html-file'?: string;
  meta?: string;
  /** Repeatable (`-f a -f b`). */
  file?: string[];
  files?: string[];
  auto?: boolean;
}

const REMOVED_FLAGS: Record<string, string> = {
  folder: 'Curate one topic per session; folders are no longer packed.',
  files: 'Put the relevant facts into the intent text, or author the topic yourself.',
  detach: 'Curate runs synchronously and fast; run it in the background from your agent if needed.',
  timeout: 'There is no LLM call inside brv, so there is nothing to time out.',
};

export const curateCommand = tableCommand<CurateOptions>(CURATE, {
  subcommands: [curateViewCommand],
  handler: (argv) =>
    withBrv(
      'curate',
      argv,
      async (brv) => {
        const given = (flag: string) => (argv as Record<string, unknown>)[flag] !== undefined;
        const attachments = [argv.file ?? [], argv.files ?? []].flat().map(String);
        if (!Object.keys(REMOVED_FLAGS).some((flag) => flag !== 'files' && given(flag)) && (await selfDriven(brv, argv))) {
          return (await import('../curate-auto.js')).curateAuto(brv, argv, attachments);
        }
        // Without a model (or with --no-auto / the JSON protocol), -f is the removed ByteRover flag it was.
        const removed = Object.keys(REMOVED_FLAGS).find((flag) => given(flag) || (flag === 'files' && attachments.length > 0));
        let envelope: CurateEnvelope;
        if (removed) {
          envelope = {
            ok: false,
            status: 'failed',
            errors: [{ kind: 'removed-flag', message: `Flag '--${removed}' was removed in tool mode. ${REMOVED_FLAGS[removed]}` }],
          };
        } else {
          envelope = await brv.knowledge.curate(
            {
              intent: argv.intent,
              session: argv.session,
              response: argv.response,
              responseFile: argv['response-file'],
              deleteResponseFile: argv['delete-response-file'],
              overwrite: argv.overwrite,
              htmlFile: argv['html-file'],
              // `--html-file -`: the topic comes on standard input.
              // A bound well above any topic's limit (the service reports what is too large).
              htmlStdin: argv['html-file'] === '-' ? await readStdin(64 * 1024 * 1024) : undefined,
              meta: argv.meta,
            },
            cliActor(),
          );
        }
        // Protocol failures keep ByteRover's exit-0 envelope contract; the one-shot mode is for
        // scripts, so it reports failure through the exit code as well.
        if (!envelope.ok && (argv['html-file'] !== undefined || removed) && envelope.status === 'failed') setExitCode(EXIT_FAILURE);
        // An error message may quote what was typed (a session id): prose, so its controls are replaced
        // as in every error message (output.ts); the rest of the envelope is data, kept exact.
        if (argv.format === 'json')
          return printJson('curate', envelope.ok, {
            ...envelope,
            ...(envelope.errors ? { errors: envelope.errors.map((e) => ({ ...e, message: terminalText(e.message) })) } : {}),
          });
        printText((await import('../../views/curate.js')).curateText(envelope));
      },
      // Load the HTML toolchain while git discovers the repository (the service imports it lazily).
      () => import('../../service/service.js').then((m) => m.preloadCurate()),
    ),
});

/** Protocol flags that continue a session or write a file: none of them starts a self-driven curate. */
const PROTOCOL_FLAGS = ['session', 'response', 'response-file', 'delete-response-file', 'html-file', 'meta'] as const;

/**
 * Whether this call is a self-driven curate: --auto, or a kickoff in text format with a model
 * connected (asked without loading the SDK). --format json without --auto keeps the agent protocol.
 */
async function selfDriven(brv: Brv, argv: CurateOptions): Promise<boolean> {
  if (argv.auto === true) return true;
  if (argv.auto === false || argv.format === 'json') return false;
  if (PROTOCOL_FLAGS.some((flag) => argv[flag] !== undefined)) return false;
  return (await brv.knowledge.modelConnection()) !== undefined;
}
