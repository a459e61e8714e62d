import { execa } from 'execa';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ENV, tempDir } from './repo.js';

async function plumb(repo: string, args: string[], input?: string | Buffer, env: Record<string, string> = {}): Promise<string> {
  const result = await execa('git', args, { cwd: repo, env: { ...ENV, ...env }, extendEnv: false, input, encoding: 'utf8' });
  return result.stdout.trim();
}

/**
 * Commits raw blobs onto a brv ref with plumbing only, as a teammate's `git push` or a crafted remote
 * would: nothing here goes through brv's validator. `files` maps tree paths to blob contents;
 * `.brv/format` is "1\n" unless given. The commit's parent is the ref's current tip, if any.
 */
export async function plantTree(
  repo: string,
  files: Record<string, string | Buffer>,
  options: { ref?: string; message?: string; parent?: boolean } = {},
): Promise<string> {
  const ref = options.ref ?? 'refs/brv/heads/main';
  const index = path.join(await tempDir('brv-plant-'), 'index');
  const env = { GIT_INDEX_FILE: index };
  try {
    for (const [file, content] of Object.entries({ '.brv/format': '1\n', ...files })) {
      const oid = await plumb(repo, ['hash-object', '-w', '--stdin'], content);
      await plumb(repo, ['update-index', '--add', '--cacheinfo', `100644,${oid},${file}`], undefined, env);
    }
    const tree = await plumb(repo, ['write-tree'], undefined, env);
    const tip = await execa('git', ['rev-parse', '--verify', '-q', ref], { cwd: repo, env: ENV, extendEnv: false, reject: false });
    const parents = options.parent !== false && tip.exitCode === 0 ? ['-p', tip.stdout.trim()] : [];
    const commit = await plumb(repo, ['commit-tree', tree, ...parents, '-m', options.message ?? 'planted with plumbing']);
    await plumb(repo, ['update-ref', ref, commit]);
    return commit;
  } finally {
    await rm(path.dirname(index), { recursive: true, force: true });
  }
}

/**
 * Many raw blobs committed at once through `git fast-import` (20,000 topics in about a second), as
 * plantTree does with plumbing: nothing goes through brv's validator. The commit's parent is the
 * ref's current tip, if any; `.brv/format` is "1\n".
 */
export async function plantBulk(
  repo: string,
  files: Iterable<[path: string, content: string]>,
  options: { ref?: string; message?: string } = {},
): Promise<string> {
  const ref = options.ref ?? 'refs/brv/heads/main';
  const tip = await execa('git', ['rev-parse', '--verify', '-q', ref], { cwd: repo, env: ENV, extendEnv: false, reject: false });
  const message = options.message ?? 'planted with fast-import';
  const parts: string[] = [
    `commit ${ref}\ncommitter Planter <planter@example.com> 1700000000 +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`,
  ];
  if (tip.exitCode === 0) parts.push(`from ${tip.stdout.trim()}\n`);
  for (const [file, content] of [['.brv/format', '1\n'] as [string, string], ...files]) {
    parts.push(`M 100644 inline ${file}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
  }
  await execa('git', ['fast-import', '--quiet', '--force'], { cwd: repo, env: ENV, extendEnv: false, input: parts.join('') });
  return plumb(repo, ['rev-parse', ref]);
}
