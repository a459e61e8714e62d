import { BrvError } from '../errors.js';
import { GitCommandError } from './run.js';
import type { GitRepository } from './repository.js';

export interface Remote {
  name: string;
  url: string;
}

/** A remote name git accepts and that is safe inside a ref name (refs/brv/remotes/<name>/…). */
export function validateRemoteName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) || name.endsWith('.lock') || name.includes('..')) {
    throw new BrvError('invalid-remote-name', `"${name}" is not a usable remote name (letters, digits, ".", "_", "-").`);
  }
  return name;
}

export async function listRemotes(repo: GitRepository): Promise<Remote[]> {
  const entries = await repo.configList('^remote\\..*\\.url$');
  return entries.map(({ key, value }) => ({ name: key.slice('remote.'.length, -'.url'.length), url: value }));
}

export async function addRemote(repo: GitRepository, name: string, url: string): Promise<void> {
  validateRemoteName(name);
  if ((await listRemotes(repo)).some((r) => r.name === name)) {
    throw new BrvError('remote-exists', `A remote named ${name} already exists. Change its URL with brv vc remote set-url ${name} <url>.`);
  }
  await repo.git(['remote', 'add', '--', name, url]);
}

export async function setRemoteUrl(repo: GitRepository, name: string, url: string): Promise<void> {
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
export async function cloneRepository(url: string, dir: string, cwd: string): Promise<void> {
  const { runGit } = await import('./run.js');
  try {
    await runGit(['clone', '--quiet', '--', url, dir], { cwd });
  } catch (error) {
    throw classifyTransportError(error, url);
  }
}
