import test from 'ava';
import { execa } from 'execa';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { commands } from '../../src/cli/commands/index.js';
import { GLOBAL_OPTIONS } from '../../src/cli/options.js';
import { COMMAND_TABLE, GLOBAL_OPTION_DECLS, type CommandDecl } from '../../src/views/command-table.js';
import { plantTree } from '../helpers/plant.js';
import { CLI, ENV, brv, curateTopic, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

// What the yargs builders declare, recorded by running each builder against a stand-in for yargs.
interface Recorded {
  name: string;
  positionals: Record<string, Record<string, unknown>>;
  options: Record<string, Record<string, unknown>>;
  subcommands: Recorded[];
}

function record(module: CommandModule): Recorded {
  const usage = Array.isArray(module.command) ? module.command[0] : module.command;
  const out: Recorded = { name: String(usage).split(' ')[0]!, positionals: {}, options: {}, subcommands: [] };
  const y: unknown = new Proxy(
    {},
    {
      get(_, prop) {
        if (prop === 'positional') return (name: string, spec: Record<string, unknown>) => ((out.positionals[name] = spec), y);
        if (prop === 'option' || prop === 'options')
          return (name: string | Record<string, Record<string, unknown>>, spec: Record<string, unknown>) => {
            if (typeof name === 'string') out.options[name] = spec;
            else Object.assign(out.options, name);
            return y;
          };
        if (prop === 'command')
          return (m: CommandModule | string, describe: unknown, builder: unknown) => {
            out.subcommands.push(record(typeof m === 'object' ? m : ({ command: m, builder } as CommandModule)));
            return y;
          };
        return () => y;
      },
    },
  );
  if (typeof module.builder === 'function') (module.builder as (y: unknown) => unknown)(y);
  else if (module.builder) Object.assign(out.options, module.builder);
  return out;
}

/** The part of a yargs declaration the table keeps: names, types, choices, aliases. */
function asDecl(r: Recorded, values: CommandDecl | undefined): Record<string, unknown> {
  const keep = (spec: Record<string, unknown>, name: string, declared: { values?: unknown } | undefined) => ({
    name,
    ...(spec.type ? { type: spec.type } : {}),
    ...(spec.choices ? { choices: spec.choices } : {}),
    ...(spec.alias ? { alias: spec.alias } : {}),
    ...(declared?.values ? { values: declared.values } : {}),
  });
  const positionals = Object.entries(r.positionals).map(([name, spec]) => {
    const {
      type: _type,
      alias: _alias,
      ...rest
    } = keep(
      spec,
      name,
      values?.positionals?.find((p) => p.name === name),
    );
    return rest;
  });
  const options = Object.fromEntries(
    Object.entries(r.options).map(([name, spec]) => {
      const { name: _name, ...rest } = keep(spec, name, values?.options?.[name]);
      return [name, rest];
    }),
  );
  return {
    name: r.name,
    ...(positionals.length ? { positionals } : {}),
    ...(Object.keys(options).length ? { options } : {}),
    ...(r.subcommands.length
      ? {
          subcommands: r.subcommands.map((s) =>
            asDecl(
              s,
              values?.subcommands?.find((d) => d.name === s.name),
            ),
          ),
        }
      : {}),
  };
}

test('every yargs command, sub-command, positional and option is the command table’s (names, types, choices, aliases)', (t) => {
  const derived = commands.map((module, i) => asDecl(record(module), COMMAND_TABLE[i]));
  t.deepEqual(derived, JSON.parse(JSON.stringify(COMMAND_TABLE)));
  t.deepEqual(Object.keys(GLOBAL_OPTION_DECLS), Object.keys(GLOBAL_OPTIONS));
  t.deepEqual(GLOBAL_OPTION_DECLS.format!.choices, GLOBAL_OPTIONS.format.choices);
});

/** A brv on PATH for shells. */
async function brvBin(): Promise<string> {
  const bin = await tempDir();
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  return bin;
}

/** A repository with a topic, a second brv branch, a remote and a pending review. */
async function richRepo(): Promise<string> {
  const repo = await makeRepo();
  await curateTopic(repo, reply('security/auth-tokens'));
  await curateTopic(repo, reply('security/web/csrf'));
  await curateTopic(repo, reply('testing/flaky'));
  t_ok(await brv(repo, ['vc', 'branch', 'experiment']));
  await git(repo, 'remote', 'add', 'origin', 'https://example.invalid/never-contacted.git');
  const tip = (await git(repo, 'rev-parse', 'refs/brv/heads/main')).trim();
  await git(repo, 'update-ref', 'refs/brv/review/r-1234', tip);
  return repo;
}
function t_ok(run: { exitCode: number; stderr: string }): void {
  if (run.exitCode !== 0) throw new Error(run.stderr);
}

test('brv __complete lists each kind of value from the repository (no network)', async (t) => {
  const repo = await richRepo();
  const complete = async (...words: string[]) => {
    const run = await brv(repo, ['__complete', ...words]);
    t.is(run.exitCode, 0, run.stderr);
    return run.stdout.split('\n').filter(Boolean);
  };
  t.deepEqual(await complete('read', ''), ['security/', 'testing/']);
  t.deepEqual(await complete('read', 'security/'), ['security/auth-tokens', 'security/web/']);
  t.deepEqual(await complete('rm', 'testing/f'), ['testing/flaky']);
  t.deepEqual(await complete('ls', ''), ['security/', 'testing/']);
  t.deepEqual(await complete('query', '--scope', 'se'), ['security/']);
  t.deepEqual(await complete('vc', 'checkout', ''), ['experiment', 'main']);
  t.deepEqual(await complete('vc', 'merge', 'ex'), ['experiment']);
  t.deepEqual(await complete('sync', ''), ['origin']);
  t.deepEqual(await complete('vc', 'push', ''), ['origin']);
  t.deepEqual(await complete('review', 'show', ''), ['r-1234']);
  t.deepEqual(await complete('review', 'approve', 'r-'), ['r-1234']);
  t.true((await complete('connectors', 'install', '')).includes('claude-code'));
  t.deepEqual(await complete('settings', 'get', 'review.en'), ['review.enabled']);
  t.deepEqual(await complete('query', 'x', '--kind', 'bv-ru'), ['bv-rule']);
  t.deepEqual(await complete('vc', 'pu'), ['pull', 'push']);
  t.deepEqual(await complete('status', '--format', ''), ['text', 'json']);
  t.deepEqual(await complete('completion', ''), ['bash', 'zsh', 'fish']);
  // -C names the repository to complete from.
  const elsewhere = await tempDir();
  const run = await brv(elsewhere, ['__complete', '-C', repo, 'vc', 'checkout', '']);
  t.deepEqual(run.stdout.split('\n').filter(Boolean), ['experiment', 'main']);
});

test('brv __complete prints no planted candidate holding a line break, another control character or nothing printable', async (t) => {
  const repo = await makeRepo();
  const topic = '<bv-topic path="x" title="x"><bv-reason>x</bv-reason></bv-topic>';
  // Topic paths as a teammate's push can plant them (plumbing, no validator).
  const planted = ['notes/fine', 'notes/café', 'notes/new\nline', 'notes/carriage\rreturn', 'notes/esc\x1b[31mred', 'notes/tab\there'];
  planted.push('notes/del\x7f', 'notes/c1\u009b2J', 'notes/line\u2028separator', 'notes/\u200b', 'notes/\u00a0\u3000', 'evil\nfolder/x');
  await plantTree(repo, Object.fromEntries(planted.map((name) => [`${name}.html`, topic])));
  // A branch whose name git itself refuses (it ignores the ref), and a remote named with an escape.
  const tip = (await git(repo, 'rev-parse', 'refs/brv/heads/main')).trim();
  await writeFile(path.join(repo, '.git/packed-refs'), `${tip} refs/brv/heads/ev\x1b[31mil\n`, { flag: 'a' });
  await git(repo, 'remote', 'add', 'origin', 'https://example.invalid/never-contacted.git');
  await git(repo, 'config', 'remote.r\x1b]0;title\x07.url', 'https://example.invalid/other.git');
  const complete = async (...words: string[]) => {
    const run = await brv(repo, ['__complete', ...words]);
    t.is(run.exitCode, 0, run.stderr);
    t.false(/[\p{Cc}\u2028\u2029]/u.test(run.stdout.replace(/\n/g, '')), JSON.stringify(run.stdout));
    return run.stdout.split('\n');
  };
  t.deepEqual(await complete('read', ''), ['notes/']);
  t.deepEqual(await complete('read', 'notes/'), ['notes/café', 'notes/fine']);
  t.deepEqual(await complete('ls', ''), ['notes/']);
  t.deepEqual(await complete('vc', 'checkout', ''), ['main']);
  t.deepEqual(await complete('sync', ''), ['origin']);
});

test('completion scripts: bash completes values through brv __complete; zsh and fish scripts call it', async (t) => {
  const repo = await richRepo();
  const bin = await brvBin();
  const complete = async (words: string[], fn = '_brv_completions') => {
    const script = `source <(brv completion bash) && COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}) && COMP_CWORD=${words.length - 1} && ${fn} && printf '%s\\n' "\${COMPREPLY[@]}"`;
    const run = await execa('bash', ['--norc', '--noprofile', '-c', script], {
      cwd: repo,
      env: { ...ENV, PATH: `${bin}:${process.env.PATH}` },
      extendEnv: false,
      reject: false,
    });
    t.is(run.exitCode, 0, run.stderr);
    return run.stdout.split('\n').filter(Boolean);
  };
  t.deepEqual(await complete(['brv', 'read', 'sec']), ['security/']);
  t.deepEqual(await complete(['brv', 'read', 'security/a']), ['security/auth-tokens']);
  t.deepEqual(await complete(['brv', 'vc', 'checkout', 'e']), ['experiment']);
  t.deepEqual(await complete(['brv', 'sync', '']), ['origin']);
  t.deepEqual(await complete(['git', 'brv', 'review', 'show', ''], '_git_brv'), ['r-1234']);
  for (const shell of ['zsh', 'fish']) {
    const run = await brv(repo, ['completion', shell]);
    t.regex(run.stdout, /brv __complete/, shell);
  }
});
