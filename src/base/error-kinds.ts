import { TOPIC_ERROR_KINDS } from '../topic/error-kinds.js';

/**
 * Every error kind brv reports, each with a one-line meaning: the one registry. Kinds are API —
 * scripts match on them in `--format json` envelopes (`data.error.kind`), the curate protocol's
 * `errors[].kind`, and MCP tool results (`✗ <kind>: <message>`) — so a kind is never renamed.
 * `BrvError` takes only these kinds, so a kind that is not registered here fails `tsc`.
 * docs/errors.md is generated from this record (`npm run docs:errors`; test/errors.test.ts checks it).
 *
 * It imports only the topic validation kinds (a leaf) so that every layer can use it.
 */
export const ERROR_KINDS = {
  // ---- front ends ----
  usage:
    'The command line is wrong: an unknown command or option, a missing or invalid argument (exit code 2; in text output no `[usage]` suffix is printed).',
  'internal-error': 'An unexpected failure (a bug in brv); `BRV_DEBUG=1` shows where.',
  'cwd-required': 'The MCP server was started outside a git repository and the tool call did not pass `cwd`.',
  'invalid-cwd': 'The `cwd` passed to an MCP tool is not an absolute path.',
  'relative-path': 'A directory was passed to the service as a relative path; front ends resolve paths first.',
  'outside-repository': 'The `cwd` passed to an MCP tool is outside the repository the server serves.',
  'server-closing': 'The MCP server is shutting down; reconnect and call again.',
  'repository-closed': 'A repository was used after its command or server closed it (a bug, or work still running at exit); run it again.',

  // ---- git and the repository ----
  'git-not-found': 'git is not on `PATH`.',
  'git-too-old': 'The installed git is older than the version brv needs.',
  'git-version-unknown': 'brv could not read the version of the installed git.',
  'git-failed': 'A git command brv ran failed or exited unexpectedly.',
  'too-many-open-files':
    'The open-file limit is reached (EMFILE, ENFILE): brv could not start git or open a file; raise `ulimit -n` and retry.',
  'cannot-start-process':
    'The system refused a new git process (EAGAIN: the process limit, `ulimit -u`; ENOMEM: out of memory); retry later.',
  'not-a-git-repository': 'The directory does not exist or is not inside a git repository.',
  'no-work-tree': 'The repository is bare, so there is no project folder to install connectors into.',
  'corrupt-repository': 'A git object brv needs is missing or of the wrong type.',
  'invalid-object-name': 'An object name or tree id is malformed (a newline, or not hex).',
  'invalid-config-key': 'A git config key is not of the form section.name.',
  'invalid-revision': 'A revision, branch or commit name is not valid.',
  'ref-moved': 'A brv ref changed while this command was writing it.',
  'ref-contention': 'A brv branch kept changing under a write; brv gave up after several attempts.',
  'worktree-failed': '`git worktree add` failed.',
  'package-files-missing': "brv's own package files (`hooks/`, `templates/`) cannot be found; reinstall brv.",
  'hooks-missing': "One of brv's git hook scripts cannot be read; reinstall brv.",
  'unknown-hook': 'A hook name that brv does not install was asked for (`valid` lists the names); nothing was changed.',
  'invalid-template': 'The name is not one of the templates brv ships.',

  // ---- the context tree: branches, topics, commits ----
  'not-initialized': 'The brv branch does not exist or has no commits yet; run `brv init` (or curate first).',
  'init-failed': '`brv init` could not create the brv branch.',
  'invalid-branch-name': 'The name is not a valid brv branch name.',
  'branch-exists': 'A brv branch with that name already exists.',
  'branch-not-found': 'There is no brv branch with that name.',
  'branch-in-use': 'The brv branch is checked out here; check out another branch first.',
  'branch-not-merged': 'The brv branch has knowledge not merged into the current one; merge it, or delete with `--force`.',
  'not-found': 'No topic at that path, or no brv commit, branch or tag by that name.',
  'is-a-folder': 'The path is a folder of topics; pass `--recursive` to act on all of them.',
  'path-conflict': 'A file in the context tree is in the way of a path below it.',
  'invalid-change': 'A change would empty the whole context tree.',
  'not-a-brv-commit': 'The commit (or a fetched tip) is not a brv commit: its tree has no brv format file.',
  'unsupported-format': 'The context tree uses a brv data format this brv does not read.',
  'invalid-merge': 'The merge is not possible, e.g. a brv branch into itself.',
  'merge-failed': 'A merge produced no commit.',
  'edit-conflict': 'The topic changed (or was removed) while it was being edited; the edited text was kept in the file named.',
  'edit-path-changed': 'An edited topic names another path than the topic being edited.',
  'edit-aborted': 'The edit was abandoned (empty text, or invalid text saved again unchanged); the text was kept in the file named.',
  'no-terminal': '`brv edit` needs a terminal, or an editor named in `$VISUAL`/`$EDITOR`.',
  'editor-failed': 'The editor could not be started or exited with an error; nothing was saved.',

  // ---- reviews ----
  'invalid-review-id': 'The text is not a review id.',
  'ambiguous-review-id': 'The review id prefix matches several reviews.',
  'review-not-found': 'There is no open review with that id.',
  'review-not-on-branch': 'The review is about a commit that is not on the current brv branch.',
  'file-not-in-review': 'The review has no pending change to the file named.',
  'unresolved-conflicts':
    'The merge review still has topics with conflict notes; resolve them (`brv review resolve`) or approve with `--keep-both`.',
  'no-conflict': 'The topic (or section) named has no merge conflict to resolve.',
  'reject-conflict':
    'A later change edited what a rejected change changed: both versions are kept, marked, in a merge review to resolve (`brv review resolve`).',
  'conflict-needs-edit': 'The conflict cannot be resolved by picking a side (no valid other version); resolve it with `--edit`.',
  'hold-decided-whole':
    'The review holds incoming knowledge (that removes topics, or is not signed by an allowed key); it is approved or rejected whole, not file by file.',

  // ---- remotes, sync and knowledge sources ----
  'no-remote': 'There is no git remote of that name, or none at all.',
  'no-upstream': 'Several remotes and no upstream for the brv branch; name the remote.',
  'remote-exists': 'A git remote with that name already exists.',
  'invalid-remote-name': 'The name is not a usable git remote name.',
  'invalid-url': 'The remote URL is malformed, looks like an option, or uses a scheme brv does not allow.',
  'unsupported-transport': 'The remote uses a git transport brv does not allow.',
  'remote-unreachable': 'brv could not reach the remote.',
  'auth-failed': 'The remote refused the credentials.',
  'host-key-unknown':
    "ssh does not know the remote host's key yet, and brv never asks: trust it once (ssh to it, or ssh-keyscan), then run the command again.",
  'host-key-changed': "The remote host's ssh key differs from the one known for it (possibly an attack); nothing was fetched or pushed.",
  'non-fast-forward': 'The remote has knowledge on the branch that is not here; pull (or sync) first, then push.',
  'incoming-held':
    'The remote has knowledge on the branch that is held here for review (it removes many topics); approve or reject the review, then push.',
  'untrusted-knowledge':
    'sync.requireSigned is on and the remote branch has commits without a good signature by an allowed key; with no local branch to keep, nothing was taken.',
  'trust-not-configured':
    'sync.requireSigned is on but git has no readable gpg.ssh.allowedSignersFile to check signatures against; set it (git config gpg.ssh.allowedSignersFile <file>).',
  'signing-failed': 'git config asks for signed commits (commit.gpgSign) and git could not sign one; nothing was written.',
  'sync-contention': 'The remote kept moving during sync; brv gave up after several rounds.',
  'remote-not-found': 'There is no git repository at the remote path or URL (missing, not a repository, 404).',
  'push-refused': 'The remote refused the push itself (a server hook, a read-only repository), not because it moved.',
  'destination-exists': 'The directory to clone into already exists and is not empty.',
  'invalid-alias': 'The text is not a usable knowledge source alias.',
  'source-exists': 'That location (or alias) is already a knowledge source.',
  'source-is-self': 'A repository cannot be a knowledge source of itself.',
  'source-not-found': 'There is no knowledge source by that name, or the path to add does not exist.',
  'not-a-brv-source': 'The knowledge source has no brv knowledge on the branch asked for.',

  // ---- search ----
  'missing-query': '`brv query` was given no question.',
  'invalid-date':
    'A `--since`/`--until` value is not a day of the calendar written YYYY-MM-DD, or a date given as a revision (`--at`) names no day.',
  'index-corrupt': 'A search index file is damaged; brv rebuilds the index.',

  // ---- local state (under <git-common-dir>/brv) ----
  'corrupt-local-state': "A file of brv's local state (under `<git-common-dir>/brv/`) is damaged or not what brv wrote.",
  'local-state-unwritable': 'brv cannot write a file of its local state (permissions, disk space, or something in its place).',

  // ---- settings and connectors ----
  'unknown-setting': 'There is no setting of that name.',
  'invalid-setting-value': 'The value is not allowed for the setting.',
  'unknown-agent': 'There is no agent connector of that name.',
  'unsupported-type': 'The agent has no connector of that type.',
  'scope-not-supported': 'The agent does not support that connector in this scope (project or `--global`).',
  'path-outside-root': 'A connector file would be written outside its root folder (through `..` or a symbolic link).',
  'config-is-symlink': 'An agent config file or skill folder is a symbolic link; brv does not write through links.',
  'config-not-a-file': 'Something in the way of an agent config file is not a directory or not a regular file.',
  'config-not-readable': 'An agent config file cannot be read.',
  'config-not-writable': 'An agent config file cannot be written.',
  'config-malformed': 'An agent config file is not valid JSON, TOML, YAML or UTF-8 text; brv left it untouched.',
  'config-conflict':
    'brv cannot edit an agent config file safely (something unexpected is where it would write); it left the file untouched.',
  'config-changed': 'An agent config file changed while brv was editing it; brv changed nothing.',

  // ---- curate: the protocol (ByteRover-compatible kinds), one-shot writes and topic files ----
  'missing-content': '`brv curate` was given no intent text.',
  'missing-response': "Continuing a curate session needs the agent's reply (`--response` or `--response-file`).",
  'empty-response': "The agent's curate response is empty.",
  'invalid-response-format': 'The curate response (or its meta) is not the expected JSON `{"html": …, "meta": {…}}`.',
  'invalid-encoding': 'The input is not UTF-8 text (a NUL byte or invalid bytes).',
  'invalid-flag-combination': '`brv curate` was given flags that do not go together.',
  'removed-flag': 'A curate flag that was removed in tool mode was used.',
  'unknown-session': 'No curate session with that id: it finished, expired after 24 hours, or never existed.',
  'retry-cap-exceeded': 'A curate session needed too many corrections and was closed.',
  'path-exists': 'A topic already exists at that path; merge into it and resend with overwrite, or choose another path.',
  'path-case-collision':
    'A new topic path differs only by letter case from a topic or folder in the tree (one file on macOS and Windows); use its spelling.',
  'response-file-read-error': 'The `--response-file` cannot be read.',
  'response-file-not-regular': 'The `--response-file` is not a regular file, or changed while it was read.',
  'response-file-delete-error': 'The response was handled but the `--response-file` could not be deleted.',
  'html-file-read-error': 'The `--html-file` cannot be read.',
  'html-file-not-regular': 'The `--html-file` is not a regular file, or changed while it was read.',
  'attached-file-read-error': 'A file attached to a self-driven curate (`-f`, `@path`) cannot be read.',
  'attached-file-not-regular': 'A file attached to a self-driven curate is not a regular file, or changed while it was read.',
  'too-many-files': 'A self-driven curate was given more attached files than it takes (5).',
  ...TOPIC_ERROR_KINDS,

  // ---- model providers (optional LLM layer) ----
  'no-provider': 'The command needs a model and none is connected: `brv providers connect <provider>` (or BRV_LLM_PROVIDER).',
  'unknown-provider': 'There is no model provider of that name (`brv providers list` shows them).',
  'missing-api-key':
    "The provider needs an API key and none was found (its environment variable, git's credential helper, or `brv providers connect --api-key -`).",
  'llm-auth': 'The provider refused the API key (401/403); check the key and that it may use the model.',
  'llm-rate-limited': 'The provider kept answering "too many requests" after the retries; wait, or lower the load.',
  'llm-timeout': 'The provider did not answer (or stopped streaming) within `llm.timeout` seconds.',
  'llm-unavailable': 'The provider could not be reached, or failed (5xx) after the retries.',
  'llm-rejected': 'The provider refused the request (a 4xx other than auth and rate limits: unknown model, bad request).',
  'llm-bad-reply': 'The provider answered something brv cannot use: malformed, empty, or larger than the cap.',
  'llm-cancelled': 'The model call was cancelled (Ctrl-C); nothing was written.',
  'dream-wrong-path':
    "A model's topic for a `brv dream` proposal names another path than the one proposed; it was asked to correct it, then dropped.",
  'provider-config-unreadable': "brv's provider settings file (`~/.config/brv/providers.json`) is damaged or cannot be written.",
  'no-credential-helper':
    "A key was to be stored in git's credential helper and none is configured (`git config --global credential.helper`).",

  // ---- import and export ----
  'import-read-error': 'The folder to import cannot be read or is not a folder.',
  'topic-file-read-error': 'A topic file to import cannot be read.',
  'topic-file-not-regular': 'A topic file to import is not a regular file, or changed while it was read.',
  'invalid-frontmatter': "A legacy Markdown topic's front matter cannot be parsed.",
  'duplicate-path': 'Two inputs name the same topic path.',
  'export-target-invalid': 'The export target, or a folder on its way, is a symbolic link or not a folder.',
  'export-target-exists': 'The export folder is not empty; pass `--force` to replace it.',
  'export-write-error': 'A file or folder of the export cannot be written.',
  'publish-write-error': 'A file or folder of `brv publish --to-dir` cannot be written or read.',
  'publish-target-invalid': 'The `brv publish` folder, or a folder on its way, is a symbolic link or not a folder.',
  'publish-target-not-ours':
    'The `brv publish` folder or branch holds something publish did not write (no marker file, or a tip without its trailer); pass `--force` to publish there anyway.',
  'publish-branch-checked-out':
    'The branch named for `brv publish --to-branch` is checked out in a work tree, which publish never touches.',
  'invalid-publish-branch': 'The name given to `brv publish --to-branch` is not a valid git branch name.',

  // ---- web dashboard (brv webui) ----
  'port-in-use': 'The port given to `brv webui --port` is taken by another process; pick another or omit `--port`.',
  unauthorized: 'A dashboard request without the session of this `brv webui` run: open the URL it printed (with its token).',
  forbidden:
    'A dashboard request refused before routing: a `Host` that is not a loopback name, or a mutation whose `Origin` is missing or foreign.',
  'method-not-allowed': 'The dashboard API path does not take that HTTP method.',
  'payload-too-large': 'A dashboard API request body is larger than the server accepts (1 MiB).',
  'invalid-request': 'A dashboard API request is malformed: not JSON, a missing or mistyped field, or a bad query parameter.',
  'invalid-topic': 'A topic edited in the dashboard is not valid: nothing was saved; `errors` lists what the validator found.',
} as const;

/** An error kind brv reports: a key of ERROR_KINDS. */
export type ErrorKind = keyof typeof ERROR_KINDS;

export function isErrorKind(value: string): value is ErrorKind {
  return Object.hasOwn(ERROR_KINDS, value);
}
