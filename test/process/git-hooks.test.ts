import test from 'ava';
import { execa } from 'execa';
import { chmod, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, brv, brvJson, git, makeRepo, refTip, tempDir } from '../helpers/repo.js';

// The hooks run as git runs them: real `git commit`/`merge`/`checkout`/`pull` with `brv` on PATH
// as a small wrapper script (a spy that logs each start of Node, or a broken brv).

interface Bin {
  env: Record<string, string>;
  /** Every `brv` start, one line of arguments each. */
  starts(): Promise<string[]>;
}

async function brvOnPath(kind: 'spy' | 'broken' | 'hung' = 'spy'): Promise<Bin> {
  const dir = await tempDir('brv-bin-');
  const log = path.join(dir, 'starts.log');
  const script =
    kind === 'spy'
      ? `#!/bin/sh\necho "$*" >> "${log}"\nexec node "${CLI}" "$@"\n`
      : kind === 'hung'
        ? `#!/bin/sh\necho "$*" >> "${log}"\nexec sleep 120\n`
        : `#!/bin/sh\necho "$*" >> "${log}"\necho "brv: something broke" >&2\nexit 1\n`;
  await writeFile(path.join(dir, 'brv'), script);
  await chmod(path.join(dir, 'brv'), 0o755);
  return {
    env: { ...ENV, PATH: `${dir}${path.delimiter}${ENV.PATH}` },
    starts: async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean),
  };
}

function run(cwd: string, bin: Bin, args: string[], extra: Record<string, string> = {}) {
  return execa('git', args, { cwd, env: { ...bin.env, ...extra }, extendEnv: false, reject: false });
}

/** A one-shot curate of a topic citing `files` in <bv-files>. */
async function citeTopic(repo: string, topicPath: string, files: string[]): Promise<void> {
  const file = path.join(await tempDir(), 'topic.html');
  const items = files.map((f) => `<li><code>${f}</code></li>`).join('');
  await writeFile(
    file,
    `<bv-topic path="${topicPath}" title="About ${topicPath}"><bv-files>${items}</bv-files><bv-rule severity="must">Keep it so.</bv-rule></bv-topic>`,
  );
  const result = await brvJson(repo, ['curate', '--html-file', file]);
  if (result.json?.data.status !== 'done') throw new Error(`curate failed: ${result.stdout} ${result.stderr}`);
}

async function codeRepo(): Promise<string> {
  const repo = await makeRepo();
  await mkdir(path.join(repo, 'src'), { recursive: true });
  await writeFile(path.join(repo, 'src/app.ts'), 'export {};\n');
  await git(repo, 'add', '.');
  await git(repo, 'commit', '-q', '-m', 'app');
  return repo;
}

const WARNING =
  /brv: staged changes touch files cited by these topics; they may be stale:\n {2}code\/app \(src\/app\.ts\)\nUpdate them with brv curate, or ignore\./;

test('install, status and uninstall in a repository without hooks; help and usage errors', async (t) => {
  const repo = await makeRepo();
  const bin = await brvOnPath();
  const hooksDir = path.join(repo, '.git', 'hooks');
  const install = await brvJson(repo, ['hooks', 'install'], { env: bin.env });
  t.is(install.exitCode, 0);
  t.like(install.json, { command: 'hooks install', success: true, data: { hooksDirectory: hooksDir, hooksPath: null } });
  // No remote: what to run so that a plain git pull brings knowledge (test/cli/sync-setup.test.ts).
  t.deepEqual(install.json!.data.notes, [
    'No git remote yet: brv vc remote add origin <url> adds one that a plain git pull brings knowledge from.',
  ]);
  t.deepEqual(
    install.json!.data.hooks.map((h: any) => [h.name, h.action, h.path]),
    ['post-merge', 'post-checkout', 'pre-commit'].map((n) => [n, 'created', path.join(hooksDir, n)]),
  );
  for (const name of ['post-merge', 'post-checkout', 'pre-commit']) t.is((await stat(path.join(hooksDir, name))).mode & 0o111, 0o111);

  const status = await brvJson(repo, ['hooks', 'status'], { env: bin.env });
  t.like(status.json!.data, { hooksDirectory: hooksDir, hooksPath: null, hooksPathSet: false, preCommit: 'warn', brvOnPath: true });
  t.deepEqual(
    status.json!.data.hooks.map((h: any) => [h.name, h.state, h.executable]),
    [
      ['post-merge', 'installed', true],
      ['post-checkout', 'installed', true],
      ['pre-commit', 'installed', true],
    ],
  );
  t.regex((await brv(repo, ['hooks', 'status'])).stdout, /pre-commit\s+installed/);
  t.like((await brvJson(repo, ['hooks', 'install', 'pre-commit'])).json!.data, { hooks: [{ name: 'pre-commit', action: 'unchanged' }] });

  const uninstall = await brvJson(repo, ['hooks', 'uninstall'], { env: bin.env });
  t.deepEqual(
    uninstall.json!.data.hooks.map((h: any) => h.action),
    ['deleted', 'deleted', 'deleted'],
  );
  t.deepEqual(
    (await readdir(hooksDir)).filter((f) => !f.endsWith('.sample')),
    [],
  );
  t.deepEqual(
    (await brvJson(repo, ['hooks', 'status'])).json!.data.hooks.map((h: any) => h.state),
    ['not-installed', 'not-installed', 'not-installed'],
  );

  t.is((await brv(repo, ['hooks'])).exitCode, 2);
  const bogus = await brvJson(repo, ['hooks', 'install', 'pre-push']);
  t.is(bogus.exitCode, 2);
  t.like(bogus.json, { success: false, data: { error: { kind: 'usage' } } });
  t.regex((await brv(repo, ['--help'])).stdout, /brv hooks/);
  const help = await brv(repo, ['hooks', '--help']);
  for (const sub of ['install', 'uninstall', 'status']) t.regex(help.stdout, new RegExp(`brv hooks ${sub}`));
  t.notRegex(help.stdout, /hooks run/);
  t.regex((await brv(repo, ['hooks', 'install', '--help'])).stdout, /BRV_SKIP_HOOKS=1/);
  t.regex((await brv(repo, ['hooks', 'uninstall', '--help'])).stdout, /kept/);
  t.regex((await brv(repo, ['hooks', 'status', '--help'])).stdout, /outdated/);
});

test('an existing shell hook keeps its content and its exit status; uninstall restores its bytes', async (t) => {
  const repo = await makeRepo();
  const bin = await brvOnPath();
  const file = path.join(repo, '.git', 'hooks', 'pre-commit');
  // no final newline, and the last command's status decides the commit
  const original = '#!/bin/bash\n# caf\u00e9\necho "user hook ran" >&2\ntest ! -f .refuse';
  await writeFile(file, original);
  await chmod(file, 0o755);

  const install = await brvJson(repo, ['hooks', 'install'], { env: bin.env });
  t.like(install.json!.data.hooks[2], { name: 'pre-commit', action: 'added' });
  const installed = await readFile(file, 'utf8');
  t.true(installed.startsWith(`${original}\n# >>> brv hooks >>>\n`));

  await writeFile(path.join(repo, 'README.md'), 'one\n');
  const ok = await run(repo, bin, ['commit', '-q', '-am', 'one']);
  t.is(ok.exitCode, 0, ok.stderr);
  t.regex(ok.stderr, /user hook ran/);
  await writeFile(path.join(repo, '.refuse'), '');
  await writeFile(path.join(repo, 'README.md'), 'two\n');
  const refused = await run(repo, bin, ['commit', '-q', '-am', 'two']);
  t.not(refused.exitCode, 0, 'the user hook still refuses the commit after brv was added');

  t.like((await brvJson(repo, ['hooks', 'install', 'pre-commit'])).json!.data.hooks[0], { action: 'unchanged' });
  await writeFile(file, installed.replace('__brv_rc=$?', '__brv_rc=$?\n: older brv'));
  t.like((await brvJson(repo, ['hooks', 'status'])).json!.data.hooks[2], { state: 'outdated' });
  t.like((await brvJson(repo, ['hooks', 'install', 'pre-commit'])).json!.data.hooks[0], { action: 'updated' });
  t.is(await readFile(file, 'utf8'), installed);

  t.like((await brvJson(repo, ['hooks', 'uninstall', 'pre-commit'])).json!.data.hooks[0], { action: 'removed' });
  t.is(await readFile(file, 'utf8'), original);
});

test('a hook in another language is not touched; brv reports the line that chains it', async (t) => {
  const repo = await makeRepo();
  const file = path.join(repo, '.git', 'hooks', 'pre-commit');
  const original = "#!/usr/bin/env node\nprocess.stderr.write('node hook\\n');\n";
  await writeFile(file, original, { mode: 0o755 });
  const install = await brvJson(repo, ['hooks', 'install']);
  t.like(install.json!.data.hooks[2], { name: 'pre-commit', action: 'skipped', chain: 'brv hooks run pre-commit' });
  t.regex(install.json!.data.hooks[2].reason, /not a shell script \(node\)/);
  t.is(await readFile(file, 'utf8'), original);
  t.like((await brvJson(repo, ['hooks', 'status'])).json!.data.hooks[2], { state: 'foreign', interpreter: 'node' });
  t.regex((await brv(repo, ['hooks', 'install', 'pre-commit'])).stdout, /to chain brv, call from it: brv hooks run pre-commit/);
  t.like((await brvJson(repo, ['hooks', 'uninstall'])).json!.data.hooks[2], { action: 'not-installed' });
  t.is(await readFile(file, 'utf8'), original);
});

test('core.hooksPath (husky style): brv installs where git runs hooks', async (t) => {
  const repo = await makeRepo();
  const bin = await brvOnPath();
  await git(repo, 'config', 'core.hooksPath', '.husky');
  await mkdir(path.join(repo, '.husky'));
  const husky = '#!/usr/bin/env sh\necho "husky hook ran" >&2\n';
  await writeFile(path.join(repo, '.husky', 'pre-commit'), husky, { mode: 0o755 });

  const install = await brvJson(path.join(repo, 'src'), ['hooks', 'install'], { env: bin.env });
  t.like(install.json!.data, { hooksDirectory: path.join(repo, '.husky'), hooksPath: '.husky' });
  t.deepEqual(
    install.json!.data.hooks.map((h: any) => h.action),
    ['created', 'created', 'added'],
  );
  t.true((await readFile(path.join(repo, '.husky', 'pre-commit'), 'utf8')).startsWith(husky));
  t.deepEqual(
    (await readdir(path.join(repo, '.git', 'hooks'))).filter((f) => !f.endsWith('.sample')),
    [],
  );
  t.like((await brvJson(repo, ['hooks', 'status'])).json!.data, { hooksPathSet: true, hooksPath: '.husky' });
  t.regex((await brv(repo, ['hooks', 'status'])).stdout, /core\.hooksPath = \.husky/);

  await writeFile(path.join(repo, 'README.md'), 'changed\n');
  const commit = await run(repo, bin, ['commit', '-q', '-am', 'through husky']);
  t.is(commit.exitCode, 0);
  t.regex(commit.stderr, /husky hook ran/);
});

test('pre-commit names the topics citing staged files, then answers from the cache; block mode refuses', async (t) => {
  const repo = await codeRepo();
  const bin = await brvOnPath();
  await citeTopic(repo, 'code/app', ['src/app.ts']);
  await citeTopic(repo, 'docs/readme', ['README.md']);
  await brvJson(repo, ['hooks', 'install'], { env: bin.env });

  await writeFile(path.join(repo, 'src/app.ts'), 'export const a = 1;\n');
  await git(repo, 'add', 'src/app.ts');
  const head = await git(repo, 'rev-parse', 'HEAD');
  const first = await run(repo, bin, ['commit', '-q', '-m', 'change app']);
  t.is(first.exitCode, 0, first.stderr);
  t.regex(first.stderr, WARNING);
  t.notRegex(first.stderr, /docs\/readme/);
  t.not(await git(repo, 'rev-parse', 'HEAD'), head);
  t.deepEqual(await bin.starts(), ['hooks run pre-commit --cache-only']);
  const tree = await git(repo, 'rev-parse', 'refs/brv/heads/main^{tree}');
  const cache = await readFile(path.join(repo, '.git', 'brv', 'cache', 'cited', tree), 'utf8');
  t.is(cache, '# brv cited-files v2\nREADME.md\tdocs/readme\nsrc/app.ts\tcode/app\n# end 2\n');

  // `git commit -a` commits from a temporary index: its staged files count
  await writeFile(path.join(repo, 'src/app.ts'), 'export const a = 2;\n');
  const second = await run(repo, bin, ['commit', '-q', '-am', 'change app again']);
  t.is(second.exitCode, 0);
  t.regex(second.stderr, WARNING);
  t.is((await bin.starts()).length, 1, 'the cache answered: Node did not start');

  await writeFile(path.join(repo, 'other.txt'), 'x\n');
  await git(repo, 'add', 'other.txt');
  const unrelated = await run(repo, bin, ['commit', '-q', '-m', 'unrelated']);
  t.is(unrelated.exitCode, 0);
  t.is(unrelated.stderr, '');

  await git(repo, 'config', 'brv.hooks.preCommit', 'block');
  await writeFile(path.join(repo, 'src/app.ts'), 'export const a = 3;\n');
  await git(repo, 'add', 'src/app.ts');
  const before = await git(repo, 'rev-parse', 'HEAD');
  const blocked = await run(repo, bin, ['commit', '-q', '-m', 'blocked']);
  t.is(blocked.exitCode, 1);
  t.regex(blocked.stderr, /code\/app \(src\/app\.ts\)\nbrv: commit refused/);
  t.is(await git(repo, 'rev-parse', 'HEAD'), before);

  // the Node path (chained from hooks brv does not edit) prints exactly what the shell block printed
  const chained = await brv(repo, ['hooks', 'run', 'pre-commit']);
  t.is(chained.exitCode, 1);
  t.is(chained.stderr, blocked.stderr.trimEnd());
  const json = await brvJson(repo, ['hooks', 'run', 'pre-commit']);
  t.like(json.json, { command: 'hooks run', success: true, data: { hook: 'pre-commit', mode: 'block', blocked: true } });
  t.deepEqual(json.json!.data.stale, [{ topic: 'code/app', files: ['src/app.ts'] }]);

  const skipped = await run(repo, bin, ['commit', '-q', '-m', 'skip'], { BRV_SKIP_HOOKS: '1' });
  t.is(skipped.exitCode, 0);
  t.is(skipped.stderr, '');
});

test('BRV_SKIP_HOOKS=1 and a broken brv never fail or slow the git command', async (t) => {
  const repo = await codeRepo();
  const spy = await brvOnPath('spy');
  const broken = await brvOnPath('broken');
  await citeTopic(repo, 'code/app', ['src/app.ts']);
  await brvJson(repo, ['hooks', 'install']);
  // a remote-tracking brv branch the local one does not contain: post-merge/post-checkout would start brv
  await git(repo, 'update-ref', 'refs/brv/remotes/origin/heads/main', 'HEAD');

  for (const [bin, extra] of [
    [spy, { BRV_SKIP_HOOKS: '1' }],
    [broken, {}],
  ] as const) {
    await writeFile(path.join(repo, 'src/app.ts'), `// ${Math.random()}\n`);
    t.is((await run(repo, bin, ['commit', '-q', '-am', 'commit'], extra)).exitCode, 0);
    const checkout = await run(repo, bin, ['checkout', '-q', '-b', `topic-${bin === spy ? 'a' : 'b'}`], extra);
    t.is(checkout.exitCode, 0, checkout.stderr);
    await writeFile(path.join(repo, 'side.txt'), `${Math.random()}\n`);
    await run(repo, bin, ['add', 'side.txt'], extra);
    await run(repo, bin, ['commit', '-q', '-m', 'side'], extra);
    t.is((await run(repo, bin, ['checkout', '-q', 'main'], extra)).exitCode, 0);
    const merge = await run(repo, bin, ['merge', '-q', '--no-ff', '-m', 'merge', `topic-${bin === spy ? 'a' : 'b'}`], extra);
    t.is(merge.exitCode, 0, merge.stderr);
  }
  t.deepEqual(await spy.starts(), [], 'BRV_SKIP_HOOKS=1: brv never started');
  t.deepEqual([...new Set((await broken.starts()).map((line) => line.split(' ').slice(0, 3).join(' ')))].sort(), [
    'hooks run post-checkout',
    'hooks run post-merge',
    'hooks run pre-commit',
  ]);

  // block mode must not turn a broken brv into a refused commit
  await git(repo, 'config', 'brv.hooks.preCommit', 'block');
  await writeFile(path.join(repo, 'src/app.ts'), 'export {};\n// blocked?\n');
  t.is((await run(repo, broken, ['commit', '-q', '-am', 'still fine'])).exitCode, 0);
});

test('a hung brv never holds git: each hook gives up after BRV_HOOK_TIMEOUT, with timeout(1) and without it', async (t) => {
  const repo = await codeRepo();
  await citeTopic(repo, 'code/app', ['src/app.ts']);
  await brvJson(repo, ['hooks', 'install']);
  await git(repo, 'update-ref', 'refs/brv/remotes/origin/heads/main', 'HEAD');
  const hung = await brvOnPath('hung');
  // A PATH without timeout(1) (as on macOS): only what the hooks and git need, and the hung brv.
  const bare = await tempDir('brv-bare-path-');
  for (const tool of ['git', 'awk', 'tr', 'sleep', 'sh']) {
    const found = (await execa('sh', ['-c', `command -v ${tool}`])).stdout.trim();
    await symlink(found, path.join(bare, tool));
  }
  await symlink(path.join(hung.env.PATH!.split(path.delimiter)[0]!, 'brv'), path.join(bare, 'brv'));
  const limit = { BRV_HOOK_TIMEOUT: '1' };
  for (const [label, extra] of [
    ['timeout(1)', limit],
    ['watchdog', { ...limit, PATH: bare }],
  ] as const) {
    const timed = async (args: string[]) => {
      const started = Date.now();
      const result = await execa('git', args, {
        cwd: repo,
        env: { ...hung.env, ...extra },
        extendEnv: false,
        reject: false,
        timeout: 60_000,
      });
      t.false(result.timedOut, `${label}: git ${args.join(' ')} hung`);
      t.is(result.exitCode, 0, `${label}: git ${args.join(' ')}: ${result.stderr}`);
      t.true(Date.now() - started < 15_000, `${label}: git ${args.join(' ')} took ${Date.now() - started} ms`);
      t.regex(result.stderr, /brv: gave up on brv after 1s; the git command goes on/, `${label}: git ${args.join(' ')}`);
    };
    await writeFile(path.join(repo, 'src/app.ts'), `// ${label}\n`);
    await timed(['commit', '-q', '-am', `commit ${label}`]); // pre-commit builds the cited-files cache
    await timed(['checkout', '-q', '-b', `side-${label.length}`]); // post-checkout integrates knowledge
    await writeFile(path.join(repo, `side-${label.length}.txt`), 'x\n');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '-q', '--no-verify', '-m', 'side');
    await git(repo, 'checkout', '-q', 'main');
    await timed(['merge', '-q', '--no-ff', '-m', 'merge', `side-${label.length}`]); // post-merge
  }
  t.is((await hung.starts()).length, 6);
});

test('post-checkout brings fetched knowledge into the brv branch, only for branch checkouts', async (t) => {
  const repo = await codeRepo();
  const spy = await brvOnPath();
  await citeTopic(repo, 'a/one', ['src/app.ts']);
  const behind = await refTip(repo);
  await citeTopic(repo, 'a/two', ['src/app.ts']);
  const ahead = await refTip(repo);
  await git(repo, 'remote', 'add', 'origin', repo);
  await git(repo, 'update-ref', 'refs/brv/remotes/origin/heads/main', ahead!);
  await git(repo, 'update-ref', 'refs/brv/heads/main', behind!);
  await brvJson(repo, ['hooks', 'install', 'post-checkout']);

  t.is((await run(repo, spy, ['checkout', '-q', 'HEAD', '--', 'src/app.ts'])).exitCode, 0);
  t.deepEqual(await spy.starts(), [], 'a file checkout does not start brv');
  const checkout = await run(repo, spy, ['checkout', '-q', '-b', 'feature']);
  t.is(checkout.exitCode, 0);
  t.is(await refTip(repo), ahead);
  t.regex(checkout.stderr, /brv branch main now includes fetched knowledge/);
  t.is((await spy.starts()).length, 1);
  t.is((await run(repo, spy, ['checkout', '-q', 'main'])).exitCode, 0);
  t.is((await spy.starts()).length, 1, 'nothing left to integrate: brv did not start');
});

test('post-merge integrates knowledge that git pull fetched', async (t) => {
  const upstream = await codeRepo();
  const remote = path.join(await tempDir(), 'remote.git');
  await git(upstream, 'clone', '-q', '--bare', upstream, remote);
  await git(upstream, 'remote', 'add', 'origin', remote);
  const clone = path.join(await tempDir(), 'clone');
  await git(upstream, 'clone', '-q', remote, clone);
  const spy = await brvOnPath();
  await brvJson(clone, ['hooks', 'install'], { env: spy.env });
  await git(clone, 'config', '--add', 'remote.origin.fetch', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');

  await citeTopic(upstream, 'team/decision', ['src/app.ts']);
  await git(upstream, 'push', '-q', 'origin', 'refs/brv/heads/main:refs/brv/heads/main');
  await writeFile(path.join(upstream, 'src/app.ts'), 'export const v = 2;\n');
  await git(upstream, 'commit', '-q', '-am', 'v2');
  await git(upstream, 'push', '-q', 'origin', 'main');

  const pull = await run(clone, spy, ['pull', '-q', '--no-rebase']);
  t.is(pull.exitCode, 0, pull.stderr);
  t.is(await refTip(clone), await refTip(upstream));
  t.regex(pull.stderr, /now includes fetched knowledge/);
  t.deepEqual(await spy.starts(), ['hooks run post-merge 0']);
});
