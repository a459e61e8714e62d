/**
 * Variables that git sets for hooks (and users sometimes export) which would silently point brv's
 * plumbing at another repository, index or object store. brv always names its repository explicitly.
 */
const LEAKING_GIT_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_PREFIX',
  'GIT_NAMESPACE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_INTERNAL_SUPER_PREFIX',
  'GIT_QUARANTINE_PATH',
  'GIT_REFLOG_ACTION',
  'GIT_EDITOR',
  'GIT_PAGER',
];

/** `base` without the variables above, with brv's fixed settings for every git child (a front end passes the environment it was started with). */
export function cleanGitEnvironment(base: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !LEAKING_GIT_VARIABLES.includes(key)) env[key] = value;
  }
  // git never asks for a password on the terminal (a credential helper answers, or the command fails
  // with auth-failed); the user may allow it with GIT_TERMINAL_PROMPT=1. See also `terminalPrompts`.
  env.GIT_TERMINAL_PROMPT ??= '0';
  // Transports: only these, whatever the URL or the configuration says (overrides protocol.*.allow),
  // so a remote URL like ext::<command>, fd::<n> or <helper>::… already in .git/config is refused by
  // git itself. Keep in sync with ALLOWED_PROTOCOLS in remote.ts.
  // A narrower list the user set is kept (the intersection); a wider one is not.
  const allowed = ['file', 'git', 'http', 'https', 'ssh'];
  const user = base.GIT_ALLOW_PROTOCOL?.split(':');
  env.GIT_ALLOW_PROTOCOL = (user ? allowed.filter((p) => user.includes(p)) : allowed).join(':');
  env.GIT_OPTIONAL_LOCKS = '0';
  env.GIT_PAGER = 'cat';
  return env;
}

/**
 * Whether git children may ask on the terminal: only when the environment allows git's own prompts
 * (GIT_TERMINAL_PROMPT set to a true value, as git reads it; brv sets it to 0 otherwise). When they may
 * not, every git child runs without a controlling terminal (its own session, see `spawnGit`), so that
 * nothing under it can wait on one either: ssh's "Are you sure you want to continue connecting" for an
 * unknown host key and its passphrase prompt fail at once (the host-key-unknown and auth-failed
 * errors), whatever ssh command, ssh config or agent the user has — none of which brv changes.
 */
export function terminalPrompts(env: Readonly<Record<string, string>>): boolean {
  const value = (env.GIT_TERMINAL_PROMPT ?? '').trim().toLowerCase();
  if (['true', 'yes', 'on'].includes(value)) return true;
  return /^-?\d+$/.test(value) && Number(value) !== 0;
}
