// The values shell completion offers (`brv __complete`, src/cli/complete.ts): topic paths, branches,
// remotes, review ids, sources from this repository's refs, agents, setting keys and kinds from
// brv's registries. Local git reads only (a few ms), never the network, never the index.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { GitProcesses } from '../git/processes.js';
import { runGit } from '../git/run.js';
import { BRANCH_PREFIX, REVIEW_PREFIX, SOURCES_PREFIX } from '../base/ref-names.js';

/** What a value names, for completion (the command table's `values`). */
export type ValueKind =
  'topic-path' | 'folder' | 'branch' | 'remote' | 'review-id' | 'agent' | 'setting-key' | 'kind' | 'source' | 'provider';

const lines = (text: string) => text.split('\n').filter(Boolean);

/** Every candidate of a kind of value (topic-path and folder: every topic path). Nothing where `cwd` is no repository. */
export async function completionValues(kind: ValueKind, cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<string[]> {
  const processes = new GitProcesses(env);
  const git = async (...args: string[]) => {
    try {
      return (await runGit(processes, args, { cwd })).stdout;
    } catch {
      return '';
    }
  };
  const refNames = async (prefix: string) =>
    lines(await git('for-each-ref', '--format=%(refname)', prefix)).map((ref) => ref.slice(prefix.length));
  const firstSegments = (names: string[]) => [...new Set(names.map((name) => name.split('/')[0]!))];
  switch (kind) {
    case 'topic-path':
    case 'folder': {
      // The brv branch of this worktree: <git-dir>/brv/HEAD, main when unset.
      const gitDir = (await git('rev-parse', '--absolute-git-dir')).trim();
      if (!gitDir) return [];
      const head = (await readFile(path.join(gitDir, 'brv', 'HEAD'), 'utf8').catch(() => '')).trim() || 'main';
      // -z: the names as stored (git quotes unusual ones otherwise); the front end judges what it can print.
      const files = (await git('ls-tree', '-r', '-z', '--name-only', `${BRANCH_PREFIX}${head}`)).split('\0').filter(Boolean);
      // A topic is stored as <path>.html; brv's own files live under dot-folders (.brv/format).
      return files.filter((f) => f.endsWith('.html') && !f.startsWith('.')).map((f) => f.slice(0, -'.html'.length));
    }
    case 'branch':
      return refNames(BRANCH_PREFIX);
    case 'remote':
      return lines(await git('remote'));
    case 'review-id':
      return firstSegments(await refNames(REVIEW_PREFIX));
    case 'source':
      return firstSegments(await refNames(SOURCES_PREFIX));
    case 'agent':
      return (await import('../setup/connectors/agents.js')).AGENTS.map((agent) => agent.id);
    case 'setting-key':
      return (await import('../settings/registry.js')).SETTINGS.map((setting) => setting.key);
    case 'kind':
      // What --kind filters on: every element but the root, which every topic has.
      return (await import('../topic/registry.js')).ELEMENTS.map((element) => element.name).filter((name) => name !== 'bv-topic');
    case 'provider': {
      const { PROVIDERS, LOCAL_SERVERS } = await import('../models/llm/catalog.js');
      return [...PROVIDERS.map((provider) => provider.id), ...Object.keys(LOCAL_SERVERS)];
    }
  }
}
