import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brvJson, curateTopic, git, makeRepo, reply, tempDir, type BrvRun } from './repo.js';

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

/** A small rule section, for topics written in tests. */
export const rule = (text: string, id = 'r1') => `<bv-rule id="${id}">${text}</bv-rule>`;

/** The JSON data of a brv run that must have succeeded; throws with its output otherwise. */
export function succeeded(run: BrvRun) {
  if (run.exitCode !== 0 || !run.json?.success) throw new Error(`brv failed (${run.exitCode}): ${run.stdout} ${run.stderr}`);
  return run.json.data;
}

/** twoClones, with knowledge: a has brv initialized (tracked), one topic, pushed; b is a brv clone of it. */
export async function sharedClones(remoteUrl?: (bare: string) => string) {
  const env = await twoClones(remoteUrl);
  succeeded(await brvJson(env.a, ['init', '--track', 'origin']));
  await put(env.a, 'security/auth', rule('Use RS256.'));
  succeeded(await brvJson(env.a, ['vc', 'push', '-u']));
  succeeded(await brvJson(env.root, ['vc', 'clone', env.url, 'b']));
  return env;
}

const zebraTopic = (topicPath: string, title: string, body: string) =>
  `<bv-topic path="${topicPath}" title="${title}"><bv-rule id="r1">${body}</bv-rule></bv-topic>`;

/** Three topics (blob path → HTML) to plant; "zebras" matches all of them. */
export const ZEBRA_TOPICS = {
  'a/one.html': zebraTopic('a/one', 'Zebra crossings', 'Zebras cross at the lights.'),
  'b/two.html': zebraTopic('b/two', 'Zebra stripes', 'Zebras have stripes, zebras have manes.'),
  'c/three.html': zebraTopic('c/three', 'Horses', 'Horses are not zebras, though zebras are horses of a kind.'),
};

/**
 * A repository with three topics curated through the CLI: security/cookies (HttpOnly cookies),
 * security/auth (RS256), ops/deploy (blue-green); with `deployReviewed`, ops/deploy is curated with
 * impact high, so a review of it is pending.
 */
export async function threeTopics(options: { deployReviewed?: boolean } = {}): Promise<string> {
  const repo = await makeRepo();
  const must = (text: string) => `<bv-rule severity="must">${text}</bv-rule>`;
  await curateTopic(repo, reply('security/cookies', 'Session cookies', must('Session tokens live in HttpOnly cookies.')));
  await curateTopic(repo, reply('security/auth', 'Auth tokens', must('Sign session tokens with RS256.')));
  const review = options.deployReviewed ? { impact: 'high', reason: 'new deploy rule' } : undefined;
  await curateTopic(repo, reply('ops/deploy', 'Deploys', must('Deploy with blue-green switches.'), review));
  return repo;
}
