import test, { type ExecutionContext } from 'ava';
import { execa } from 'execa';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { brvRefs, sharedClones, succeeded } from '../helpers/knowledge.js';
import { plantTree } from '../helpers/plant.js';
import { brv, brvJson, cleanup, ENV, git, refTip } from '../helpers/repo.js';

async function plumb(repo: string, args: string[], input?: string): Promise<string> {
  return (await execa('git', args, { cwd: repo, env: ENV, extendEnv: false, input })).stdout.trim();
}

/** A commit (on top of `ref`'s tip) whose tree is exactly `entries` (mktree lines), pushed nowhere. */
async function rawCommit(repo: string, entries: string[], ref = 'refs/brv/heads/main'): Promise<string> {
  const tree = await plumb(repo, ['mktree'], entries.map((e) => `${e}\n`).join(''));
  const parent = await refTip(repo, ref);
  return plumb(repo, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', 'raw']);
}

/** Every hostile tip shape the remote's main can take, made in clone a (not pushed yet). */
async function hostileTips(a: string): Promise<Record<string, string>> {
  const blob = await plumb(a, ['hash-object', '-w', '--stdin'], '1\n');
  const topic = await plumb(a, ['hash-object', '-w', '--stdin'], '<bv-topic path="x/y" title="y"><bv-rule id="a">z</bv-rule></bv-topic>');
  const sub = await plumb(a, ['mktree'], `100644 blob ${blob}\tx\n`);
  const brvDir = (formatEntry: string) => plumb(a, ['mktree'], formatEntry ? `${formatEntry}\n` : '');
  const format99 = await plantTree(a, { '.brv/format': '99\n', 'x/y.html': 'whatever' }, { ref: 'refs/test/format99' });
  const noFormatTree = await plumb(a, ['mktree'], `100644 blob ${topic}\ty.html\n`);
  const noFormat = await rawCommit(a, [`040000 tree ${noFormatTree}\tx`]);
  const treeFormat = await rawCommit(a, [`040000 tree ${await brvDir(`040000 tree ${sub}\tformat`)}\t.brv`]);
  const garbage = await plantTree(a, { '.brv/format': '\u001b]0;PWNED\u0007\n' }, { ref: 'refs/test/garbage' });
  return { format99, noFormat, treeFormat, garbage, blob };
}

async function refusedEverywhere(
  t: ExecutionContext,
  env: Awaited<ReturnType<typeof sharedClones>>,
  name: string,
  tip: string,
  all: boolean,
) {
  const { a, b } = env;
  const good = await refTip(b);
  // Plain git, as an unvalidated push would: the remote's brv main is now hostile.
  await git(a, 'push', '-q', '--force', 'origin', `${tip}:refs/brv/heads/main`);
  const trackingBefore = await refTip(b, 'refs/brv/remotes/origin/heads/main');
  const expected = name === 'noFormat' || name === 'blob' ? 'not-a-brv-commit' : 'unsupported-format';

  for (const args of all ? [['vc', 'pull'], ['sync']] : [['vc', 'pull']]) {
    const run = await brvJson(b, args);
    t.is(run.exitCode, 1, `${name}: ${args.join(' ')} ${run.stdout}`);
    t.is(run.json?.data.error.kind, expected, `${name}: ${args.join(' ')}`);
    t.regex(run.json?.data.error.message ?? '', /Nothing was changed/);
    t.is(await refTip(b), good, `${name}: ${args.join(' ')} left main alone`);
    t.is(await refTip(b, 'refs/brv/remotes/origin/heads/main'), trackingBefore, `${name}: tracking ref did not move`);
  }
  if (all) {
    const fetched = succeeded(await brvJson(b, ['vc', 'fetch']));
    t.deepEqual(
      fetched.refused.map((r: { ref: string; kind: string }) => [r.ref, r.kind]),
      [['refs/brv/heads/main', expected]],
    );
  }
  t.false(
    (await brvRefs(b)).some((r) => r.includes('refs/brv/incoming/')),
    'no staging refs left',
  );

  // A plain `git fetch` (brv init --track) moves the tracking ref without brv: merge and the hooks refuse.
  await git(b, 'fetch', '-q', 'origin');
  t.is(await refTip(b, 'refs/brv/remotes/origin/heads/main'), tip);
  const merge = await brvJson(b, ['vc', 'merge', 'origin/main']);
  t.is(merge.json?.data.error.kind, expected, `${name}: vc merge`);
  if (all) {
    for (const hook of [
      ['post-merge', '0'],
      ['post-checkout', good!, good!, '1'],
    ]) {
      const run = await brv(b, ['hooks', 'run', ...hook]);
      t.is(run.exitCode, 0, 'a hook never fails git');
      t.regex(run.stdout + run.stderr, /format 99/, hook[0]);
    }
  }
  t.is(await refTip(b), good, `${name}: merge and hook left main alone`);
  // Every command keeps working in b.
  t.is(succeeded(await brvJson(b, ['ls'])).topics.length, 1, name);
  t.is(succeeded(await brvJson(b, ['vc', 'status'])).branch, 'main');

  if (all) {
    // A branch only on the remote, at a hostile tip: checkout refuses and stays where it was.
    await git(a, 'push', '-q', '--force', 'origin', `${tip}:refs/brv/heads/evil`);
    await git(b, 'fetch', '-q', 'origin');
    const checkout = await brvJson(b, ['vc', 'checkout', 'evil']);
    t.is(checkout.json?.data.error.kind, expected, `${name}: checkout`);
    t.is(await refTip(b, 'refs/brv/heads/evil'), undefined);
    t.is(succeeded(await brvJson(b, ['vc', 'status'])).branch, 'main');
  }
}

test('a remote tip at brv data format 99 is refused by pull, sync, merge, checkout and the hooks; no local ref moves', async (t) => {
  const env = await sharedClones();
  t.teardown(() => cleanup(env.root));
  const tips = await hostileTips(env.a);
  await refusedEverywhere(t, env, 'format99', tips.format99!, true);
});

test('remote tips that are not brv commits (a blob, no .brv/format, a tree or garbage there) are refused', async (t) => {
  const env = await sharedClones();
  t.teardown(() => cleanup(env.root));
  const tips = await hostileTips(env.a);
  const good = (await refTip(env.b))!;
  for (const name of ['noFormat', 'treeFormat', 'garbage', 'blob']) {
    await refusedEverywhere(t, env, name, tips[name]!, false);
    await git(env.b, 'update-ref', 'refs/brv/remotes/origin/heads/main', good);
  }
});

test('vc clone of a remote whose brv tip is format 99: the code arrives, no brv branch is made at the bad tip', async (t) => {
  const { root, a, bare } = await sharedClones();
  t.teardown(() => cleanup(root));
  const tips = await hostileTips(a);
  await git(a, 'push', '-q', '--force', 'origin', `${tips.format99}:refs/brv/heads/main`);
  const clone = succeeded(await brvJson(root, ['vc', 'clone', bare, 'c']));
  t.deepEqual(clone.branches, []);
  t.is(clone.refused[0].kind, 'unsupported-format');
  t.is(await refTip(path.join(root, 'c')), undefined);
  t.is(await readFile(path.join(root, 'c', 'README.md'), 'utf8'), '# project\n');
});

test('a knowledge source whose tip brv cannot read is refused by source add and refresh; the source ref keeps its value', async (t) => {
  const { root, a, b } = await sharedClones();
  t.teardown(() => cleanup(root));
  const other = path.join(root, 'other');
  await git(root, 'clone', '-q', a, other);
  await git(other, 'fetch', '-q', 'origin', '+refs/brv/heads/*:refs/brv/heads/*');
  const good = await refTip(other);
  await plantTree(other, { '.brv/format': '99\n' });
  const added = await brvJson(b, ['source', 'add', other, '--alias', 'other']);
  t.is(added.json?.data.error.kind, 'unsupported-format', added.stdout);
  t.deepEqual(succeeded(await brvJson(b, ['source', 'list'])).sources ?? [], []);

  await git(other, 'update-ref', 'refs/brv/heads/main', good!);
  succeeded(await brvJson(b, ['source', 'add', other, '--alias', 'other']));
  t.is(await refTip(b, 'refs/brv/sources/other/main'), good);
  await plantTree(other, { '.brv/format': '99\n' });
  const refreshed = succeeded(await brvJson(b, ['source', 'refresh']));
  t.regex(JSON.stringify(refreshed), /unsupported-format|format 99/);
  t.is(await refTip(b, 'refs/brv/sources/other/main'), good);
  t.is(succeeded(await brvJson(b, ['ls'])).topics.length, 1);
  t.false((await brvRefs(b)).some((r) => r.includes('refs/brv/incoming/')));
});
