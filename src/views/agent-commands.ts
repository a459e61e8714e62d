// The part of the command table (command-table.ts) that the fast path (src/cli/fast-args.ts) loads on
// every agent command: the declarations' types, the options every command takes, and the commands
// agents run in a loop. The rest of the table is in command-table.ts, which only yargs, completion and
// the TUI load. Plain data.

import type { ValueKind } from '../service/completion.js';

/** An option, as yargs takes it (its own keys are handed to it as they are), plus what only brv reads. */
export interface OptionDecl {
  /** Without a type (and without choices) yargs accepts anything; the fast path leaves such options to yargs. 'boolean': a flag. */
  type?: 'string' | 'number' | 'boolean';
  describe?: string;
  default?: string | number | boolean;
  choices?: readonly string[];
  array?: boolean;
  /** With `array`: values per occurrence. `nargs: 1` makes a repeatable option (`-f a -f b`) that never takes the words after its value. */
  nargs?: number;
  alias?: string;
  hidden?: boolean;
  requiresArg?: boolean;
  /** false: not inherited by the command's sub-commands (yargs' default is to inherit). */
  global?: boolean;
  /** yargs: refused together with this option (or positional). */
  conflicts?: string;
  /** yargs: given only with this option. */
  implies?: string;
  /** A number option's smallest and largest allowed value (whole numbers only when either is set; brv checks, not yargs). */
  min?: number;
  max?: number;
  /** What the value names, for completion. */
  values?: ValueKind;
}

export type OptionTable = Readonly<Record<string, OptionDecl>>;

export interface PositionalDecl {
  name: string;
  type?: 'string';
  describe?: string;
  /** Required: `<name>` in the usage, else `[name]`. */
  demand?: boolean;
  /** Takes every remaining word: `<name..>`. */
  variadic?: boolean;
  choices?: readonly string[];
  /** yargs: refused together with this option. */
  conflicts?: string;
  /** What the value names, for completion. */
  values?: ValueKind;
  /** A value to show when it is missing (`brv read` alone: "Example: brv read security/auth"); every demanded positional has one. */
  example?: string;
}

export interface CommandDecl {
  name: string;
  describe: string;
  /** Not listed in `--help` (run by hooks, not people). */
  hidden?: boolean;
  /** The sub-command that also runs when its parent is given alone (`brv connectors` lists). */
  default?: boolean;
  positionals?: readonly PositionalDecl[];
  options?: OptionTable;
  /** `[command line, what it does]`, `$0` standing for the program's name. */
  examples?: readonly (readonly [string, string])[];
  /** Help text after the options. */
  epilog?: string;
  subcommands?: readonly CommandDecl[];
  /**
   * Set when the command needs a sub-command (`vc <command>`): the message when none is named.
   * A command with sub-commands and neither this nor a default sub-command runs itself (`review [command]`).
   */
  demandCommand?: string;
  /** false: its positionals and options are not inherited by its sub-commands (nor shown in their --help). */
  inherit?: false;
  /** false: its first positional is free text, so a word close to a sub-command's name is no misspelling ("Did you mean …?"). */
  recommend?: false;
}

/** Options every command takes. */
export const GLOBAL_OPTION_DECLS = {
  format: {
    choices: ['text', 'json'],
    default: 'text',
    describe: 'Output format (json: one line, for agents and scripts)',
    requiresArg: true,
  },
  C: { type: 'string', describe: 'Run as if brv was started in this directory', requiresArg: true },
} as const satisfies OptionTable;

/** `--at`, the same wherever a command reads the knowledge as it was. */
export const AT = {
  type: 'string',
  describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)',
  values: 'branch',
} as const satisfies OptionDecl;

/** The options `query` and `search` share: what to look for and which topics may answer. */
const RETRIEVAL_OPTIONS = {
  limit: { type: 'number', default: 10, min: 1, max: 50, describe: 'How many topics, 1–50' },
  scope: { type: 'string', describe: 'Only topics under this folder, e.g. security/', values: 'folder' },
  kind: { type: 'string', array: true, describe: 'Only topics with one of these elements, e.g. --kind rule decision', values: 'kind' },
  since: { type: 'string', describe: 'Only topics dated (bv-timestamp) on or after YYYY-MM-DD' },
  until: { type: 'string', describe: 'Only topics dated (bv-timestamp) on or before YYYY-MM-DD' },
  at: AT,
  lexical: { type: 'boolean', describe: 'Lexical ranking only, even with an embedding model connected and retrieval.hybrid on' },
  hybrid: {
    type: 'boolean',
    describe:
      'Fuse the lexical ranking with embedding similarity for this query (needs an embedding model; default: the retrieval.hybrid setting)',
  },
} as const satisfies OptionTable;

/** `curate view` (its module is curate-view.ts). */
export const CURATE_VIEW: CommandDecl = {
  name: 'view',
  describe: 'Show the curate history of the current brv branch (read from its commits and trailers)',
  options: { limit: { type: 'number', default: 10, min: 1, max: 1000, describe: 'How many entries, newest first (1–1000)' } },
};

export const CURATE: CommandDecl = {
  name: 'curate',
  describe:
    "Record knowledge as a topic: with a model connected brv writes it itself; otherwise start a session with an intent, then continue it with the agent's HTML",
  // The intent is free text: only `view` itself is the sub-command; "review" or "preview" alone is
  // an intent, not a misspelt "view". `curate view` has options of its own: curate's are not inherited.
  inherit: false,
  recommend: false,
  positionals: [
    {
      name: 'intent',
      type: 'string',
      describe: 'What to record (self-driven with a model; otherwise starts a session and returns a prompt for your LLM)',
    },
  ],
  options: {
    session: { type: 'string', describe: 'Continue this curate session' },
    response: { type: 'string', describe: 'The agent\'s reply: JSON {"html": "<bv-topic …>", "meta": {…}}' },
    'response-file': { type: 'string', describe: 'Read the reply from this regular file instead' },
    'delete-response-file': { type: 'boolean', describe: 'Delete --response-file after it was processed' },
    overwrite: { type: 'boolean', describe: 'Replace an existing topic at the same path' },
    'html-file': { type: 'string', describe: 'One-shot: write this <bv-topic> file directly (no session); - reads standard input' },
    meta: { type: 'string', describe: 'One-shot: meta JSON, e.g. \'{"impact":"low","reason":"…"}\'' },
    // ByteRover's removed flags, hidden: the handler explains each.
    folder: { alias: 'd', hidden: true, values: 'folder' },
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
  },
  examples: [
    ['$0 curate "we moved JWT signing to RS256"', 'With a model connected: brv writes the topic itself'],
    [
      '$0 curate "the release steps in @scripts/release.sh" -f docs/deploy.md -f docs/rollback.md',
      'Attach files (@path in the work tree, or -f)',
    ],
    ['$0 curate "JWTs are signed with RS256; keys rotate monthly" --format json', 'Start a session'],
    ['$0 curate --session <id> --response-file reply.json --delete-response-file --format json', 'Continue it'],
    ['$0 curate --html-file topic.html --meta \'{"impact":"low"}\'', 'One-shot write from a file'],
  ],
  epilog: [
    'Self-driven curate: when a model is connected (brv providers connect, or BRV_LLM_PROVIDER) and you start a curate in text format, or with --auto in any format, brv runs its own protocol with the model: prompt, reply, validation, up to 3 corrections (4 model calls at most), then the same writer and review policy as an agent curate. Progress and the tokens used go to stderr (--format json: data.usage); Ctrl-C cancels and writes nothing (exit 130). It never replaces an existing topic unless you pass --overwrite.',
    'Attach files with -f <file> (repeat -f for more) or @path words in the intent: at most 5 files, 40,000 characters each, text only. An @path names a file inside the work tree; files that look like secrets (.env, *.pem, id_rsa, credentials) and anything outside the work tree or in .git are never attached from @ mentions.',
    'With --format json and without --auto, agents get the session protocol exactly as without a model; --no-auto keeps it in text format too.',
  ].join('\n\n'),
  subcommands: [CURATE_VIEW],
};

export const QUERY: CommandDecl = {
  name: 'query',
  describe: 'Ranked topics for a question, rendered as markdown for an agent to read',
  positionals: [
    {
      name: 'question',
      type: 'string',
      demand: true,
      variadic: true,
      describe: 'What you want to know (quotes optional)',
      example: '"how are JWTs signed"',
    },
  ],
  options: {
    ...RETRIEVAL_OPTIONS,
    answer: {
      type: 'boolean',
      describe:
        'Answer in words from the top topics with the connected model (brv providers connect), citing topic paths; ' +
        '"not in the knowledge" when they do not hold the answer. --limit sets how many topics it reads (default 5)',
    },
  },
  examples: [
    ['$0 query "how are JWTs signed" --format json', 'What an agent runs before it works'],
    ['$0 query "how are JWTs signed" --answer', 'An answer citing its topics, from the connected model'],
  ],
};

export const SEARCH: CommandDecl = {
  name: 'search',
  describe: 'Find topics: paths, titles, scores and excerpts (use read to see one)',
  positionals: [{ name: 'question', type: 'string', demand: true, variadic: true, describe: 'Words to look for', example: 'jwt refresh' }],
  options: RETRIEVAL_OPTIONS,
};

export const HOOK_PROMPT_SUBMIT: CommandDecl = {
  name: 'hook-prompt-submit',
  describe: "Print brv's short guide for Claude Code's UserPromptSubmit hook",
  hidden: true,
};
