import test, { type ExecutionContext } from 'ava';
import { execa } from 'execa';
import { chmod, lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, brvWithin, cleanup, copyBuiltCli, git, makeRepo, makeWorktree, refTip, reply, tempDir } from '../helpers/repo.js';
import { twoClones } from '../helpers/knowledge.js';

// Every local state file brv keeps (DESIGN.md §2.8), damaged every way a crash, a full disk or a
// stray command can damage it, then used through the CLI (in this process; the launcher's code cache
// and another user's runs through the built one): no hang (each run has a deadline), no
// Node stack trace, no wrong answer. Caches are rebuilt without a word; state brv cannot rebuild
// (this worktree's brv/HEAD) is a typed error whose message names the fix.

const AS_ROOT = process.getuid?.() === 0;
const DEADLINE_MS = 20_000;

type Damage = (file: string) => Promise<void>;

async function clear(file: string): Promise<void> {
  await rm(file, { recursive: true, force: true });
}

/** Damage every local state file can suffer, whatever its content. */
const COMMON: Record<string, Damage> = {
  empty: (f) => writeFile(f, ''),
  'binary garbage': (f) => writeFile(f, Buffer.from([0, 255, 1, 254, 10, 0, 0x1b, 0x5b, 0x32, 0x4a, 0x80, 0xc3, 0x28, 10])),
  'a directory': async (f) => {
    await clear(f);
    await mkdir(f, { recursive: true });
    await writeFile(path.join(f, 'inside'), 'x');
  },
  'its folder is a file': async (f) => {
    await clear(path.dirname(f));
    await writeFile(path.dirname(f), 'not a folder\n');
  },
  'a FIFO': async (f) => {
    await clear(f);
    await mkdir(path.dirname(f), { recursive: true });
    await execa('mkfifo', [f]);
  },
  'a symlink to /dev/zero': async (f) => {
    await clear(f);
    await mkdir(path.dirname(f), { recursive: true });
    await symlink('/dev/zero', f);
  },
  // As root (CI containers) mode 000 does not stop reads: the variant then checks nothing breaks.
  'mode 000': async (f) => {
    if (
      !(await lstat(f).then(
        (s) => s.isFile(),
        () => false,
      ))
    ) {
      await clear(f);
      await mkdir(path.dirname(f), { recursive: true });
      await writeFile(f, 'x');
    }
    await chmod(f, 0);
  },
};

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
  json: any;
}

/**
 * brv with a deadline: a hang fails the test instead of stalling the suite. In this process (runCli)
 * unless `cli` names another copy of the built CLI, which runs as a process killed at the deadline.
 */
async function run(t: ExecutionContext, cwd: string, args: string[], env: Record<string, string> = ENV, cli = CLI): Promise<Run> {
  const result =
    cli === CLI
      ? await brvWithin(DEADLINE_MS, cwd, args, { env })
      : await execa('node', [cli, ...args], {
          cwd,
          env,
          extendEnv: false,
          reject: false,
          timeout: DEADLINE_MS,
          killSignal: 'SIGKILL',
          stdin: 'ignore',
        });
  const label = `brv ${args.join(' ')}`;
  t.false(result.timedOut, `${label} hung`);
  const output = `${result.stdout}\n${result.stderr}`;
  t.false(/\n\s+at .+:\d+:\d+\)?$/m.test(output), `${label} printed a stack trace:\n${output}`);
  t.false(/internal-error|Unexpected failure/.test(output), `${label} failed unexpectedly:\n${output}`);
  let json;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode ?? -1, json };
}

async function curateOneShot(t: ExecutionContext, repo: string, topic: string): Promise<Run> {
  const file = path.join(repo, '.git', `${topic.replace(/\//g, '-')}.html`);
  await writeFile(file, `<bv-topic path="${topic}" title="T"><bv-rule severity="must">Do it.</bv-rule></bv-topic>`);
  return run(t, repo, ['curate', '--html-file', file, '--format', 'json']);
}

test('brv/HEAD: every damage is a corrupt-local-state error naming brv vc checkout, never another branch; checkout repairs it', async (t) => {
  const repo = await makeRepo();
  const head = path.join(repo, '.git', 'brv', 'HEAD');
  t.is((await curateOneShot(t, repo, 'notes/first')).json.data.status, 'done');
  const damages: Record<string, Damage> = {
    ...COMMON,
    'truncated to "ma"': (f) => writeFile(f, 'ma'),
    'no final newline': (f) => writeFile(f, 'main'),
    'two lines': (f) => writeFile(f, 'main\nfeature\n'),
    'an invalid name': (f) => writeFile(f, '../../etc\n'),
    huge: (f) => writeFile(f, `${'m'.repeat(100_000)}\n`),
    'a symlink to a valid HEAD': async (f) => {
      await writeFile(path.join(repo, 'elsewhere'), 'main\n');
      await clear(f);
      await symlink(path.join(repo, 'elsewhere'), f);
    },
  };
  for (const [name, damage] of Object.entries(damages)) {
    await mkdir(path.dirname(head), { recursive: true });
    await writeFile(head, 'main\n');
    await damage(head);
    if (name === 'mode 000' && AS_ROOT) {
      // root reads it anyway: the branch is still main
      t.is((await run(t, repo, ['ls', '--format', 'json'])).json?.data.topics?.[0], 'notes/first', name);
      await chmod(head, 0o644);
      continue;
    }
    const curate = await curateOneShot(t, repo, 'notes/second');
    t.like(curate.json, { success: false, data: { error: { kind: 'corrupt-local-state' } } }, name);
    t.regex(curate.json?.data.error?.message ?? '', /brv vc checkout <branch>/, name);
    t.is(curate.exitCode, 1, name);
    t.is(await refTip(repo, 'refs/brv/heads/ma'), undefined, `${name}: no branch made from a damaged HEAD`);
    if (name === 'truncated to "ma"') {
      t.is((await run(t, repo, ['query', 'first', '--format', 'json'])).json?.data.error?.kind, 'corrupt-local-state', name);
      // -b would start from the current branch's tip, which the damaged HEAD no longer names
      t.is((await run(t, repo, ['vc', 'checkout', '-b', 'ma', '--format', 'json'])).json?.data.error?.kind, 'corrupt-local-state', name);
    }
    // the fix the message names
    let checkout = await run(t, repo, ['vc', 'checkout', 'main', '--format', 'json']);
    if (name === 'its folder is a file' || name === 'a directory') {
      t.is(checkout.json?.data.error?.kind, 'corrupt-local-state', name);
      t.regex(checkout.json?.data.error?.message, /remove it/, name);
      await clear(name === 'a directory' ? head : path.dirname(head));
      checkout = await run(t, repo, ['vc', 'checkout', 'main', '--format', 'json']);
    } else t.like(checkout.json, { data: { previous: null } }, name);
    t.like(checkout.json, { success: true, data: { branch: 'main' } }, name);
    t.is(await readFile(head, 'utf8'), 'main\n', name);
    t.is((await run(t, repo, ['ls', '--format', 'json'])).json?.data.topics?.[0], 'notes/first', name);
  }
  t.deepEqual(await readdir(path.dirname(head)).then((names) => names.filter((n) => n.endsWith('.tmp'))), []);
  // A HEAD written by earlier versions ("<name>\n") still reads; a missing one means main.
  await writeFile(head, 'main\n');
  t.like((await run(t, repo, ['vc', 'status', '--format', 'json'])).json, { success: true, data: { branch: 'main' } });
  await rm(head);
  t.like((await run(t, repo, ['vc', 'status', '--format', 'json'])).json, { success: true, data: { branch: 'main' } });
  await cleanup(repo, path.dirname(path.dirname(head)));
});

test('mode 000 as an unprivileged user: brv/HEAD is a typed error that checkout repairs, a session is unknown-session', async (t) => {
  // As root, mode 000 reads fine: where setpriv exists, brv runs as an unprivileged user instead.
  const SETPRIV = AS_ROOT ? (await execa('sh', ['-c', 'command -v setpriv'], { reject: false })).stdout.trim() : '';
  if (AS_ROOT && !SETPRIV) return t.pass('root without setpriv: mode 000 cannot be tried here');
  const repo = await makeRepo();
  const home = await tempDir('brv-home-');
  const config = path.join(home, '.gitconfig');
  await writeFile(config, '[safe]\n\tdirectory = *\n');
  const env = { ...ENV, HOME: home, GIT_CONFIG_GLOBAL: config, BRV_CODE_CACHE: '0' };
  t.is((await curateOneShot(t, repo, 'notes/first')).json?.data.status, 'done');
  const start = await run(t, repo, ['curate', 'record something', '--format', 'json']);
  const session = path.join(repo, '.git', 'brv', 'sessions', `${start.json.data.sessionId}.json`);
  await execa('chmod', ['-R', 'a+rwX', repo, home]);
  const head = path.join(repo, '.git', 'brv', 'HEAD');
  await writeFile(head, 'main\n');
  await chmod(head, 0);
  await chmod(session, 0);
  const as = async (args: string[]) => {
    const cli = AS_ROOT ? [SETPRIV, '--reuid=65534', '--regid=65534', '--clear-groups', 'node', CLI] : ['node', CLI];
    const result = await execa(cli[0]!, [...cli.slice(1), ...args, '--format', 'json'], {
      cwd: repo,
      env,
      extendEnv: false,
      reject: false,
      timeout: DEADLINE_MS,
    });
    t.false(/\n\s+at .+:\d+:\d+/.test(result.stdout + result.stderr), result.stderr);
    return JSON.parse(result.stdout);
  };
  const ls = await as(['ls']);
  t.is(ls.data.error?.kind, 'corrupt-local-state');
  t.regex(ls.data.error?.message, /cannot be read \(EACCES\); set this worktree's brv branch again with brv vc checkout <branch>/);
  t.like(await as(['vc', 'checkout', 'main']), { success: true, data: { branch: 'main', previous: null } });
  t.deepEqual((await as(['ls'])).data.topics, ['notes/first']);
  const next = await as(['curate', '--session', start.json.data.sessionId, '--response', reply('notes/x')]);
  t.is(next.data.errors?.[0]?.kind, 'unknown-session');
  await cleanup(repo, home);
});

test("another worktree's damaged brv/HEAD is listed as unreadable, never as main; only that worktree is stopped", async (t) => {
  const repo = await makeRepo();
  const worktree = await makeWorktree(repo, 'side');
  t.is((await curateOneShot(t, repo, 'notes/first')).json?.data.status, 'done');
  t.true((await run(t, worktree, ['vc', 'checkout', '-b', 'side-notes', '--format', 'json'])).json?.success);
  await writeFile(path.join(repo, '.git', 'worktrees', 'side', 'brv', 'HEAD'), 'side-no');
  const list = await run(t, repo, ['worktree', 'list', '--format', 'json']);
  t.deepEqual(
    list.json?.data.worktrees.map((w: any) => w.brvBranch),
    ['main', null],
  );
  t.regex((await run(t, repo, ['worktree', 'list'])).stdout, /brv: \(unreadable brv\/HEAD: run brv vc checkout <branch> there\)/);
  t.is((await run(t, worktree, ['ls', '--format', 'json'])).json?.data.error?.kind, 'corrupt-local-state');
  t.true((await run(t, repo, ['ls', '--format', 'json'])).json?.success);
  await cleanup(repo, path.dirname(worktree));
});

test('curate session file: a damaged session is unknown-session (it cannot go on), a new kickoff works, nothing hangs', async (t) => {
  const repo = await makeRepo();
  const sessions = path.join(repo, '.git', 'brv', 'sessions');
  const damages: Record<string, Damage> = {
    ...COMMON,
    truncated: async (f) => writeFile(f, (await readFile(f, 'utf8')).slice(0, 20)),
    'JSON of the wrong shape': (f) => writeFile(f, '{"id": 5, "attempts": "x"}'),
    // The id's first digit changed (to one it is not: an id starting with "0" stayed valid, 1 run in 16).
    'another session': async (f) =>
      writeFile(
        f,
        (await readFile(f, 'utf8')).replace(/"id":"([0-9a-f])/, (_, digit: string) => `"id":"${digit === '0' ? '1' : '0'}`),
      ),
  };
  for (const [name, damage] of Object.entries(damages)) {
    const start = await run(t, repo, ['curate', 'record something', '--format', 'json']);
    const id = start.json?.data.sessionId;
    t.truthy(id, `${name}: kickoff ${start.stdout}`);
    const file = path.join(sessions, `${id}.json`);
    await damage(file);
    const next = await run(t, repo, ['curate', '--session', id, '--response', reply('notes/x'), '--format', 'json']);
    if (name === 'mode 000' && AS_ROOT) {
      t.like(next.json?.data, { status: 'done' }, name);
      await git(repo, 'update-ref', '-d', 'refs/brv/heads/main');
      continue;
    }
    // the protocol's own envelope: this session cannot go on, start another
    t.is(next.json?.data.errors?.[0]?.kind, 'unknown-session', `${name}: ${next.stdout}`);
    t.is(next.exitCode, 0, name);
    t.regex(next.stdout, /Start again with brv curate/, name);
    t.is(await refTip(repo), undefined, `${name}: nothing was written from a damaged session`);
    // the way forward: a new session, even where the damaged thing stands
    await chmod(file, 0o644).catch(() => {}); // the next kickoff starts a new session wherever the damaged one stands
  }
  await cleanup(repo);
});

test('sync state: a damaged seen-reviews record is rebuilt silently by sync and fetch', async (t) => {
  const env = await twoClones();
  const ok = async (args: string[]) => {
    const result = await run(t, env.a, [...args, '--format', 'json']);
    t.true(result.json?.success, `${args.join(' ')}: ${result.stdout} ${result.stderr}`);
    return result;
  };
  await ok(['init', '--track', 'origin']);
  await ok(['vc', 'push', '-u']);
  const file = path.join(env.a, '.git', 'brv', 'sync', 'origin.reviews');
  await ok(['sync']);
  const good = await readFile(file, 'utf8');
  t.is(good, '# brv seen-reviews v1\n# end 0\n');
  const damages: Record<string, Damage> = {
    ...COMMON,
    truncated: (f) => writeFile(f, '# brv seen-reviews v1\n'),
    'wrong shape': (f) => writeFile(f, '{"reviews": []}\n'),
  };
  for (const [name, damage] of Object.entries(damages)) {
    await damage(file);
    await ok(name.length % 2 ? ['sync'] : ['vc', 'fetch']);
    if (!(name === 'mode 000' && AS_ROOT)) t.is(await readFile(file, 'utf8'), good, name);
    await chmod(file, 0o644).catch(() => {});
  }
  await cleanup(env.root);
});

test('arrival state: a damaged record of the last read-time import never breaks a read, which takes fetched knowledge and writes it again', async (t) => {
  const env = await twoClones();
  const ok = async (args: string[]) => {
    const result = await run(t, env.a, [...args, '--format', 'json']);
    t.true(result.json?.success, `${args.join(' ')}: ${result.stdout} ${result.stderr}`);
    return result;
  };
  await ok(['init', '--track', 'origin']);
  await ok(['vc', 'push', '-u']);
  const file = path.join(env.a, '.git', 'brv', 'sync', 'arrival.json');
  await ok(['ls']);
  const damages: Record<string, Damage> = {
    ...COMMON,
    truncated: async (f) => writeFile(f, (await readFile(f, 'utf8')).slice(0, 20)),
    'wrong shape': (f) => writeFile(f, '{"version":1,"branches":{"main":{"config":7,"outcome":"diverged"}}}\n'),
  };
  for (const [name, damage] of Object.entries(damages)) {
    await damage(file);
    await ok(name.length % 2 ? ['ls'] : ['query', 'anything']);
    if (!(name === 'mode 000' && AS_ROOT))
      t.like(JSON.parse(await readFile(file, 'utf8')), { version: 1, branches: { main: { remote: 'origin' } } }, name);
    await chmod(file, 0o644).catch(() => {});
  }
  await cleanup(env.root);
});

test('connectors manifest: a damaged manifest never breaks status, install or uninstall', async (t) => {
  const repo = await makeRepo();
  const home = await tempDir('brv-home-');
  const env = { ...ENV, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
  const manifest = path.join(repo, '.git', 'brv', 'connectors.json');
  const damages: Record<string, Damage> = {
    ...COMMON,
    truncated: async (f) => writeFile(f, (await readFile(f, 'utf8')).slice(0, 30)),
    'records of the wrong shape': (f) =>
      writeFile(
        f,
        JSON.stringify({ version: 1, installs: [1, null, { agent: 'codex', files: 'x' }, { agent: 'codex', type: 'rules', files: [{}] }] }),
      ),
  };
  for (const [name, damage] of Object.entries(damages)) {
    const install = await run(t, repo, ['connectors', 'install', 'codex', '--type', 'rules', '--format', 'json'], env);
    t.true(install.json?.success, `${name}: ${install.stdout}`);
    await damage(manifest);
    const status = await run(t, repo, ['connectors', 'status', '--format', 'json'], env);
    if (name === 'its folder is a file') {
      // <git-dir>/brv also holds this worktree's brv/HEAD: brv says what is wrong and how to fix it
      t.is(status.json?.data.error?.kind, 'corrupt-local-state', status.stdout);
      await clear(path.dirname(manifest));
      continue;
    }
    t.true(status.json?.success, `${name}: ${status.stdout}`);
    const uninstall = await run(t, repo, ['connectors', 'uninstall', 'codex', '--format', 'json'], env);
    t.true(uninstall.json?.success, `${name}: ${uninstall.stdout}`);
    t.false((await readFile(path.join(repo, 'AGENTS.md'), 'utf8').catch(() => '')).includes('brv'), `${name}: brv's part removed`);
    await chmod(manifest, 0o644).catch(() => {});
    await clear(manifest);
    await mkdir(path.dirname(manifest), { recursive: true }).catch(() => {});
  }
  await cleanup(repo, home);
});

test('cited-files cache: the pre-commit hook rebuilds a damaged cache, warns correctly and never hangs git commit', async (t) => {
  const repo = await makeRepo();
  const bin = await tempDir('brv-bin-');
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec node "${CLI}" "$@"\n`);
  await chmod(path.join(bin, 'brv'), 0o755);
  const env = { ...ENV, PATH: `${bin}${path.delimiter}${ENV.PATH}` };
  t.true((await run(t, repo, ['hooks', 'install', '--format', 'json'], env)).json?.success);
  const html = path.join(repo, '.git', 'topic.html');
  await writeFile(
    html,
    '<bv-topic path="code/readme" title="About the readme"><bv-files><li><code>README.md</code></li></bv-files><bv-rule severity="must">Keep it.</bv-rule></bv-topic>',
  );
  t.is((await run(t, repo, ['curate', '--html-file', html, '--format', 'json'])).json?.data.status, 'done');
  const tree = await git(repo, 'rev-parse', 'refs/brv/heads/main^{tree}');
  const cache = path.join(repo, '.git', 'brv', 'cache', 'cited', tree);
  const commit = async (label: string) => {
    await writeFile(path.join(repo, 'README.md'), `# ${label}\n`);
    await git(repo, 'add', 'README.md');
    const result = await execa('git', ['commit', '-q', '-m', label], {
      cwd: repo,
      env,
      extendEnv: false,
      reject: false,
      timeout: DEADLINE_MS,
      killSignal: 'SIGKILL',
    });
    t.false(result.timedOut, `${label}: git commit hung`);
    t.is(result.exitCode, 0, `${label}: ${result.stderr}`);
    t.regex(result.stderr, /code\/readme \(README\.md\)/, `${label}: the warning`);
    t.false(/\n\s+at .+:\d+:\d+/.test(result.stderr), label);
  };
  await commit('first');
  const good = await readFile(cache, 'utf8');
  t.is(good, '# brv cited-files v2\nREADME.md\tcode/readme\n# end 1\n');
  const damages: Record<string, Damage> = {
    ...COMMON,
    truncated: (f) => writeFile(f, '# brv cited-files v2\n'),
    'the previous format': (f) => writeFile(f, '# brv cited-files v1\nREADME.md\tcode/readme\n'),
    'garbage between header and end': (f) => writeFile(f, '# brv cited-files v2\n\u0000\u0001 no tab here\n# end 1\n'),
  };
  for (const [name, damage] of Object.entries(damages)) {
    await damage(cache);
    await commit(name);
    if (!(name === 'mode 000' && AS_ROOT)) t.is(await readFile(cache, 'utf8'), good, `${name}: rebuilt`);
    await chmod(cache, 0o644).catch(() => {});
  }
  // HEAD damage reaches the hooks too: they do nothing (brv reports it) and git goes on
  for (const [i, damage] of [COMMON['a FIFO']!, COMMON['a symlink to /dev/zero']!, (f: string) => writeFile(f, 'ma')].entries()) {
    const head = path.join(repo, '.git', 'brv', 'HEAD');
    await damage(head);
    await writeFile(path.join(repo, 'README.md'), `# again ${i}\n`);
    await git(repo, 'add', 'README.md');
    const result = await execa('git', ['commit', '-q', '-m', 'again'], {
      cwd: repo,
      env,
      extendEnv: false,
      reject: false,
      timeout: DEADLINE_MS,
    });
    t.false(result.timedOut);
    t.is(result.exitCode, 0, result.stderr);
    await clear(head);
  }
  await cleanup(repo, bin);
});

test('launcher code cache: a damaged pack is ignored and replaced, a planted one never followed', async (t) => {
  const dir = await copyBuiltCli();
  const home = await tempDir('brv-cache-home-');
  const cli = path.join(dir, 'cli/main.js');
  const env = { ...ENV, XDG_CACHE_HOME: home, BRV_TRACE: '1' };
  const local = path.join(dir, 'app/.code-cache');
  const version = async (label: string) => {
    const result = await run(t, dir, ['--version'], env, cli);
    t.is(result.exitCode, 0, `${label}: ${result.stderr}`);
    return /code cache (\w+)/.exec(result.stderr)?.[1];
  };
  t.is(await version('first'), 'miss');
  t.is(await version('second'), 'hit');
  const [pack] = (await readdir(local)).filter((n) => n.endsWith('.bin'));
  const file = path.join(local, pack!);
  const good = await readFile(file);
  const damages: Record<string, Damage> = {
    ...COMMON,
    truncated: (f) => writeFile(f, good.subarray(0, 100)),
    'JSON of the wrong shape': (f) => {
      const json = Buffer.from('{"brv.js": "nope", "x": [1e99, -5, 3]}');
      const header = Buffer.alloc(8);
      header.writeUInt32LE(0x31767262, 0);
      header.writeUInt32LE(json.length, 4);
      return writeFile(f, Buffer.concat([header, json, Buffer.alloc(64)]));
    },
  };
  for (const [name, damage] of Object.entries(damages)) {
    await damage(file);
    await version(name); // a miss, which writes a new pack (beside the bundle, or where it can)
    t.is(await version(`${name}, again`), 'hit', name);
    await chmod(file, 0o644).catch(() => {});
    if (name === 'its folder is a file') await clear(local);
    if (name === 'a directory') await clear(file);
    await clear(path.join(home, 'brv')); // each variant starts with the pack beside the bundle only
    await version(`${name}, rebuilt`);
  }
  t.deepEqual(
    (await readdir(local)).filter((n) => n.endsWith('.tmp')),
    [],
  );
  t.true((await stat('/dev/zero')).isCharacterDevice());
  await cleanup(dir, home);
});
