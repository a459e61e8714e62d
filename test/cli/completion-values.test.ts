import test from 'ava';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Bash, shellWord } from '../helpers/bash.js';
import { plantTree } from '../helpers/plant.js';
import { CLI, ENV, brv, git, makeRepo, tempDir } from '../helpers/repo.js';

// Issue 35 §12: bash completes values — topic paths, branches, agents, setting keys, --kind, review
// ids, providers — through the real completion function `brv completion bash` defines, run in one
// bash for this file (so the tests are serial) against a temporary repository; and a name a push
// planted never runs in it.

const TOPIC = (p: string) => `<bv-topic path="${p}" title="T"><bv-rule>R.</bv-rule></bv-topic>`;
const PLANTED = 'notes/$(touch PWNED)';

const setup = (async () => {
  const repo = await makeRepo();
  const run = await brv(repo, ['init']);
  if (run.exitCode !== 0) throw new Error(run.stderr);
  await plantTree(
    repo,
    Object.fromEntries(['security/auth', 'security/web/csrf', 'testing/flaky', PLANTED].map((p) => [`${p}.html`, TOPIC(p)])),
  );
  await git(repo, 'branch', '-q', 'code-only');
  const tip = (await git(repo, 'rev-parse', 'refs/brv/heads/main')).trim();
  await git(repo, 'update-ref', 'refs/brv/heads/experiment', tip);
  await git(repo, 'update-ref', 'refs/brv/review/0a1b2c3d4e5f', tip);
  await git(repo, 'update-ref', 'refs/brv/review/`touch${IFS}PWNED`', tip);
  const bin = await tempDir();
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  const bash = new Bash({ ...ENV, PATH: `${bin}:${process.env.PATH}` }, repo);
  await bash.run('source <(brv completion bash)');
  return { repo, bash };
})();

test.after.always(async () => (await setup).bash.close());

/** COMPREPLY after the completion function ran on `words` (the last one being typed). */
async function complete(words: string[], fn = '_brv_completions'): Promise<string[]> {
  const { bash } = await setup;
  const out = await bash.run(
    `COMP_WORDS=(${words.map(shellWord).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); ${fn}; printf '%s\\n' "\${COMPREPLY[@]}"`,
  );
  return out.split('\n').filter(Boolean);
}

test.serial('topic paths folder by folder, branches for revisions, agents, setting keys, review ids, providers', async (t) => {
  t.deepEqual(await complete(['brv', 'read', '']), ['notes/', 'security/', 'testing/']);
  t.deepEqual(await complete(['brv', 'read', 'security/']), ['security/auth', 'security/web/']);
  t.deepEqual(await complete(['brv', 'rm', 'te']), ['testing/']);
  t.deepEqual(await complete(['brv', 'vc', 'checkout', '']), ['experiment', 'main']);
  t.deepEqual(await complete(['brv', 'read', 'security/auth', '--at', 'ex']), ['experiment']);
  t.deepEqual(await complete(['brv', 'vc', 'show', '']), ['experiment', 'main']);
  t.deepEqual(await complete(['brv', 'connectors', 'install', 'claude-c']), ['claude-code']);
  t.deepEqual(await complete(['brv', 'settings', 'set', 'review.']), ['review.enabled', 'review.gate']);
  t.true((await complete(['brv', 'review', 'approve', ''])).includes('0a1b2c3d4e5f'));
  t.deepEqual(await complete(['brv', 'providers', 'connect', 'anth']), ['anthropic']);
  t.deepEqual(await complete(['git', 'brv', 'vc', 'merge', 'exp'], '_git_brv'), ['experiment']);
});

test.serial('--kind completes the names it takes, as a separate word, after = (bash splits there) and for each further kind', async (t) => {
  t.deepEqual(await complete(['brv', 'query', 'x', '--kind', 'ru']), ['rule']);
  t.deepEqual(await complete(['brv', 'query', 'x', '--kind', 'bv-ru']), ['bv-rule']);
  t.deepEqual(await complete(['brv', 'query', 'x', '--kind', '=', 'ru']), ['rule']);
  const all = await complete(['brv', 'search', 'x', '--kind', '=']);
  t.true(all.includes('decision') && all.includes('fact'), all.join(' '));
  t.false(all.includes('topic'), 'every topic has bv-topic: no filter');
  t.deepEqual(await complete(['brv', 'query', 'x', '--kind', 'rule', 'deci']), ['decision']);
  t.deepEqual(await complete(['brv', 'status', '--format', '=', 'j']), ['json']);
});

test.serial('a name planted by a push is offered quoted and never runs in the shell', async (t) => {
  const { repo, bash } = await setup;
  t.deepEqual(await complete(['brv', 'read', 'notes/']), ['notes/\\$\\(touch\\ PWNED\\)']);
  // Read back as the shell reads the command line: the name as stored.
  t.is(await bash.run('eval "words=(${COMPREPLY[0]})"; printf %s "${words[0]}"'), PLANTED);
  const reviews = await complete(['brv', 'review', 'show', '']);
  t.is(reviews.length, 2, reviews.join(' '));
  t.is(await bash.run('eval "words=(${COMPREPLY[1]})"; printf %s "${words[0]}"'), '`touch${IFS}PWNED`');
  t.false(existsSync(path.join(repo, 'PWNED')), 'a completion ran a command substitution');
});
