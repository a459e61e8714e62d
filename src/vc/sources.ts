import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { validateRemoteUrl } from '../git/remote.js';
import type { GitRepository } from '../git/repository.js';
import { branchRef, DEFAULT_BRANCH, sourceRef } from '../store/layout.js';

/** Another repository whose knowledge this one reads (never writes): `brv source add`. */
export interface Source {
  alias: string;
  url: string;
  branch: string;
  /** The fetched tip, under refs/brv/sources/<alias>/<branch>. */
  commit: string | undefined;
}

const SECTION = 'brvsource';

function validateAlias(alias: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(alias) || alias.endsWith('.lock') || alias.includes('..')) {
    throw new BrvError('invalid-alias', `"${alias}" is not a usable source alias (letters, digits, ".", "_", "-").`);
  }
  return alias;
}

export async function listSources(repo: GitRepository): Promise<Source[]> {
  const entries = await repo.configList(`^${SECTION}\\.`);
  const byAlias = new Map<string, { url?: string; branch?: string }>();
  for (const { key, value } of entries) {
    const match = /^brvsource\.(.+)\.(url|branch)$/.exec(key);
    if (!match) continue;
    const entry = byAlias.get(match[1]!) ?? {};
    entry[match[2] as 'url' | 'branch'] = value;
    byAlias.set(match[1]!, entry);
  }
  const sources: Source[] = [];
  for (const [alias, entry] of byAlias) {
    if (!entry.url) continue;
    const branch = entry.branch ?? DEFAULT_BRANCH;
    sources.push({ alias, url: entry.url, branch, commit: await repo.resolve(sourceRef(alias, branch)) });
  }
  return sources;
}

/**
 * Registers a source and fetches its knowledge. A local path is checked to be another repository
 * (not this one); any URL git accepts works. The alias defaults to the last path segment.
 */
export async function addSource(
  repo: GitRepository,
  location: string,
  options: { alias?: string; branch?: string; cwd: string },
): Promise<Source> {
  if (options.alias !== undefined) validateAlias(options.alias);
  const url = await canonicalLocation(location, options.cwd);
  const self = [repo.location.workTree, repo.location.gitDir, repo.location.commonDir].filter(Boolean) as string[];
  const selfReal = await Promise.all(self.map((p) => realpath(p).catch(() => p)));
  if (selfReal.includes(url)) throw new BrvError('source-is-self', 'A repository cannot be a knowledge source of itself.');
  const existing = await listSources(repo);
  const duplicate = existing.find((s) => s.url === url);
  if (duplicate) throw new BrvError('source-exists', `${location} is already a source (alias ${duplicate.alias}).`);
  const alias = validateAlias(options.alias ?? uniqueAlias(defaultAlias(url), existing));
  if (existing.some((s) => s.alias === alias))
    throw new BrvError('source-exists', `A source named ${alias} already exists. Pick another --alias.`);
  const branch = options.branch ?? DEFAULT_BRANCH;
  const source: Source = { alias, url, branch, commit: undefined };
  await fetchSource(repo, source);
  await repo.configSet(`${SECTION}.${alias}.url`, url);
  if (branch !== DEFAULT_BRANCH) await repo.configSet(`${SECTION}.${alias}.branch`, branch);
  return { ...source, commit: await repo.resolve(sourceRef(alias, branch)) };
}

export async function removeSource(repo: GitRepository, aliasOrLocation: string): Promise<Source> {
  const sources = await listSources(repo);
  const source = sources.find((s) => s.alias === aliasOrLocation) ?? sources.find((s) => s.url === aliasOrLocation);
  if (!source) throw new BrvError('source-not-found', `No knowledge source ${aliasOrLocation}. List them with brv source list.`);
  await repo.git(['config', '--remove-section', `${SECTION}.${source.alias}`], { okExitCodes: [128] });
  const ref = sourceRef(source.alias, source.branch);
  const oid = await repo.resolve(ref);
  if (oid) await repo.updateRefs([{ ref, newOid: undefined, oldOid: oid }], `brv source remove ${source.alias}`);
  return source;
}

/**
 * Fetches one source's brv branch into refs/brv/sources/<alias>/<branch> (forced: it is a mirror).
 * The fetched tip is checked first: one that is not a brv commit this brv reads is refused and the
 * source ref keeps its old value.
 */
async function fetchSource(repo: GitRepository, source: Source): Promise<void> {
  try {
    const { fetchStaged } = await import('./sync.js');
    const refused = await fetchStaged(repo, source.url, [branchRef(source.branch)], () => sourceRef(source.alias, source.branch), {
      exact: true,
    });
    if (refused[0]) throw new BrvError(refused[0].kind, `Knowledge source ${source.alias}: ${refused[0].message}`);
  } catch (error) {
    if (error instanceof BrvError && /couldn't find remote ref/i.test(error.message)) {
      throw new BrvError('not-a-brv-source', `${source.url} has no brv knowledge on branch ${source.branch} (run brv init there first).`);
    }
    throw error;
  }
}

/** Refreshes every source; a source that cannot be reached is reported, not fatal. */
export async function refreshSources(repo: GitRepository): Promise<Array<{ alias: string; commit?: string; error?: string }>> {
  const results = [];
  for (const source of await listSources(repo)) {
    try {
      await fetchSource(repo, source);
      results.push({ alias: source.alias, commit: await repo.resolve(sourceRef(source.alias, source.branch)) });
    } catch (error) {
      results.push({ alias: source.alias, error: (error as Error).message });
    }
  }
  return results;
}

async function canonicalLocation(location: string, cwd: string): Promise<string> {
  validateRemoteUrl(location);
  // URLs (scheme:// or scp-like host:path) go to git as they are; paths become absolute and real.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) || /^[^/\\]+:/.test(location)) return location;
  const absolute = path.resolve(cwd, location);
  try {
    await stat(absolute);
  } catch {
    throw new BrvError('source-not-found', `${location} does not exist.`);
  }
  return realpath(absolute);
}

function defaultAlias(url: string): string {
  const base =
    url
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .split(/[/:\\]/)
      .pop() ?? 'source';
  return base.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'source';
}

function uniqueAlias(base: string, existing: readonly Source[]): string {
  let alias = base;
  for (let n = 2; existing.some((s) => s.alias === alias); n++) alias = `${base}-${n}`;
  return alias;
}
