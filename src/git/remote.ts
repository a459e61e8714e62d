import { BrvError } from '../errors.js';
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

export async function listRemotes(repo: GitRepository): Promise<Remote[]> {
  const entries = await repo.configList('^remote\\..*\\.url$');
  return entries.map(({ key, value }) => ({ name: key.slice('remote.'.length, -'.url'.length), url: value }));
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
 * prunes what they map.
 */
export async function fetchRefspecs(repo: GitRepository, remote: string, refspecs: readonly string[]): Promise<void> {
  try {
    await repo.git(['fetch', '--no-tags', '--prune', '--no-write-fetch-head', '--refmap=', '--quiet', '--', remote, ...refspecs]);
  } catch (error) {
    throw classifyTransportError(error, remote);
  }
}

export interface PushedRef {
  ref: string;
  /** ok (updated, created or deleted), up-to-date, or rejected. */
  status: 'ok' | 'up-to-date' | 'rejected';
  summary: string;
}

/**
 * Pushes refspecs without force, atomically where the server supports it. A ref the server refuses
 * (non-fast-forward) comes back as `rejected`, not as an exception: the caller fetches and retries.
 */
export async function pushRefspecs(repo: GitRepository, remote: string, refspecs: readonly string[]): Promise<PushedRef[]> {
  const attempt = async (atomic: boolean) =>
    repo.git(['push', '--porcelain', ...(atomic ? ['--atomic'] : []), '--', remote, ...refspecs], { okExitCodes: [1] });
  let result;
  try {
    result = await attempt(refspecs.length > 1);
    if (result.exitCode !== 0 && /does not support --atomic/i.test(result.stderr)) result = await attempt(false);
  } catch (error) {
    throw classifyTransportError(error, remote);
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
    throw classifyTransportError(new GitCommandError(['push', remote], result.exitCode, result.stderr), remote);
  }
  return pushed;
}

function classifyTransportError(error: unknown, remote: string): unknown {
  if (!(error instanceof GitCommandError)) return error;
  const stderr = error.stderr;
  const transport = /transport '([^']*)' not allowed/.exec(stderr);
  if (transport) {
    return new BrvError(
      'unsupported-transport',
      `The remote ${remote} uses the ${transport[1]} transport, which brv does not allow (only ${ALLOWED_PROTOCOLS.join(', ')}). Point it at an ssh, https, git or file URL: git remote set-url ${remote} <url>.`,
    );
  }
  if (/Authentication failed|could not read Username|Permission denied|403/i.test(stderr)) {
    return new BrvError(
      'auth-failed',
      `The remote ${remote} refused the credentials: ${lastLine(stderr)}. Check git's access to it (git fetch ${remote}).`,
    );
  }
  if (
    /does not appear to be a git repository|Could not read from remote|not found|unable to access|Connection refused|Could not resolve host/i.test(
      stderr,
    )
  ) {
    return new BrvError('remote-unreachable', `Cannot reach the remote ${remote}: ${lastLine(stderr)}.`);
  }
  return new BrvError('git-failed', `git could not talk to ${remote}: ${lastLine(stderr)}.`);
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter(Boolean);
  return (lines[lines.length - 1] ?? 'no details').replace(/^fatal: /, '');
}

/** `git clone` into `dir` (any URL git accepts: ssh, https with the user's credential helpers, a path). */
export async function cloneRepository(url: string, dir: string, cwd: string, processes: GitProcesses): Promise<void> {
  validateRemoteUrl(url);
  try {
    await runGit(processes, ['clone', '--quiet', '--', url, dir], { cwd });
  } catch (error) {
    throw classifyTransportError(error, url);
  }
}
