// The one command table: every command and sub-command of brv's CLI, declared once, with its
// positionals, options, help texts and examples, and what each value names (a topic path, a branch…).
// Everything else is derived from it: the yargs builders and `--help` (src/cli/table-yargs.ts), the
// fast path for agent commands (src/cli/fast-args.ts), shell completion (`brv __complete`,
// src/cli/complete.ts) and the TUI's slash commands (src/tui/command-line.ts). The command modules
// in src/cli/commands/ hold only their handlers (and the few checks that are code, not data).
// Plain data, no yargs. The commands agents run in a loop are declared in agent-commands.ts, with the
// types: the fast path loads only that part.

import { BRV_REF_PREFIX, DEFAULT_BRANCH, REMOTE_LAYOUTS, branchRef, remoteTrackingPrefix } from '../base/ref-names.js';
import type { DreamKind } from '../models/dream/kinds.js';
import type { ConnectorType, KeyStorage } from '../service/service.js';
import type { HookName } from '../service/names.js';
import type { CompletionShell } from './completion.js';
import { AT, CURATE, HOOK_PROMPT_SUBMIT, QUERY, SEARCH, type CommandDecl, type PositionalDecl } from './agent-commands.js';

export { GLOBAL_OPTION_DECLS, type CommandDecl, type OptionDecl } from './agent-commands.js';

const TOPIC_PATH = 'Topic path, e.g. security/auth (".html" optional)';
const REMOTE = {
  name: 'remote',
  type: 'string',
  describe: 'Defaults to the upstream, origin, or the only remote',
  values: 'remote',
} as const satisfies PositionalDecl;
const LAYOUT_HELP = `refs (${BRV_REF_PREFIX}*, the default) or branches (ordinary branches brv/<branch> and brv-review/<id>, for hosts that accept only branches and tags; see the README)`;
/**
 * A list of every member of a union `T`, written out here so that the table loads nothing else (the
 * fast path loads it on every agent command): a compile error when `T` gains a member the list lacks.
 */
const every =
  <T extends string>() =>
  <L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : never)): L =>
    list;
const HOOK_NAMES = every<HookName>()(['post-merge', 'post-checkout', 'pre-commit'] as const);
const COMPLETION_SHELLS = every<CompletionShell>()(['bash', 'zsh', 'fish'] as const);
const DREAM_KINDS = every<DreamKind>()(['link', 'merge', 'prune', 'stale', 'synthesize'] as const);
const CONNECTOR_TYPES = every<ConnectorType>()(['rules', 'mcp', 'skill', 'hook', 'agent'] as const);
const KEY_STORAGES = every<KeyStorage>()(['auto', 'file', 'credential-helper'] as const);

const HOOKS = {
  name: 'hooks',
  type: 'string',
  variadic: true,
  choices: HOOK_NAMES,
  describe: `Hooks to act on (default: all of ${HOOK_NAMES.join(', ')})`,
} as const satisfies PositionalDecl;

const AGENT = {
  name: 'agent',
  type: 'string',
  demand: true,
  describe: 'Agent id, name or alias (see brv connectors list), any case',
  values: 'agent',
  example: 'claude-code',
} as const satisfies PositionalDecl;

const REVIEW_ID = {
  name: 'id',
  type: 'string',
  demand: true,
  describe: 'The review id (a prefix is enough)',
  values: 'review-id',
  example: '7e2e92853519',
} as const;

const SETTING_KEY = {
  name: 'key',
  type: 'string',
  demand: true,
  describe: 'e.g. review.gate',
  values: 'setting-key',
  example: 'review.gate',
} as const;

/** Every top-level command, in the order `--help` lists them. */
export const COMMAND_TABLE: readonly CommandDecl[] = [
  {
    name: 'init',
    describe: `Create the context tree (${branchRef(DEFAULT_BRANCH)}) in this git repository, or adopt the remote's; safe to run again`,
    options: {
      track: {
        type: 'string',
        requiresArg: true,
        describe: 'Also add brv fetch refspecs to this git remote, so a plain git fetch brings knowledge (push stays as it was)',
        values: 'remote',
      },
      layout: {
        choices: REMOTE_LAYOUTS,
        implies: 'track',
        describe: `With --track: where that remote keeps knowledge, refs (${BRV_REF_PREFIX}*, the default) or branches (brv/<branch>, for hosts that accept only branches and tags)`,
      },
    },
    epilog:
      "In a clone whose remote has knowledge (a plain git clone), init adopts it: the brv branch starts at the remote's " +
      '(fetched first unless a git fetch already brought it), never as a second history. Without a remote, or when the ' +
      'remote has no knowledge, init creates the first commit. A remote that cannot be reached is a note: init then starts ' +
      "a branch of its own, and brv sync merges the remote's into it later.",
  },
  { name: 'status', describe: 'Show the repository, brv branch and tip, topic count and open curate sessions' },
  CURATE,
  QUERY,
  SEARCH,
  {
    name: 'read',
    describe: 'Show one topic, rendered as markdown (or its stored HTML with --raw)',
    positionals: [{ name: 'path', type: 'string', demand: true, describe: TOPIC_PATH, values: 'topic-path', example: 'security/auth' }],
    options: {
      raw: {
        type: 'boolean',
        default: false,
        describe: 'Print the stored <bv-topic> HTML instead of markdown (control characters shown as U+FFFD; see below)',
      },
      at: AT,
    },
    epilog: `Nothing brv prints carries a control character, --raw included: one in a topic (only a blob that never met brv's validator, such as a teammate's push made with plumbing, can hold one) is shown as U+FFFD, so it cannot drive your terminal (escape sequences, window titles, clipboard writes). The exact stored text: --raw --format json (data.content, controls escaped in the JSON string), or git itself: git show ${branchRef(DEFAULT_BRANCH)}:<path>.html.`,
  },
  {
    name: 'ls',
    describe: 'List the topics of the context tree, or of one folder',
    positionals: [{ name: 'prefix', type: 'string', describe: 'A folder, e.g. security/', values: 'folder' }],
    options: { at: AT },
  },
  {
    name: 'rm',
    describe: 'Remove a topic (or a folder of topics with --recursive) in one DELETE commit',
    positionals: [{ name: 'path', type: 'string', demand: true, describe: TOPIC_PATH, values: 'topic-path', example: 'security/auth' }],
    options: {
      recursive: { alias: 'r', type: 'boolean', default: false, describe: 'Remove every topic under a folder' },
      reason: { type: 'string', describe: 'Why, recorded in the commit (Brv-Reason)' },
    },
  },
  {
    name: 'import',
    describe:
      'Import a ByteRover context tree (HTML topics, legacy Markdown converted) or a folder of <bv-topic> files, as one commit. What ByteRover accepts but brv stores differently (text around the root, unknown attributes, comments, loose nesting) is repaired, each repair listed per file',
    positionals: [
      {
        name: 'dir',
        type: 'string',
        demand: true,
        describe: 'A ByteRover project, its .brv/ or .brv/context-tree, or any folder of topics (scanned recursively)',
        example: '../old-project',
      },
    ],
    options: {
      overwrite: { type: 'boolean', default: false, describe: 'Replace existing topics whose content differs' },
      'skip-invalid': {
        type: 'boolean',
        default: false,
        describe: 'Import the valid topics and report the others, instead of importing nothing',
      },
      'dry-run': {
        type: 'boolean',
        default: false,
        describe: 'Validate and report what would be added, updated, repaired or refused, writing nothing',
      },
    },
  },
  {
    name: 'export',
    describe: "Write the topics as files in ByteRover's layout (<dir>/.brv/context-tree/<path>.html)",
    positionals: [
      {
        name: 'dir',
        type: 'string',
        demand: true,
        describe: 'Project folder to write .brv/context-tree/ into (created if missing)',
        example: '../exported',
      },
    ],
    options: {
      force: {
        type: 'boolean',
        default: false,
        describe: 'Replace an existing non-empty .brv/context-tree (its hidden entries, such as .git/, are kept)',
      },
      at: AT,
    },
  },
  {
    name: 'publish',
    describe: 'Write the knowledge as plain Markdown (a page per topic, a README.md per folder) to a folder or a git branch',
    options: {
      'to-dir': {
        type: 'string',
        requiresArg: true,
        describe: 'Folder to write the pages into (created if missing)',
        conflicts: 'to-branch',
      },
      'to-branch': {
        type: 'string',
        requiresArg: true,
        describe: 'Ordinary git branch to commit the pages onto (never checked out; push it to show it on the hosting site)',
      },
      force: {
        type: 'boolean',
        default: false,
        describe: 'Write into a non-empty folder, or onto a branch, that publish did not write',
      },
      source: {
        type: 'string',
        requiresArg: true,
        describe: 'Publish a knowledge source (its alias) instead of this repository',
        values: 'source',
        conflicts: 'at',
      },
      at: AT,
    },
    examples: [
      [
        'brv publish --to-branch brv-pages && git push origin brv-pages',
        'Show the knowledge on the hosting site, searchable and reviewable',
      ],
      ['brv publish --to-dir docs/knowledge', 'Write the pages into a folder'],
    ],
    epilog:
      'Pages are rendered like brv read (no raw HTML, safe links only) and are deterministic: the same knowledge gives the same files and, on a branch, the same commit; unchanged topics are not rendered again, and nothing is committed when nothing changed. A branch commit is built with git plumbing: the work tree, the index and HEAD are never touched, and a branch whose tip publish did not write is refused without --force. A folder gets a .brv-publish.json marker recording what was written.',
  },
  {
    name: 'vc',
    describe: 'Version control of the knowledge: log, diff, branches, merge, remotes, push/pull (git underneath)',
    demandCommand: 'Name a vc command (see brv vc --help).',
    subcommands: [
      { name: 'status', describe: 'The brv branch, how far it is ahead of / behind its remote, and open reviews' },
      {
        name: 'log',
        describe: 'Commits of the current brv branch (or of all with --all), newest first, with their trailers',
        positionals: [{ name: 'path', type: 'string', describe: 'Only commits that changed this topic or folder', values: 'topic-path' }],
        options: {
          limit: { alias: 'n', type: 'number', default: 10, min: 1, max: 10000, describe: 'How many commits (1–10000)' },
          all: { type: 'boolean', default: false, describe: 'Every local brv branch' },
        },
      },
      {
        name: 'diff',
        describe: 'Topics added, removed and changed between brv commits, with a diff of each changed topic',
        positionals: [
          {
            name: 'range',
            type: 'string',
            describe: 'Nothing: the last commit; <rev>: from rev to the tip; <a>..<b>: between two (branches, commits, main~2, dates)',
            values: 'branch',
          },
        ],
        options: {
          stat: { type: 'boolean', default: false, describe: 'Only list the changed topics' },
          path: { type: 'string', array: true, describe: 'Only these topics or folders', values: 'topic-path' },
        },
      },
      {
        name: 'show',
        describe: 'One brv commit and its topic changes, or <rev>:<path> for a topic as it was then',
        positionals: [
          { name: 'spec', type: 'string', describe: 'A brv commit, branch (main~1), tag or date; or <rev>:<topic path>', values: 'branch' },
        ],
        options: { stat: { type: 'boolean', default: false, describe: 'List changed topics without their diffs' } },
      },
      {
        name: 'branch',
        describe: 'List brv branches, create one at the current tip, or delete one (-d)',
        positionals: [
          { name: 'name', type: 'string', describe: 'Create this brv branch at the current tip', conflicts: 'delete', values: 'branch' },
        ],
        options: {
          delete: {
            alias: 'd',
            type: 'string',
            describe: 'Delete this brv branch (refused if not merged, unless --force)',
            values: 'branch',
          },
          force: { type: 'boolean', default: false, describe: 'With -d: delete even if not merged' },
          all: { alias: 'a', type: 'boolean', default: false, describe: 'Also list remote-tracking brv branches' },
        },
      },
      {
        name: 'checkout',
        describe: "Switch this worktree's brv branch (curate and query act on it); code checkout is untouched",
        positionals: [
          {
            name: 'branch',
            type: 'string',
            demand: true,
            describe: 'A brv branch (or one only on a remote, to track it)',
            values: 'branch',
            example: 'feature',
          },
        ],
        options: { b: { type: 'boolean', default: false, describe: 'Create the branch at the current tip first' } },
      },
      {
        name: 'merge',
        describe: 'Merge a brv branch (or <remote>/<branch>) into the current one, topic by topic; nothing is lost',
        positionals: [
          {
            name: 'branch',
            type: 'string',
            demand: true,
            describe: 'The brv branch to merge in',
            values: 'branch',
            example: 'origin/main',
          },
        ],
      },
      {
        name: 'remote',
        describe:
          "Show or change the repository's git remotes (add | set-url | set-layout | remove); any URL git accepts. add also makes a plain git fetch/pull from it bring knowledge",
        positionals: [
          {
            name: 'action',
            choices: ['add', 'set-url', 'set-layout', 'remove'],
            describe: 'Omit to list the remotes. set-layout <name> <refs|branches>: where the remote keeps knowledge',
          },
          { name: 'name', type: 'string', describe: 'Remote name, e.g. origin', values: 'remote' },
          {
            name: 'url',
            type: 'string',
            describe: 'GitHub/GitLab URL, ssh path, file:// URL or a directory (set-layout: refs or branches)',
          },
        ],
        options: { layout: { choices: REMOTE_LAYOUTS, describe: `With add: where the remote keeps knowledge, ${LAYOUT_HELP}` } },
      },
      {
        name: 'fetch',
        describe: `Fetch a remote's brv branches and reviews into ${remoteTrackingPrefix('<remote>')} (nothing local changes)`,
        positionals: [REMOTE],
      },
      { name: 'pull', describe: 'Fetch, then merge the remote copy of the current brv branch into it', positionals: [REMOTE] },
      {
        name: 'push',
        describe: 'Push the current brv branch and reviews (never forced; atomic where the server supports it)',
        positionals: [REMOTE],
        options: { u: { alias: 'set-upstream', type: 'boolean', default: false, describe: 'Remember this remote for the branch' } },
      },
      {
        name: 'clone',
        describe: 'git clone a repository together with its knowledge (brv branches and reviews)',
        positionals: [
          {
            name: 'url',
            type: 'string',
            demand: true,
            describe: 'Any URL git can clone (ssh, https, file://, a path)',
            example: 'git@github.com:team/project.git',
          },
          { name: 'dir', type: 'string', describe: 'Target directory (default: from the URL, as git does)' },
        ],
        options: {
          layout: {
            choices: REMOTE_LAYOUTS,
            describe: `Where origin keeps knowledge: ${LAYOUT_HELP}. Default: branches when the remote has brv commits on branches brv/* and no ${BRV_REF_PREFIX}*, else refs`,
          },
        },
      },
      {
        name: 'config',
        describe: "Read or set the author of brv commits (the repository's git user.name / user.email)",
        positionals: [
          { name: 'key', choices: ['user.name', 'user.email'], demand: true, describe: 'user.name or user.email', example: 'user.name' },
          { name: 'value', type: 'string', describe: 'New value (omit to read)' },
        ],
      },
    ],
  },
  {
    name: 'sync',
    describe: 'Fetch, merge and push the current brv branch and reviews in one step (retries if the remote moves)',
    positionals: [REMOTE],
  },
  {
    name: 'review',
    describe: 'Human review of agent changes: pending, show <id>, resolve <id> <topic>, approve <id>, reject <id>',
    options: {
      enable: { type: 'boolean', describe: 'Open reviews again (git config brv.review.enabled true)', conflicts: 'disable' },
      disable: { type: 'boolean', describe: 'Stop opening reviews in this repository' },
    },
    subcommands: [
      {
        name: 'pending',
        describe: 'List changes awaiting review (high impact, deletions, merges that kept two versions)',
        options: {
          agent: { type: 'string', describe: 'Only changes made by this agent (Brv-Agent: claude-code, webui, tui…)', values: 'agent' },
          author: { type: 'string', describe: "Only changes whose git author's name or email contains this" },
          impact: { type: 'string', describe: 'Only changes declared with this impact (high, low…)' },
          model: { type: 'string', describe: 'Only changes written by this model (part of provider/model)' },
          session: { type: 'string', describe: 'Only changes from this curate session (a prefix is enough)' },
          since: { type: 'string', describe: 'Only changes recorded since a day (YYYY-MM-DD), a time, or how long ago (12h, 7d, 2w)' },
        },
        examples: [
          ['$0 review pending --agent claude-code --impact high', "An agent's high-impact changes"],
          ['$0 review pending --since 1d', 'What was recorded in the last day'],
        ],
      },
      {
        name: 'show',
        describe: "A review's topics and the merge conflicts they still carry (both versions of each)",
        positionals: [REVIEW_ID],
      },
      {
        name: 'resolve',
        describe: 'Resolve the merge conflicts of a topic of a review: keep --ours, --theirs or --both, or --edit it',
        positionals: [
          REVIEW_ID,
          {
            name: 'topic',
            type: 'string',
            demand: true,
            describe: 'A topic of the review, e.g. security/auth',
            values: 'topic-path',
            example: 'security/auth',
          },
        ],
        options: {
          section: {
            type: 'string',
            describe: 'Only this conflict, as brv review show names it (e.g. bv-rule#r1, title)',
            conflicts: 'edit',
          },
          ours: { type: 'boolean', describe: 'Keep our version' },
          theirs: { type: 'boolean', describe: 'Keep their version' },
          both: { type: 'boolean', describe: 'Keep both versions, without the conflict markers' },
          edit: { type: 'boolean', describe: 'Resolve by hand in $VISUAL/$EDITOR (as brv edit)' },
        },
      },
      {
        name: 'approve',
        describe: 'Keep a reviewed change (a held change lands on the branch now)',
        positionals: [{ ...REVIEW_ID, describe: 'The review id from brv review pending (a prefix is enough)' }],
        options: {
          file: { type: 'string', array: true, describe: 'Only these topics (repeatable); the rest stay pending', values: 'topic-path' },
          'keep-both': {
            type: 'boolean',
            describe: 'Approve a merge whose topics still carry conflict notes, keeping both versions as they are',
          },
        },
      },
      {
        name: 'reject',
        describe: 'Undo a reviewed change on the current tip (later, unrelated changes survive)',
        positionals: [{ ...REVIEW_ID, describe: 'The review id from brv review pending (a prefix is enough)' }],
        options: {
          file: { type: 'string', array: true, describe: 'Only these topics (repeatable); the rest stay pending', values: 'topic-path' },
          'keep-both': { hidden: true, type: 'boolean' },
        },
      },
    ],
  },
  {
    name: 'hooks',
    describe: 'Git hooks: integrate fetched knowledge after git pull, warn when a commit touches files topics cite',
    demandCommand: 'Name a hooks command: install, uninstall or status.',
    subcommands: [
      {
        name: 'install',
        describe: 'Install brv into the git hooks git runs (core.hooksPath honoured); existing hooks are chained, never replaced',
        positionals: [HOOKS],
        examples: [
          ['$0 hooks install', 'post-merge, post-checkout and pre-commit'],
          ['$0 hooks install pre-commit', 'Only the staleness warning'],
        ],
        epilog:
          "post-merge and post-checkout integrate knowledge fetched by git pull (install adds brv's fetch refspecs to the remote they " +
          'merge from — the upstream, origin or the only remote — so that git pull fetches it); pre-commit warns when staged changes touch files that ' +
          'topics cite in <bv-files> (git config brv.hooks.preCommit block refuses such commits). brv adds a marked block to shell ' +
          'hooks and leaves other hooks (python, node, binaries) untouched, printing the line that chains brv from them. ' +
          'BRV_SKIP_HOOKS=1 turns the hooks off for one command. A brv error never fails the git command.',
      },
      { name: 'uninstall', describe: "Remove brv's block from the hooks (the rest of each hook is kept as it was)", positionals: [HOOKS] },
      { name: 'status', describe: 'Show, per hook, whether brv is installed, outdated or not, and the hooks directory git uses' },
      {
        name: 'run',
        describe: 'Run by the installed hooks (or chained from hooks brv does not edit)',
        hidden: true,
        positionals: [
          { name: 'hook', type: 'string', choices: HOOK_NAMES, demand: true, describe: 'The hook being run', example: 'post-merge' },
          { name: 'args', type: 'string', variadic: true, describe: "The hook's own arguments" },
        ],
        options: { 'cache-only': { type: 'boolean', describe: 'pre-commit: only build the cited-files cache for the current brv tree' } },
      },
    ],
  },
  {
    name: 'connectors',
    describe: 'Connect coding agents to brv (rules, MCP server, skill, prompt hook, curate sub-agent): list, install, uninstall, status',
    epilog: '25 agents: Claude Code, Codex, Cursor, Copilot, Gemini CLI, Windsurf, Zed, … — "brv connectors list" shows them all.',
    subcommands: [
      {
        name: 'list',
        default: true,
        describe: 'Every agent brv connects to, its connector types (default marked *) and the files each one writes',
      },
      {
        name: 'install',
        describe:
          "Connect an agent to brv: its rules file, MCP server entry, skill, prompt hook or curate sub-agent (default: the agent's default type)",
        positionals: [AGENT],
        options: {
          global: {
            type: 'boolean',
            default: false,
            describe: "Use the agent's user-wide files under your home directory instead of this repository's",
          },
          type: {
            choices: CONNECTOR_TYPES,
            describe: 'What to install (default: the agent\'s default type, marked * in "brv connectors list")',
          },
        },
        examples: [
          ['$0 connectors install claude-code', 'The brv skill in .claude/skills/brv/'],
          ['$0 connectors install codex --type rules', "brv's rules block in AGENTS.md"],
          ['$0 connectors install cursor --type mcp --global', 'The brv MCP server in ~/.cursor/mcp.json'],
          ['$0 connectors install claude-code --type agent', 'The brv-curate sub-agent in .claude/agents/brv-curate.md'],
        ],
        epilog:
          'Rules go between "<!-- BEGIN BRV RULES -->" and "<!-- END BRV RULES -->" lines with a "Generated by brv for <agent>" footer, so ' +
          'several agents can share AGENTS.md or CLAUDE.md and installing again replaces only that block. A ByteRover rules block for the ' +
          'same agent ("<!-- BEGIN BYTEROVER RULES -->") is replaced by brv\'s, not kept beside it, also in ByteRover\'s own ' +
          'agent-context.* rules file (deleted when nothing else is in it); uninstall does not bring it back. MCP configurations (JSON, TOML, ' +
          'YAML) are edited in place: other servers, comments and formatting are kept; a malformed, read-only or symlinked file is left ' +
          'untouched with an error. Project files stay inside this repository; files under your home directory are written only with ' +
          "--global. Installing again is a no-op when nothing changed. In a clone with no brv branch yet (a plain git clone), install also adopts the remote's " +
          "knowledge, as brv init does, so the agent's first query answers from it.",
      },
      {
        name: 'uninstall',
        describe: 'Remove exactly what install added for an agent (every type, or one with --type); your own content stays',
        positionals: [AGENT],
        options: {
          global: {
            type: 'boolean',
            default: false,
            describe: "Use the agent's user-wide files under your home directory instead of this repository's",
          },
          type: { choices: CONNECTOR_TYPES, describe: 'Remove only this connector type (default: all of them)' },
        },
        epilog:
          "Removes the agent's rules block, its brv MCP server entry, the brv skill folder and the prompt hook. Files brv created are " +
          "deleted; files that were there before get back their previous bytes when nothing else changed them, else only brv's block " +
          'or key is taken out. The brv-curate sub-agent file is deleted (a ByteRover one it replaced is not restored). An MCP entry or skill folder another agent still uses (same file) is kept until that agent is uninstalled too.',
      },
      {
        name: 'status',
        describe: 'What brv has installed for which agents, in this repository and under your home directory',
        positionals: [{ name: 'agent', type: 'string', describe: 'Only this agent', values: 'agent' }],
        options: { global: { type: 'boolean', default: false, describe: 'Only the user-wide installs under your home directory' } },
        epilog:
          "Detected from the files themselves (brv's marked rules blocks, its MCP keys, skill folders and hook), so installs made by hand " +
          'or by an older brv show too; what several agents share (one .mcp.json entry, one skill folder) counts for the agents brv installed ' +
          'it for. "outdated" means brv\'s part is there but differs from what install writes now. Outside a git ' +
          'repository only the user-wide installs are shown.',
      },
    ],
  },
  {
    name: 'worktree',
    describe: 'Git worktrees that share this knowledge, each on its own brv branch if you like',
    demandCommand: 'Name a worktree command: add, remove or list.',
    subcommands: [
      {
        name: 'add',
        describe: 'git worktree add, and give the new worktree a brv branch (it shares all knowledge of the repository)',
        positionals: [
          { name: 'path', type: 'string', demand: true, describe: 'Where the new working tree goes', example: '../project-feature' },
          { name: 'commitish', type: 'string', describe: 'Code to check out there (as for git worktree add)' },
        ],
        options: {
          b: { type: 'string', requiresArg: true, describe: 'Create this git branch for the new worktree' },
          'brv-branch': {
            type: 'string',
            requiresArg: true,
            describe: "The new worktree's brv branch (default: this one's)",
            values: 'branch',
          },
          'create-brv-branch': { type: 'boolean', default: false, describe: 'Create --brv-branch from the current brv tip' },
        },
      },
      {
        name: 'remove',
        describe: 'git worktree remove (knowledge stays: it lives in the shared refs)',
        positionals: [{ name: 'path', type: 'string', demand: true, describe: 'The worktree to remove', example: '../project-feature' }],
        options: { force: { type: 'boolean', default: false, describe: 'Remove even with uncommitted code changes there' } },
      },
      { name: 'list', describe: 'Worktrees of this repository and the brv branch each works on' },
    ],
  },
  {
    name: 'source',
    describe: "Other repositories' knowledge, read-only: add, list, remove, refresh",
    demandCommand: 'Name a source command: add, list, remove or refresh.',
    subcommands: [
      {
        name: 'add',
        describe: "Read another repository's knowledge too (queries include it as origin: shared); it is never written to",
        positionals: [
          {
            name: 'location',
            type: 'string',
            demand: true,
            describe: 'A path to another repository, or any URL git can fetch',
            example: '../platform',
          },
        ],
        options: {
          alias: { type: 'string', requiresArg: true, describe: 'Name for it (default: the last path segment)' },
          branch: { type: 'string', requiresArg: true, describe: 'Its brv branch to read (default: main)' },
        },
      },
      { name: 'list', describe: 'Knowledge sources and the tip fetched from each' },
      {
        name: 'remove',
        describe: 'Stop reading a knowledge source (by alias or location)',
        positionals: [
          { name: 'source', type: 'string', demand: true, describe: 'Alias or location', values: 'source', example: 'platform' },
        ],
      },
      { name: 'refresh', describe: 'Fetch every knowledge source again (brv sync does this too)' },
    ],
  },
  {
    name: 'settings',
    describe: 'Settings (git config brv.*): list, get <key>, set <key> <value>, reset <key>',
    options: { global: { type: 'boolean', describe: "Your global git config (every repository's default), not this repository's" } },
    epilog:
      'Settings are git config keys under brv.* (git config brv.review.gate true works too); a repository value overrides a global one. ' +
      'Unknown keys and invalid values are refused.',
    subcommands: [
      { name: 'list', describe: 'Every setting, its value and where the value comes from (default, repository or global)' },
      { name: 'get', describe: 'One setting: its value and where it comes from', positionals: [SETTING_KEY] },
      {
        name: 'set',
        describe: "Set a setting in this repository's git config (brv.<key>), or the global one with --global",
        positionals: [
          SETTING_KEY,
          { name: 'value', type: 'string', demand: true, describe: 'Checked against the setting’s type', example: 'true' },
        ],
        examples: [
          ['$0 settings set review.gate true', 'Hold high-impact changes until approved'],
          ['$0 settings set hooks.preCommit block --global', 'Refuse such commits in every repository'],
        ],
      },
      {
        name: 'reset',
        describe: "Remove a setting from this repository's git config (or the global one with --global)",
        positionals: [SETTING_KEY],
      },
    ],
  },
  HOOK_PROMPT_SUBMIT,
  {
    name: 'mcp',
    describe: "Serve this repository's knowledge to an agent over MCP (stdio): tools brv-query, brv-curate, brv-search, brv-read, brv-list",
  },
  {
    name: 'doctor',
    describe: 'Check git, the repository, the brv branch, hooks, agent connectors, the search index and sync; each problem with its fix',
  },
  {
    name: 'edit',
    describe: 'Edit a topic in $VISUAL/$EDITOR: checked on save, committed only if nobody changed it meanwhile (Brv-Op: edit)',
    positionals: [{ name: 'path', type: 'string', demand: true, describe: TOPIC_PATH, values: 'topic-path', example: 'security/auth' }],
    epilog:
      'The editor is $VISUAL, else $EDITOR, else vi (vi only on a terminal). A topic that fails validation is reopened with the ' +
      'errors in a comment at the top; save it unchanged (or empty the file) to give up. If the topic changed while you ' +
      'edited, nothing is written and your text is kept in a file the error names.',
  },
  {
    name: 'completion',
    describe:
      'Print a shell completion script (bash, zsh or fish): commands, sub-commands, options and their values — topic paths, branches, remotes, review ids, agents, setting keys, kinds',
    positionals: [{ name: 'shell', choices: COMPLETION_SHELLS, demand: true, describe: 'The shell to complete in', example: 'bash' }],
    examples: [
      ['source <(brv completion bash)', 'Complete brv (and git brv) in this bash session'],
      ['brv completion fish > ~/.config/fish/completions/brv.fish', 'Install it for fish'],
    ],
    epilog:
      'Values are read from the repository you are in (or -C): topic paths and folders, brv branches, git remotes, review ids, ' +
      'knowledge sources, agents, setting keys and topic element kinds. Completion reads local git only, never the network.',
  },
  {
    name: 'maintenance',
    describe: 'Compact the search indexes that are due and embed new topics for hybrid retrieval (queries start this in the background)',
    options: { 'lock-token': { type: 'string', hidden: true, describe: 'The maintenance lock a query took for this background run' } },
  },
  {
    name: 'webui',
    describe: "Serve a local dashboard of this repository's knowledge in the browser: topics, search, history, review inbox, live",
    options: {
      port: {
        type: 'number',
        min: 1,
        max: 65535,
        describe: 'Port on 127.0.0.1 (default 7700, or the next free one up to 7720; a port given here must be free)',
      },
      open: {
        type: 'boolean',
        default: false,
        describe:
          'Open the dashboard in the browser (xdg-open, open or start) with a one-time login link, so the session token is never on a command line',
      },
      'new-token': {
        type: 'boolean',
        default: false,
        describe: "Replace the repository's session token with a new one: every browser that had the old one must open the new URL",
      },
    },
    epilog:
      'Prints "brv webui: http://127.0.0.1:<port>/?token=<secret>" and serves until Ctrl-C. The server listens on loopback ' +
      'only; the token is kept per repository (.git/brv/webui-secret, readable by you alone), so open tabs reconnect after a ' +
      'restart on the same port, and is exchanged for an HttpOnly, SameSite=Strict cookie, so only the browser ' +
      'that opened the printed URL (or a script sending "Authorization: Bearer <token>") gets in. Requests naming another ' +
      'Host, and changes coming from another Origin, are refused. --open hands the opener a one-time login link (single use, ' +
      'valid 60 s), never the token: a command line is visible to every local user. Every asset ships with brv: it works offline. The JSON API ' +
      'under /api/ and its live events (/api/events) are described in the README.',
  },
  {
    name: 'tui',
    describe: 'Open the interactive terminal: ask questions, read topics, review changes, live (also: brv with no arguments)',
    epilog:
      'Type a question and press Enter for the ranked topics; / starts a command (/help lists them, Tab completes). The status ' +
      'line shows the brv branch, topics, pending reviews and the remote, and changes made elsewhere (an agent curating, ' +
      'git fetch) show up as they happen. Prompt history is kept per repository in .git/brv/tui-history. NO_COLOR is respected.',
  },
  {
    name: 'dream',
    describe: 'Find topics to consolidate (merge, link, prune, stale, synthesize) and propose changes as one held review',
    options: {
      scope: { type: 'string', describe: 'Only topics in this folder, e.g. security', values: 'folder' },
      kinds: { type: 'string', describe: `What to look for, comma-separated: ${DREAM_KINDS.join(',')} (default: all)` },
      max: { type: 'number', default: 50, min: 1, describe: 'At most this many candidates, strongest first' },
      'dry-run': { type: 'boolean', default: false, describe: 'Show candidates and proposals; record nothing, ask no model' },
    },
    epilog: [
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
  },
  {
    name: 'providers',
    describe: 'Model providers (optional): list, connect <provider>, switch <provider>, disconnect <provider>, check',
    epilog:
      'brv needs no model: agents bring their own. With a provider connected, brv curate "<text>" curates by itself, ' +
      'brv query --answer answers from the topics, brv dream proposes merges, and an embedding model adds hybrid retrieval. ' +
      'Connections live in ~/.config/brv/providers.json; keys come from the environment first, else a 0600 file there or ' +
      "git's credential helper, never a repository. BRV_LLM_PROVIDER (with BRV_LLM_MODEL, BRV_LLM_BASE_URL, BRV_LLM_API_KEY) " +
      'chooses one for a single process; BRV_LLM_PROVIDER=none turns the layer off.',
    subcommands: [
      { name: 'list', describe: 'Every provider, which are connected and in use, and where each key comes from (never the key)' },
      {
        name: 'connect',
        describe: 'Connect a provider and use it (the key is kept outside every repository)',
        positionals: [
          {
            name: 'provider',
            type: 'string',
            demand: true,
            describe:
              'openai, anthropic, google, mistral, groq, xai, deepseek, openrouter, togetherai, fireworks, cerebras, openai-compatible (or ollama, lmstudio, vllm, llama.cpp)',
            example: 'openai',
            values: 'provider',
          },
        ],
        options: {
          model: { type: 'string', describe: "The chat model (default: the provider's default; brv model list)" },
          'base-url': { type: 'string', describe: 'The server URL (OpenAI-compatible servers; also a proxy for the others)' },
          'api-key': {
            type: 'string',
            // `-` is a value here (standard input), not a positional argument.
            nargs: 1,
            describe: 'The API key; - reads it from standard input (keeps it out of shell history). Environment variables still win',
          },
          'key-storage': {
            choices: KEY_STORAGES,
            describe: "Where to keep --api-key: git's credential helper when one is configured (auto), or a 0600 file in ~/.config/brv",
          },
          'embedding-model': { type: 'string', describe: 'Embed topics with this model for hybrid retrieval (none: off)' },
          use: { type: 'boolean', default: true, describe: 'Make it the provider in use (--no-use keeps the current one)' },
        },
        examples: [
          ['$0 providers connect openai', 'Uses OPENAI_API_KEY from the environment'],
          ['echo "$KEY" | $0 providers connect anthropic --api-key -', 'Store a key (read from standard input)'],
          ['$0 providers connect ollama --model llama3.1 --embedding-model nomic-embed-text', 'A local server, no key'],
        ],
      },
      {
        name: 'switch',
        describe: 'Use another connected provider',
        positionals: [
          { name: 'provider', type: 'string', demand: true, describe: 'A connected provider', example: 'openai', values: 'provider' },
        ],
      },
      {
        name: 'disconnect',
        describe: 'Forget a provider and the key brv stored for it',
        positionals: [
          { name: 'provider', type: 'string', demand: true, describe: 'A connected provider', example: 'openai', values: 'provider' },
        ],
      },
      {
        name: 'check',
        describe: 'Send one small request to the provider in use (or the one named): key, URL and model work',
        positionals: [{ name: 'provider', type: 'string', values: 'provider' }],
      },
    ],
  },
  {
    name: 'model',
    describe: 'The model in use: list, switch <model>',
    options: { provider: { type: 'string', describe: 'Another provider', values: 'provider' } },
    subcommands: [
      {
        name: 'list',
        describe: 'Well-known models of the provider in use (or --provider), the current one marked',
        options: { provider: { type: 'string', describe: 'Another provider', values: 'provider' } },
      },
      {
        name: 'switch',
        describe: 'Use another model of the provider in use (any id the provider accepts)',
        positionals: [{ name: 'model', type: 'string', demand: true, describe: 'Any model id the provider accepts', example: 'gpt-5' }],
        options: {
          provider: { type: 'string', describe: 'Another connected provider', values: 'provider' },
          embedding: { type: 'boolean', describe: 'Set the embedding model (hybrid retrieval) instead; none turns it off' },
        },
        examples: [
          ['$0 model switch gpt-5', 'The chat model'],
          ['$0 model switch --embedding text-embedding-3-small', 'Hybrid retrieval on'],
        ],
      },
    ],
  },
];

/** The declaration of the command at `path` (`['vc', 'log']`), or undefined. */
export function findCommand(path: readonly string[]): CommandDecl | undefined {
  let decl: CommandDecl | undefined;
  let level: readonly CommandDecl[] = COMMAND_TABLE;
  for (const name of path) {
    decl = level.find((c) => c.name === name);
    if (!decl) return undefined;
    level = decl.subcommands ?? [];
  }
  return decl;
}

/** The declaration of the command `path` names (`'vc log'`): the command modules' way to their entry. */
export function declaration(path: string): CommandDecl {
  const decl = findCommand(path.split(' '));
  if (!decl) throw new Error(`No command "${path}" in the command table.`);
  return decl;
}

/** Topic paths offered one folder at a time: `sec` → `security/`, `security/` → its topics and folders. */
export function pathCandidates(paths: readonly string[], typed: string, foldersOnly = false): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    if (!path.startsWith(typed)) continue;
    const slash = path.indexOf('/', typed.length);
    if (slash >= 0) found.add(path.slice(0, slash + 1));
    else if (!foldersOnly) found.add(path);
  }
  return [...found].sort();
}
