import type { Argv, CommandModule } from 'yargs';
import type { Brv } from '../../service/brv.js';
import type { CurateResult as CurateEnvelope } from '../../service/knowledge.js';
import { cliActor, withBrv, type GlobalOptions } from '../context.js';
import { EXIT_FAILURE, printJson, printText, terminalText } from '../output.js';
import { curateViewCommand } from './curate-view.js';
import type { OptionTable } from '../options.js';
import { readStdin } from '../stdin.js';
import { setExitCode } from '../io.js';

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
  file: {
    alias: 'f',
    type: 'string',
    array: true,
    nargs: 1,
    describe: 'Self-driven: attach a text file (repeat -f for more; at most 5, 40,000 characters each)',
  },
  auto: {
    type: 'boolean',
    describe: 'Self-driven: brv asks the connected model to write the topic (--no-auto: the agent protocol)',
  },
  files: { type: 'string', array: true, nargs: 1, hidden: true },
  detach: { hidden: true },
  timeout: { hidden: true },
} as const satisfies OptionTable;

export const curateCommand: CommandModule<GlobalOptions, CurateOptions> = {
  command: 'curate [intent]',
  describe:
    "Record knowledge as a topic: with a model connected brv writes it itself; otherwise start a session with an intent, then continue it with the agent's HTML",
  builder: (y: Argv<GlobalOptions>) =>
    // The intent is free text: only `view` itself is the sub-command; "review" or "preview" alone is
    // an intent, not a misspelt "view" (yargs would answer "Did you mean view?").
    noRecommendations(notInherited(y, ['intent', ...Object.keys(CURATE_OPTIONS)]).command(curateViewCommand))
      .positional('intent', {
        type: 'string',
        describe: 'What to record (self-driven with a model; otherwise starts a session and returns a prompt for your LLM)',
      })
      .options(CURATE_OPTIONS)
      .example('$0 curate "we moved JWT signing to RS256"', 'With a model connected: brv writes the topic itself')
      .example(
        '$0 curate "the release steps in @scripts/release.sh" -f docs/deploy.md -f docs/rollback.md',
        'Attach files (@path in the work tree, or -f)',
      )
      .example('$0 curate "JWTs are signed with RS256; keys rotate monthly" --format json', 'Start a session')
      .example('$0 curate --session <id> --response-file reply.json --delete-response-file --format json', 'Continue it')
      .example('$0 curate --html-file topic.html --meta \'{"impact":"low"}\'', 'One-shot write from a file')
      .epilog(
        [
          'Self-driven curate: when a model is connected (brv providers connect, or BRV_LLM_PROVIDER) and you start a curate in text format, or with --auto in any format, brv runs its own protocol with the model: prompt, reply, validation, up to 3 corrections (4 model calls at most), then the same writer and review policy as an agent curate. Progress and the tokens used go to stderr (--format json: data.usage); Ctrl-C cancels and writes nothing (exit 130). It never replaces an existing topic unless you pass --overwrite.',
          'Attach files with -f <file> (repeat -f for more) or @path words in the intent: at most 5 files, 40,000 characters each, text only. An @path names a file inside the work tree; files that look like secrets (.env, *.pem, id_rsa, credentials) and anything outside the work tree or in .git are never attached from @ mentions.',
          'With --format json and without --auto, agents get the session protocol exactly as without a model; --no-auto keeps it in text format too.',
        ].join('\n\n'),
      ),
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
};

/** Turns yargs' "Did you mean …?" off below this command (its typings omit recommendCommands' argument). */
function noRecommendations<T>(y: Argv<T>): Argv<T> {
  return (y as unknown as { recommendCommands(enable: boolean): Argv<T> }).recommendCommands(false);
}

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

/**
 * `curate view` has options of its own: curate's are not inherited by it (nor shown in its --help).
 * yargs' `global(keys, false)`, which its type declarations leave out.
 */
function notInherited(y: Argv<GlobalOptions>, keys: string[]): Argv<GlobalOptions> {
  return (y as unknown as { global(keys: string[], global: boolean): Argv<GlobalOptions> }).global(keys, false);
}
