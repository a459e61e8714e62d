import type { Argv, CommandModule } from 'yargs';
import type { CurateResult as CurateEnvelope } from '../../service/knowledge.js';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { EXIT_FAILURE, printJson, printText } from '../output.js';
import { curateViewCommand } from './curate-view.js';
import type { OptionTable } from '../options.js';

interface CurateOptions extends GlobalOptions {
  intent?: string;
  session?: string;
  response?: string;
  'response-file'?: string;
  'delete-response-file'?: boolean;
  overwrite?: boolean;
  'html-file'?: string;
  meta?: string;
}

const REMOVED_FLAGS: Record<string, string> = {
  folder: 'Curate one topic per session; folders are no longer packed.',
  files: 'Put the relevant facts into the intent text, or author the topic yourself.',
  detach: 'Curate runs synchronously and fast; run it in the background from your agent if needed.',
  timeout: 'There is no LLM call inside brv, so there is nothing to time out.',
};

/** Declared once for yargs (help, validation) and the fast path (`../fast-args.ts`). */
export const CURATE_OPTIONS = {
  session: { type: 'string', describe: 'Continue this curate session' },
  response: { type: 'string', describe: 'The agent\'s reply: JSON {"html": "<bv-topic …>", "meta": {…}}' },
  'response-file': { type: 'string', describe: 'Read the reply from this regular file instead' },
  'delete-response-file': { type: 'boolean', describe: 'Delete --response-file after it was processed' },
  overwrite: { type: 'boolean', describe: 'Replace an existing topic at the same path' },
  'html-file': { type: 'string', describe: 'One-shot: write this <bv-topic> file directly (no session); - reads standard input' },
  meta: { type: 'string', describe: 'One-shot: meta JSON, e.g. \'{"impact":"low","reason":"…"}\'' },
  folder: { alias: 'd', hidden: true },
  files: { alias: 'f', hidden: true },
  detach: { hidden: true },
  timeout: { hidden: true },
} as const satisfies OptionTable;

export const curateCommand: CommandModule<GlobalOptions, CurateOptions> = {
  command: 'curate [intent]',
  describe: "Record knowledge as a topic: start a session with an intent, then continue it with the agent's HTML",
  builder: (y: Argv<GlobalOptions>) =>
    notInherited(y, ['intent', ...Object.keys(CURATE_OPTIONS)])
      .command(curateViewCommand)
      .positional('intent', { type: 'string', describe: 'What to record (starts a session and returns a prompt for your LLM)' })
      .options(CURATE_OPTIONS)
      .example('$0 curate "JWTs are signed with RS256; keys rotate monthly" --format json', 'Start a session')
      .example('$0 curate --session <id> --response-file reply.json --delete-response-file --format json', 'Continue it')
      .example('$0 curate --html-file topic.html --meta \'{"impact":"low"}\'', 'One-shot write from a file'),
  handler: (argv) =>
    withBrv(
      'curate',
      argv,
      async (brv) => {
        const removed = Object.keys(REMOVED_FLAGS).find((flag) => (argv as Record<string, unknown>)[flag] !== undefined);
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
              htmlStdin: argv['html-file'] === '-' ? await readStdin() : undefined,
              meta: argv.meta,
            },
            cliActor(),
          );
        }
        // Protocol failures keep ByteRover's exit-0 envelope contract; the one-shot mode is for
        // scripts, so it reports failure through the exit code as well.
        if (!envelope.ok && (argv['html-file'] !== undefined || removed) && envelope.status === 'failed') process.exitCode = EXIT_FAILURE;
        if (argv.format === 'json') return printJson('curate', envelope.ok, envelope);
        printText((await import('../../views/curate.js')).curateText(envelope));
      },
      // Load the HTML toolchain while git discovers the repository (the service imports it lazily).
      () => import('../../service/service.js').then((m) => m.preloadCurate()),
    ),
};

/** Standard input, up to a bound well above any topic's limit (the service reports what is too large). */
async function readStdin(limit = 64 * 1024 * 1024): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) break;
  }
  return Buffer.concat(chunks);
}

/**
 * `curate view` has options of its own: curate's are not inherited by it (nor shown in its --help).
 * yargs' `global(keys, false)`, which its type declarations leave out.
 */
function notInherited(y: Argv<GlobalOptions>, keys: string[]): Argv<GlobalOptions> {
  return (y as unknown as { global(keys: string[], global: boolean): Argv<GlobalOptions> }).global(keys, false);
}
