import test from 'ava';
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Bash, shellWord } from '../helpers/bash.js';
import { plantTree } from '../helpers/plant.js';
import { CLI, ENV, ROOT, brv, brvJson, cleanup, makeRepo, tempDir } from '../helpers/repo.js';

// A git tool's manners (issue 11 §5), through the real CLI.

const TOPIC = (path: string, title: string, rule: string) =>
  `<bv-topic path="${path}" title="${title}"><bv-rule>${rule}</bv-rule></bv-topic>`;

test('brv alone prints its help and exits 0', async (t) => {
  const dir = await tempDir();
  const run = await brv(dir, []);
  t.is(run.exitCode, 0);
  t.regex(run.stdout, /brv <command> \[options\]/);
  t.regex(run.stdout, /brv query <question\.\.>/);
  t.is(run.stderr, '');
});

test('-- ends options: brv query -- "-Werror flag" searches for that text, on the fast path and through yargs', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await brv(repo, ['init']);
  const write = await brv(repo, ['curate', '--html-file', '-', '--meta', '{"impact":"low"}'], {
    input: TOPIC('build/flags', 'Compiler flags', 'Build with -Werror; warnings are errors.'),
  });
  t.is(write.exitCode, 0, write.stderr);
  // Fast path (plain line) and yargs (an array option sends it there).
  for (const args of [
    ['query', '--format', 'json', '--', '-Werror flag'],
    ['query', '--format', 'json', '--scope', 'build/', '--kind', 'rule', '--', '-Werror', 'flag'],
    ['search', '--format', 'json', '--', '-Werror'],
  ]) {
    const run = await brv(repo, args);
    t.is(run.exitCode, 0, `${args.join(' ')}: ${run.stderr}`);
    t.regex(run.stdout, /build\/flags/, args.join(' '));
  }
  // A word after -- is never a sub-command: `curate -- view` starts a session about "view".
  const session = await brv(repo, ['curate', '--format', 'json', '--', 'view']);
  t.is(session.exitCode, 0);
  t.is(session.json?.data.status, 'needs-llm-step');
});

test('number and enum options out of range are usage errors (exit 2) that say what is allowed', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await brv(repo, ['init']);
  const cases: Array<[string[], RegExp]> = [
    [['query', 'x', '--limit', 'abc'], /--limit needs a number/],
    [['query', 'x', '--limit', '500'], /--limit needs a whole number from 1 to 50; got "500"/],
    [['query', 'x', '--limit', '0'], /--limit needs a whole number from 1 to 50/],
    [['search', 'x', '--limit=51'], /--limit needs a whole number from 1 to 50/],
    [['query', 'x', '--kind', 'foo'], /--kind "foo" is not a topic element; use one of: .*rule.*decision/],
    [['curate', 'view', '--limit', '5000'], /--limit needs a whole number from 1 to 1000; got "5000"/],
    [['vc', 'log', '-n', '0'], /--limit needs a whole number from 1 to 10000/],
  ];
  for (const [args, message] of cases) {
    const text = await brv(repo, args);
    t.is(text.exitCode, 2, args.join(' '));
    t.regex(text.stderr, message, args.join(' '));
    const json = await brvJson(repo, args);
    t.is(json.exitCode, 2, args.join(' '));
    t.is(json.json?.data.error.kind, 'usage', args.join(' '));
  }
  // In range still works, `rule` and `bv-rule` alike.
  t.is((await brv(repo, ['query', 'x', '--limit', '50', '--kind', 'rule', 'bv-decision'])).exitCode, 0);
  t.is((await brv(repo, ['curate', 'view', '--limit', '1000'])).exitCode, 0);
});

test("curate view --help shows its own options, not curate's", async (t) => {
  const dir = await tempDir();
  const help = await brv(dir, ['curate', 'view', '--help']);
  t.is(help.exitCode, 0);
  t.regex(help.stdout, /--limit/);
  t.notRegex(help.stdout, /--session|--html-file|--response|intent/);
  // curate's own help still lists them.
  t.regex((await brv(dir, ['curate', '--help'])).stdout, /--html-file/);
});

test("ByteRover's command names point at what brv has", async (t) => {
  const dir = await tempDir();
  const cases: Array<[string, RegExp]> = [
    ['pull', /brv vc pull/],
    ['push', /brv vc push/],
    ['space', /brv vc remote/],
    ['hub', /brv connectors install/],
    ['swarm', /brv source add/],
    ['migrate', /brv import/],
    ['login', /git remotes/],
  ];
  for (const [word, hint] of cases) {
    const run = await brv(dir, [word]);
    t.is(run.exitCode, 2, word);
    t.regex(run.stderr, hint, word);
    t.notRegex(run.stderr, /Did you mean/, word);
  }
  // A real misspelling still gets its suggestion.
  t.regex((await brv(dir, ['qurey'])).stderr, /Did you mean query\?/);
});

test('brv completion bash: a real bash completes commands, sub-commands, options and their values (brv and git brv)', async (t) => {
  const bin = await tempDir();
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  // One bash for every question (test/helpers/bash.ts).
  const bash = new Bash({ ...ENV, PATH: `${bin}:${process.env.PATH}` }, bin);
  t.teardown(() => bash.close());
  await bash.run('source <(brv completion bash)');
  const complete = async (words: string[], fn = '_brv_completions') =>
    (
      await bash.run(
        `COMP_WORDS=(${words.map(shellWord).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); ${fn}; printf '%s\\n' "\${COMPREPLY[@]}"`,
      )
    )
      .split('\n')
      .filter(Boolean);
  t.deepEqual(await complete(['brv', 'qu']), ['query']);
  t.true((await complete(['brv', ''])).includes('completion'));
  t.deepEqual(await complete(['brv', 'vc', 'pu']), ['pull', 'push']);
  t.deepEqual(await complete(['brv', 'query', 'x', '--li']), ['--limit']);
  t.deepEqual(await complete(['brv', 'status', '--format', '']), ['text', 'json']);
  t.deepEqual(await complete(['git', 'brv', 'cur'], '_git_brv'), ['curate']);
  // zsh and fish get their own scripts; an unknown shell is a usage error.
  for (const shell of ['zsh', 'fish']) {
    const run = await brv(bin, ['completion', shell]);
    t.is(run.exitCode, 0);
    t.regex(run.stdout, /brv __complete/);
  }
  t.is((await brv(bin, ['completion', 'tcsh'])).exitCode, 2);
});

test('man brv and git brv --help show the man pages the package ships (package.json "man")', async (t) => {
  const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  t.deepEqual(pkg.man, ['./dist/man/man1/brv.1', './dist/man/man1/git-brv.1']);
  for (const page of pkg.man as string[]) {
    const text = await readFile(path.join(ROOT, page), 'utf8');
    t.regex(text, /^\.TH (GIT-)?BRV 1 /);
    // Every command and sub-command, with its options.
    for (const section of ['vc pull', 'curate view', 'completion', 'settings set']) t.true(text.includes(` ${section}\n`), section);
    t.regex(text, /--limit +How many entries, newest first \(1–1000\)/);
  }
  const man = await execa('man', ['--version'], { reject: false });
  if (man.exitCode !== 0) return t.log('man is not installed: the pages were checked as files only');
  // git maps `git brv --help` to `man git-brv`; git-brv must be a git command on PATH.
  const bin = await tempDir();
  for (const name of ['brv', 'git-brv'])
    await writeFile(path.join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  const env = {
    ...ENV,
    PATH: `${bin}:${process.env.PATH}`,
    MANPATH: path.join(ROOT, 'dist/man'),
    MANPAGER: 'cat',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    MANWIDTH: '80',
  };
  const gitHelp = await execa('git', ['brv', '--help'], { cwd: bin, env, extendEnv: false, reject: false });
  t.is(gitHelp.exitCode, 0, gitHelp.stderr);
  t.regex(gitHelp.stdout, /GIT-BRV\(1\)/);
  t.regex(gitHelp.stdout, /git brv vc pull/);
  const manBrv = await execa('man', ['brv'], { cwd: bin, env, extendEnv: false, reject: false });
  t.is(manBrv.exitCode, 0, manBrv.stderr);
  t.regex(manBrv.stdout, /BRV\(1\)[\s\S]*brv query/);
});

test('settings --global work outside any repository', async (t) => {
  const outside = await tempDir();
  const env = { GIT_CONFIG_GLOBAL: path.join(outside, 'gitconfig') };
  const set = await brvJson(outside, ['settings', 'set', 'review.gate', 'true', '--global'], { env });
  t.is(set.exitCode, 0, set.stdout + set.stderr);
  t.like(set.json?.data, { key: 'review.gate', value: true, scope: 'global' });
  const get = await brvJson(outside, ['settings', 'get', 'review.gate', '--global'], { env });
  t.like(get.json?.data, { key: 'review.gate', value: true, source: 'global' });
  const list = await brvJson(outside, ['settings', '--global'], { env });
  t.is(list.exitCode, 0);
  t.true(list.json?.data.settings.some((s: any) => s.key === 'review.gate' && s.value === true));
  t.is((await brvJson(outside, ['settings', 'reset', 'review.gate', '--global'], { env })).exitCode, 0);
  t.like((await brvJson(outside, ['settings', 'get', 'review.gate', '--global'], { env })).json?.data, { source: 'default' });
  // Without --global, outside a repository is still an error that says so.
  t.is((await brvJson(outside, ['settings', 'get', 'review.gate'], { env })).json?.data.error.kind, 'not-a-git-repository');
  // A repository sees the global value.
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await brv(outside, ['settings', 'set', 'review.gate', 'true', '--global'], { env });
  t.like((await brvJson(repo, ['settings', 'get', 'review.gate'], { env })).json?.data, { value: true, source: 'global' });
});

test('brv rm of a missing topic points at brv ls', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await brv(repo, ['init']);
  const run = await brv(repo, ['rm', 'no/such/topic']);
  t.is(run.exitCode, 1);
  t.regex(run.stderr, /No topic at no\/such\/topic.*brv ls/);
});

test('progress on stderr for export and the first index build; never with --format json, never on stdout', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await brv(repo, ['init']);
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`notes/n${i}.html`] = TOPIC(`notes/n${i}`, `Note ${i}`, `Rule number ${i} about widgets.`);
  await plantTree(repo, files);
  // A pipe is not a terminal: nothing unless asked for (BRV_PROGRESS=always, which also skips the one-second delay).
  const quiet = await brv(repo, ['search', 'widgets']);
  t.is(quiet.exitCode, 0);
  t.is(quiet.stderr, '');
  await plantTree(repo, { ...files, 'more/m.html': TOPIC('more/m', 'More', 'Another widget rule.') });
  const env = { BRV_PROGRESS: 'always' };
  const search = await brv(repo, ['search', 'widgets'], { env });
  t.is(search.exitCode, 0, search.stderr);
  t.regex(search.stderr, /^Indexing topics \d+/m);
  t.notRegex(search.stdout, /Indexing/);
  const out = await tempDir();
  const exported = await brv(repo, ['export', out], { env });
  t.is(exported.exitCode, 0, exported.stderr);
  t.regex(exported.stderr, /Exporting topics 41\/41 \(100%\)/);
  const json = await brv(repo, ['export', out, '--force', '--format', 'json'], { env });
  t.is(json.exitCode, 0);
  t.is(json.stderr, '');
  t.true(json.json?.success);
});

test('curate --html-file - reads the topic from standard input, with the same checks as a file', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await brv(repo, ['init']);
  const ok = await brv(repo, ['curate', '--html-file', '-', '--format', 'json'], {
    input: TOPIC('ops/deploy', 'Deploy', 'Deploy on Tuesdays.'),
  });
  t.is(ok.exitCode, 0, ok.stdout);
  t.like(ok.json?.data, { ok: true, status: 'done', topicPath: 'ops/deploy' });
  const bad = await brv(repo, ['curate', '--html-file', '-', '--format', 'json'], {
    input: '<bv-topic path="x/y" title="X"><script>1</script></bv-topic>',
  });
  t.is(bad.exitCode, 1);
  t.false(bad.json?.data.ok);
  t.true(bad.json?.data.errors.length > 0);
  const binary = await brv(repo, ['curate', '--html-file', '-', '--format', 'json'], {
    input: Buffer.from([0xff, 0xfe, 0x3c]) as unknown as string,
  });
  t.is(binary.exitCode, 1);
  t.regex(JSON.stringify(binary.json?.data.errors), /standard input/);
});
