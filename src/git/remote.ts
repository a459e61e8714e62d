import type { GitTransferProgress } from './transfer-progress.js';
import { BrvError, redactCredentials } from '../base/errors.js';
import { GitCommandError, runGit } from './run.js';
import type { GitProcesses } from './processes.js';
import type { GitRepository } from './repository.js';

export interface Remote {
  name: string;
  url: string;
}

/** A remote name git accepts and that is safe inside a ref name (refs/brv/remotes/<name>/…). */
function validateRemoteName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) || name.endsWith('.lock') || name.includes('..')) {
    throw new BrvError('invalid-remote-name', `"${name}" is not a usable remote name (letters, digits, ".", "_", "-").`);
  }
  return name;
}

/**
 * The transports brv lets git use (GIT_ALLOW_PROTOCOL in every git child brv runs, see env.ts):
 * no `ext::` (runs a command), no `fd::`, no other remote helper (`<helper>::…`, `<helper>://…`
 * runs `git-remote-<helper>` from PATH).
 */
const ALLOWED_PROTOCOLS = ['file', 'git', 'http', 'https', 'ssh'] as const;
const SCHEMES: ReadonlySet<string> = new Set<string>([...ALLOWED_PROTOCOLS, 'git+ssh', 'ssh+git']);

/**
 * A remote URL (or path) from an agent or a user, checked before git sees it: a local path, an
 * scp-like `[user@]host:path`, or `scheme://…` with an allowed scheme. Transport helpers
 * (`ext::…`, `fd::…`, `<helper>::…`), other schemes, option-like values (`-…`, a host or user that
 * starts with `-`) and control characters are refused with `unsupported-transport` / `invalid-url`.
 */
export function validateRemoteUrl(url: string): string {
  if (url.length === 0 || url.length > 4096 || /[\0-\x1f\x7f]/.test(url)) {
    throw new BrvError('invalid-url', 'A remote URL must be one line of printable text. Give an ssh, https, git or file URL, or a path.');
  }
  if (url.startsWith('-')) {
    throw new BrvError('invalid-url', `"${url}" looks like an option, not a URL. Give an ssh, https, git or file URL, or a path.`);
  }
  const helper = /^([A-Za-z0-9][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper) {
    throw new BrvError(
      'unsupported-transport',
      `${helper[1]}:: URLs (git remote helpers) are not allowed: brv only uses ${ALLOWED_PROTOCOLS.join(', ')}. Give an ssh, https, git or file URL, or a path.`,
    );
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (scheme) {
    if (!SCHEMES.has(scheme[1]!.toLowerCase())) {
      throw new BrvError(
        'unsupported-transport',
        `${scheme[1]}:// URLs are not allowed: brv only uses ${ALLOWED_PROTOCOLS.join(', ')}. Give an ssh, https, git or file URL, or a path.`,
      );
    }
    // ssh://-oProxyCommand=…, ssh://user@-host/…: git refuses most of these, brv refuses them all.
    const authority = url.slice(scheme[0].length).split('/')[0] ?? '';
    if (/(^|@)-/.test(authority) || /^-/.test(decodeURIComponentSafe(authority))) {
      throw new BrvError('invalid-url', `"${url}" has a host or user that looks like an option.`);
    }
    return url;
  }
  // scp-like [user@]host:path (a colon before any slash), as git reads it.
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon > 0 && (slash < 0 || colon < slash)) {
    const authority = url.slice(0, colon);
    if (/(^|@)-/.test(authority)) throw new BrvError('invalid-url', `"${url}" has a host or user that looks like an option.`);
  }
  return url;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The remotes, each URL shown as brv shows every URL: without credentials (see `redactCredentials`). */
export async function listRemotes(repo: GitRepository): Promise<Remote[]> {
  const entries = await repo.configList('^remote\\..*\\.url$');
  return entries.map(({ key, value }) => ({ name: key.slice('remote.'.length, -'.url'.length), url: redactCredentials(value) }));
}

export async function addRemote(repo: GitRepository, name: string, url: string): Promise<void> {
  validateRemoteName(name);
  validateRemoteUrl(url);
  if ((await listRemotes(repo)).some((r) => r.name === name)) {
    throw new BrvError('remote-exists', `A remote named ${name} already exists. Change its URL with brv vc remote set-url ${name} <url>.`);
  }
  await repo.git(['remote', 'add', '--', name, url]);
}

export async function setRemoteUrl(repo: GitRepository, name: string, url: string): Promise<void> {
  validateRemoteUrl(url);
  await requireRemote(repo, name);
  await repo.git(['remote', 'set-url', '--', name, url]);
}

export async function removeRemote(repo: GitRepository, name: string): Promise<void> {
  await requireRemote(repo, name);
  await repo.git(['remote', 'remove', '--', name]);
}

export async function requireRemote(repo: GitRepository, name: string): Promise<Remote> {
  const remote = (await listRemotes(repo)).find((r) => r.name === name);
  if (!remote) throw new BrvError('no-remote', `No git remote named ${name}. Add one with brv vc remote add ${name} <url>.`);
  return remote;
}

/**
 * Fetches exactly these refspecs (nothing else: no tags, no default refspecs, and — `--refmap=` —
 * no opportunistic update of the remote-tracking refs the remote's configured refspecs map to) and
 * prunes what they map. Whole, whatever filter a partial clone (`git clone --filter=blob:none`)
 * set on the remote (`--no-filter`): knowledge is small and every read, diff and merge needs its
 * blobs, which git would otherwise fetch lazily, one process and one request per topic.
 */
export async function fetchRefspecs(
  repo: GitRepository,
  remote: string,
  refspecs: readonly string[],
  onTransfer?: (progress: GitTransferProgress) => void,
): Promise<void> {
  const quiet = onTransfer ? '--progress' : '--quiet';
  try {
    await repo.git(
      ['fetch', '--no-tags', '--prune', '--no-write-fetch-head', '--no-filter', '--refmap=', quiet, '--', remote, ...refspecs],
      {
        onTransfer,
      },
    );
  } catch (error) {
    throw classifyTransportError(error, remote, await remoteUrl(repo, remote));
  }
}

/**
 * Fetches these objects (oids) from a partial clone's promisor remote in one request, as git itself
 * does for one missing object (the same command, given all of them at once): a blob asked by name
 * comes whatever the remote's filter. No ref moves.
 */
export async function fetchObjects(repo: GitRepository, remote: string, oids: readonly string[]): Promise<void> {
  if (oids.length === 0) return;
  try {
    await repo.git(
      [
        '-c',
        'fetch.negotiationAlgorithm=noop',
        'fetch',
        '--no-tags',
        '--no-write-fetch-head',
        '--recurse-submodules=no',
        '--filter=blob:none',
        '--quiet',
        '--stdin',
        '--',
        remote,
      ],
      { input: `${oids.join('\n')}\n` },
    );
  } catch (error) {
    throw classifyTransportError(error, remote, await remoteUrl(repo, remote));
  }
}

export interface PushedRef {
  ref: string;
  /** ok (updated, created or deleted), up-to-date, or rejected. */
  status: 'ok' | 'up-to-date' | 'rejected';
  summary: string;
}

/** `[remote rejected]` reasons that mean another push got there first (retry), not a refusal. */
const RACE_SUMMARY =
  /atomic|failed to update ref|cannot lock|failed to lock|unable to lock|incorrect old value|non-fast-forward|fetch first|stale info/i;

/**
 * Pushes refspecs without force, atomically where the server supports it. A ref the server refuses
 * (non-fast-forward) comes back as `rejected`, not as an exception: the caller fetches and retries.
 */
export async function pushRefspecs(
  repo: GitRepository,
  remote: string,
  refspecs: readonly string[],
  onTransfer?: (progress: GitTransferProgress) => void,
  /** What a push-refused error suggests doing next (default: ask whoever runs the remote, or push elsewhere). */
  refusedAdvice = 'Ask whoever runs it, or push elsewhere.',
): Promise<PushedRef[]> {
  const progress = onTransfer ? ['--progress'] : [];
  const attempt = async (atomic: boolean) =>
    repo.git(['push', '--porcelain', ...progress, ...(atomic ? ['--atomic'] : []), '--', remote, ...refspecs], {
      okExitCodes: [1],
      onTransfer,
    });
  let result;
  try {
    result = await attempt(refspecs.length > 1);
    if (result.exitCode !== 0 && /does not support --atomic/i.test(result.stderr)) result = await attempt(false);
  } catch (error) {
    throw classifyTransportError(error, remote, await remoteUrl(repo, remote));
  }
  const pushed: PushedRef[] = [];
  for (const line of result.stdout.split('\n')) {
    // "<flag>\t<from>:<to>\t<summary>"
    const match = /^(.)\t[^:\t]*:([^\t]+)\t(.*)$/.exec(line);
    if (!match) continue;
    const [, flag, ref, summary] = match;
    pushed.push({ ref: ref!, status: flag === '!' ? 'rejected' : flag === '=' ? 'up-to-date' : 'ok', summary: summary! });
  }
  if (result.exitCode !== 0 && !pushed.some((p) => p.status === 'rejected')) {
    throw classifyTransportError(
      new GitCommandError(['push', remote], result.exitCode, result.stderr),
      remote,
      await remoteUrl(repo, remote),
    );
  }
  // The server refused (a hook, a read-only repository, a full disk): not a race a fetch can fix.
  // A ref lock or an old value lost to a concurrent push is a race: the caller fetches and retries.
  const refused = pushed.filter((p) => p.status === 'rejected' && /^\[remote rejected\]/.test(p.summary) && !RACE_SUMMARY.test(p.summary));
  if (refused.length > 0) {
    const remoteLines = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('remote: '))
      .map((line) => line.slice('remote: '.length))
      .join('\n');
    const said = gitReason(remoteLines);
    throw new BrvError(
      'push-refused',
      `The remote ${remote} refused the push of ${refused.map((p) => `${p.ref} ${p.summary.replace(/^\[remote rejected\] /, '')}`).join(', ')}` +
        `${said === 'no details' ? '' : `; it said "${said}"`}. ${refusedAdvice}`,
    );
  }
  return pushed;
}

/**
 * A failed git transport command as a typed error that carries git's own words. Every failure
 * mode brv can produce locally is mapped (test/cli/transports.test.ts): a transport brv does not
 * allow, credentials refused or missing (401/403, no credential helper, ssh publickey), no
 * repository at the path or URL (missing path, not a repository, 404), the host not reachable
 * (refused connection, unknown host, server errors), a clone into a non-empty directory;
 * anything else is git-failed, still with git's message.
 */
function classifyTransportError(error: unknown, remote: string, url?: string): unknown {
  if (!(error instanceof GitCommandError)) return error;
  const stderr = error.stderr;
  const reason = gitReason(stderr);
  const transport = /transport '([^']*)' not allowed/.exec(stderr);
  if (transport) {
    return new BrvError(
      'unsupported-transport',
      `The remote ${remote} uses the ${transport[1]} transport, which brv does not allow (only ${ALLOWED_PROTOCOLS.join(', ')}). Point it at an ssh, https, git or file URL: git remote set-url ${remote} <url>.`,
    );
  }
  // Before the patterns below: git adds "Could not read from remote repository" after ssh's words.
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for \S+ has changed/i.test(stderr)) {
    const host = sshHost(url);
    return new BrvError(
      'host-key-changed',
      `The ssh host key of the remote ${remote} is not the one known for it (ssh says "REMOTE HOST IDENTIFICATION HAS CHANGED"): ` +
        'someone may be intercepting the connection, or the host was reinstalled. Nothing was fetched or pushed. ' +
        `Ask whoever runs the host for its key fingerprint; only if it matches, remove the old key (ssh-keygen -R ${host ? knownHostsName(host) : '<host>'}) and trust the new one.`,
    );
  }
  if (/Host key verification failed|No \S+ host key is known for/i.test(stderr)) {
    const host = sshHost(url);
    const login = host ? `ssh ${host.port ? `-p ${host.port} ` : ''}${host.user ? `${host.user}@` : ''}${host.host}` : 'ssh <user>@<host>';
    const scan = host ? `ssh-keyscan ${host.port ? `-p ${host.port} ` : ''}${host.host}` : 'ssh-keyscan <host>';
    return new BrvError(
      'host-key-unknown',
      `ssh does not know the host key of the remote ${remote} yet, and brv does not ask (git says "${reason}"). ` +
        `If the host is the one you expect, trust it once: connect in a terminal (${login}) and answer yes after checking the fingerprint, ` +
        `or add its key with ${scan} >> ~/.ssh/known_hosts; then run the command again.`,
    );
  }
  const destination = /destination path '(.*)' already exists and is not an empty directory/.exec(stderr);
  if (destination) {
    return new BrvError(
      'destination-exists',
      `Cannot clone into ${destination[1]}: git says "${reason}". Name another directory: brv vc clone <url> <dir>.`,
    );
  }
  if (
    /Authentication failed|could not read (Username|Password)|terminal prompts disabled|Permission denied \(|returned error: 40[13]\b|HTTP Basic: Access denied/i.test(
      stderr,
    )
  ) {
    return new BrvError(
      'auth-failed',
      `The remote ${remote} refused access: git says "${reason}". Check your credentials for it (a credential helper or an ssh key; try git fetch ${remote} in a terminal).` +
        (/Permission denied \(/.test(stderr)
          ? ' brv never lets ssh ask for a passphrase: load the key into your ssh agent (ssh-add), or set GIT_TERMINAL_PROMPT=1 to let git and ssh ask in this terminal.'
          : ''),
    );
  }
  if (
    /does not appear to be a git repository|not a git repository|invalid gitfile format|repository '[^']*' (not found|does not exist)|returned error: 404\b/i.test(
      stderr,
    )
  ) {
    // A clone names its URL itself (remote === url): there is no remote to set a URL on.
    const fix = remote === url ? 'Check the path or URL.' : 'Check the path or URL (brv vc remote set-url <name> <url>).';
    return new BrvError('remote-not-found', `There is no git repository at the remote ${remote}: git says "${reason}". ${fix}`);
  }
  if (
    /unable to access|unable to connect|Could not resolve host|Connection refused|Connection timed out|Couldn't connect|Network is unreachable|No route to host|Could not read from remote|the remote end hung up/i.test(
      stderr,
    )
  ) {
    return new BrvError(
      'remote-unreachable',
      `Cannot reach the remote ${remote}: git says "${reason}". Check the network and the URL, then try again.`,
    );
  }
  return new BrvError('git-failed', `git could not talk to the remote ${remote}: git says "${reason}".`);
}

/** git's boilerplate after a transport failure, which says nothing about the cause. */
const BOILERPLATE = [
  /^Could not read from remote repository\.?$/i,
  /^Please make sure you have the correct access rights$/i,
  /^and the repository exists\.?$/i,
  /^failed to push some refs to /i,
];

/**
 * What git said went wrong: its fatal/error lines (and a server's `remote:` lines) without the
 * generic advice git prints after them, prefixes dropped, at most three lines joined by "; ".
 */
function gitReason(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.replace(/[\u0000-\u001f\u007f]/g, ' ').trim())
    .filter(Boolean)
    .map((line) => line.replace(/^(fatal|error): /, ''))
    .filter((line) => !BOILERPLATE.some((pattern) => pattern.test(line)));
  const text = lines.slice(0, 3).join('; ');
  return (text.length > 500 ? `${text.slice(0, 500)}…` : text) || 'no details';
}

/** `git clone` into `dir` (any URL git accepts: ssh, https with the user's credential helpers, a path). */
export async function cloneRepository(url: string, dir: string, cwd: string, processes: GitProcesses): Promise<void> {
  validateRemoteUrl(url);
  try {
    await runGit(processes, ['clone', '--quiet', '--', url, dir], { cwd });
  } catch (error) {
    throw classifyTransportError(error, url, url);
  }
}

/** The URL of a remote (for the hints of an error), or undefined when it cannot be read. */
async function remoteUrl(repo: GitRepository, remote: string): Promise<string | undefined> {
  try {
    return await repo.configGet(`remote.${remote}.url`);
  } catch {
    return undefined;
  }
}

interface SshHost {
  user?: string;
  host: string;
  port?: string;
}

/**
 * The user, host and port of an ssh URL (`ssh://[user@]host[:port]/path`, `git+ssh://…`) or an
 * scp-like `[user@]host:path`, for the commands an error suggests; undefined for anything else, or
 * a part that is not plain (it is printed as a command to run).
 */
export function sshHost(url: string | undefined): SshHost | undefined {
  if (!url) return undefined;
  let user: string | undefined;
  let host: string;
  let port: string | undefined;
  const scheme = /^(ssh|git\+ssh|ssh\+git):\/\/([^/]*)/i.exec(url);
  if (scheme) {
    let authority = scheme[2]!;
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(authority);
    const plain = /^([^:]*)(?::(\d*))?$/.exec(authority);
    host = (bracketed ?? plain)?.[1] ?? '';
    port = (bracketed ?? plain)?.[2] || undefined;
  } else {
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) return undefined;
    const colon = url.indexOf(':');
    const slash = url.indexOf('/');
    if (colon <= 0 || (slash >= 0 && slash < colon)) return undefined;
    const authority = url.slice(0, colon);
    const at = authority.lastIndexOf('@');
    user = at >= 0 ? authority.slice(0, at) : undefined;
    host = authority.slice(at + 1);
  }
  const word = /^[A-Za-z0-9._][A-Za-z0-9._-]*$/;
  if (!word.test(host) && !/^[0-9A-Fa-f:.]+$/.test(host)) return undefined;
  if (user !== undefined && !word.test(user)) user = undefined;
  if (port === '22') port = undefined;
  return { user, host, port };
}

/** How known_hosts (and ssh-keygen -R) name a host: `[host]:port` when the port is not 22. */
function knownHostsName(host: SshHost): string {
  return host.port ? `'[${host.host}]:${host.port}'` : host.host;
}
