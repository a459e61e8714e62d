import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brvJson, git, tempDir } from './repo.js';

/** Writes (or overwrites) one topic through the real CLI's one-shot curate; returns its JSON data. */
export async function put(cwd: string, topicPath: string, body: string, options: { title?: string; tags?: string; meta?: object } = {}) {
  const file = path.join(await tempDir('brv-topic-'), 'topic.html');
  const tags = options.tags ? ` tags="${options.tags}"` : '';
  await writeFile(file, `<bv-topic path="${topicPath}" title="${options.title ?? topicPath}"${tags}>${body}</bv-topic>`);
  const args = ['curate', '--html-file', file, '--overwrite', ...(options.meta ? ['--meta', JSON.stringify(options.meta)] : [])];
  const run = await brvJson(cwd, args);
  if (!run.json?.success) throw new Error(`curate failed: ${run.stdout} ${run.stderr}`);
  return run.json.data;
}

/** A bare remote and two clones of one project, the first with brv initialized, pushed and tracked. */
export async function twoClones(remoteUrl?: (bare: string) => string) {
  const root = await tempDir('brv-sync-');
  const bare = path.join(root, 'remote.git');
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const url = remoteUrl ? remoteUrl(bare) : bare;
  const a = path.join(root, 'a');
  await git(root, 'init', '-q', '-b', 'main', a);
  await writeFile(path.join(a, 'README.md'), '# project\n');
  await git(a, 'add', '.');
  await git(a, 'commit', '-q', '-m', 'code');
  await git(a, 'remote', 'add', 'origin', url);
  await git(a, 'push', '-q', 'origin', 'main');
  return { root, bare, url, a, b: path.join(root, 'b') };
}

/** Every ref under refs/brv/ of a repository, as "oid ref" lines. */
export async function brvRefs(repo: string): Promise<string[]> {
  return (await git(repo, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/brv/')).split('\n').filter(Boolean);
}
