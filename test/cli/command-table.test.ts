import test from 'ava';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { commands } from '../../src/cli/commands/index.js';
import { complete } from '../../src/cli/complete.js';
import { fastParse } from '../../src/cli/fast-args.js';
import { createParser } from '../../src/cli/parser.js';
import { parsedArgv } from '../helpers/parsed-argv.js';
import { usage } from '../../src/cli/table-yargs.js';
import { COMMAND_TABLE, GLOBAL_OPTION_DECLS, type CommandDecl, type OptionDecl } from '../../src/views/command-table.js';
import { HOOK_NAMES } from '../../src/service/names.js';
import { DREAM_KINDS } from '../../src/models/dream/kinds.js';
import { CONNECTOR_TYPES } from '../../src/setup/connectors/agents.js';
import { COMPLETION_SHELLS } from '../../src/views/completion.js';
import { REMOTE_LAYOUTS } from '../../src/base/ref-names.js';
import { findCommand } from '../../src/views/command-table.js';
import { Bash, shellWord } from '../helpers/bash.js';
import { plantTree } from '../helpers/plant.js';
import { CLI, ENV, ROOT, brv, curateTopic, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

// The command table (src/views/command-table.ts) is the one declaration of brv's command line; these
// tests fail when something derived from it (yargs' builders and --help, the fast path, completion)
// stops following it.

/** Every command and sub-command of the table, with its path. */
function* walk(decls: readonly CommandDecl[] = COMMAND_TABLE, path: string[] = []): Generator<[string[], CommandDecl]> {
  for (const decl of decls) {
    yield [[...path, decl.name], decl];
    yield* walk(decl.subcommands ?? [], [...path, decl.name]);
  }
}

/** yargs' --help for a command path, in this process. */
function help(words: string[]): Promise<string> {
  const args = [...words, '--help'];
  return new Promise((resolve, reject) => {
    createParser(args, 'brv')
      .exitProcess(false)
      .parse(args, (error: Error | null, _argv: unknown, output: string) => (error ? reject(error) : resolve(output)));
  });
}

/** What yargs hands the top-level command's handler (undefined: a usage error). */
async function handlerArgv(args: string[]): Promise<Record<string, unknown> | undefined> {
  let seen: Record<string, unknown> | undefined;
  const recording = commands.map((c) => ({ ...c, handler: (argv: Record<string, unknown>) => void (seen = argv) })) as CommandModule[];
  let failed = false;
  try {
    await createParser(args, 'brv', recording, () => (failed = true))
      .exitProcess(false)
      .parseAsync();
  } catch {
    failed = true;
  }
  return failed ? undefined : seen;
}

/** A value the option takes, and what the handler gets for it. */
function sample(name: string, option: OptionDecl): { words: string[]; value: unknown } {
  const flag = name.length === 1 ? `-${name}` : `--${name}`;
  if (option.type === 'boolean') return { words: [flag], value: true };
  // --kind names a topic element (parser.ts checks).
  const text = option.values === 'kind' ? 'rule' : 'some-value';
  const one = option.choices ? option.choices[option.choices.length - 1]! : option.type === 'number' ? (option.min ?? 0) + 2 : text;
  return { words: [flag, String(one)], value: option.array ? [one] : one };
}

/** The words a command path needs to parse: its required positionals (and an option another implies). */
function required(decl: CommandDecl): string[] {
  return (decl.positionals ?? []).filter((p) => p.demand).map((p) => p.choices?.[0] ?? 'x');
}

test('the command modules are the table’s: same commands, in its order, with its usage strings and descriptions', (t) => {
  t.deepEqual(
    commands.map((c) => c.command),
    COMMAND_TABLE.map((d) => (d.default ? [usage(d), '$0'] : usage(d))),
  );
  t.deepEqual(
    commands.map((c) => c.describe),
    COMMAND_TABLE.map((d) => (d.hidden ? false : d.describe)),
  );
});

test('every --help shows its table entry: description, positionals, options (hidden ones not), examples, sub-commands', async (t) => {
  const flat = (text: string) => text.replace(/\s+/g, ' ');
  // The start of a text, as far as yargs never breaks it (it wraps at spaces).
  const start = (text: string) => flat(text).split(' ').slice(0, 3).join(' ');
  for (const [path, decl] of walk()) {
    const text = await help(path);
    const where = path.join(' ');
    // A hidden command has no description in its --help either.
    t.is(flat(text).includes(start(decl.describe)), !decl.hidden, `${where}: description`);
    t.true(text.includes(`brv ${[...path.slice(0, -1), usage(decl)].join(' ')}`), `${where}: usage ${usage(decl)}`);
    for (const p of decl.positionals ?? []) {
      t.regex(text, new RegExp(`^  ${p.name} `, 'm'), `${where}: positional ${p.name}`);
      if (p.describe) t.true(flat(text).includes(start(p.describe)), `${where}: ${p.name}'s description`);
    }
    for (const [name, option] of Object.entries<OptionDecl>({ ...GLOBAL_OPTION_DECLS, ...decl.options })) {
      const flag = name.length === 1 ? `-${name}` : `--${name}`;
      const shown = new RegExp(`^ +(-\\w, )?${flag}( |,|$)`, 'm').test(text);
      t.is(shown, !option.hidden, `${where}: ${flag}`);
      if (shown && option.describe) t.true(flat(text).includes(start(option.describe)), `${where}: ${flag}'s description`);
    }
    for (const [example] of decl.examples ?? [])
      t.true(flat(text).includes(start(example.replace('$0', 'brv'))), `${where}: example ${example}`);
    for (const sub of decl.subcommands ?? [])
      t.is(text.includes(`brv ${[...path, sub.name].join(' ')}`), !sub.hidden, `${where}: sub-command ${sub.name}`);
  }
});

test('every table option and positional parses as declared (type, choices, arrays, aliases, ranges), on every command', async (t) => {
  const cwd = await tempDir();
  for (const [path, decl] of walk()) {
    // A command that needs a sub-command is run through them.
    if (decl.demandCommand) continue;
    const base = [...path, ...required(decl)];
    const where = path.join(' ');
    const plain = await parsedArgv(base);
    t.truthy(plain, `${where} parses`);
    for (const p of decl.positionals ?? [])
      if (p.demand) t.deepEqual(plain?.[p.name], p.variadic ? [p.choices?.[0] ?? 'x'] : (p.choices?.[0] ?? 'x'), `${where} <${p.name}>`);
    for (const [name, option] of Object.entries(decl.options ?? {})) {
      const { words, value } = sample(name, option);
      const implied = option.implies ? sample(option.implies, decl.options![option.implies]!).words : [];
      const argv = await parsedArgv([...base, ...words, ...implied]);
      t.deepEqual(argv?.[name], value, `${where} ${words.join(' ')}`);
      if (option.alias) t.deepEqual(argv?.[option.alias], value, `${where} ${words.join(' ')}: alias ${option.alias}`);
      if (option.choices) t.is(await parsedArgv([...base, words[0]!, 'not-a-choice', ...implied]), undefined, `${where} ${name} choices`);
      if (option.type === 'number' && option.max !== undefined) {
        const run = await brv(cwd, [...base, words[0]!, String(option.max + 1)]);
        t.is(run.exitCode, 2, `${where} ${name} range`);
        t.regex(run.stderr, new RegExp(`from ${option.min} to ${option.max}`), `${where} ${name} range`);
      }
    }
  }
});

test('the fast path and yargs read every table option of query, search and curate alike (or the fast path leaves it to yargs)', async (t) => {
  let fast = 0;
  for (const name of ['query', 'search', 'curate']) {
    const decl = COMMAND_TABLE.find((d) => d.name === name)!;
    const base = [name, ...required(decl)];
    for (const [option, spec] of Object.entries<OptionDecl>({ ...decl.options, ...GLOBAL_OPTION_DECLS })) {
      const args = [...base, ...sample(option, spec).words];
      const parsed = fastParse(args, 'brv');
      const scalar = !spec.array && !spec.alias && !spec.hidden && (spec.type !== undefined || spec.choices !== undefined);
      t.is(parsed !== undefined, scalar, args.join(' '));
      if (parsed) {
        fast++;
        t.deepEqual(parsed.argv, await handlerArgv(args), args.join(' '));
      }
    }
    // The positional's shape comes from the table too.
    const positional = decl.positionals![0]!;
    t.is(fastParse([name], 'brv') !== undefined, !positional.demand, `${name} alone`);
    t.is(fastParse([name, 'a', 'b'], 'brv') !== undefined, Boolean(positional.variadic), `${name} a b`);
  }
  t.true(fast >= 20);
});

test('completion offers every option of a command, and the choices of options and positionals, from the table', async (t) => {
  const env = { HOME: '/nonexistent' };
  const cwd = await tempDir();
  for (const [path, decl] of walk()) {
    const offered = await complete([...path, '-'], cwd, env);
    for (const name of Object.keys({ ...GLOBAL_OPTION_DECLS, ...decl.options }))
      t.true(offered.includes(name.length === 1 ? `-${name}` : `--${name}`), `${path.join(' ')} ${name}`);
    for (const [name, option] of Object.entries(decl.options ?? {}))
      if (option.choices)
        t.deepEqual(await complete([...path, `--${name}`, ''], cwd, env), [...option.choices], `${path.join(' ')} --${name}`);
    const first = decl.positionals?.[0];
    if (first?.choices && !decl.subcommands)
      t.deepEqual(await complete([...path, ''], cwd, env), [...first.choices], `${path.join(' ')} <${first.name}>`);
  }
});

test('every positional a command needs has an example, for the message when it is missing', (t) => {
  for (const [path, decl] of walk())
    for (const positional of decl.positionals ?? [])
      if (positional.demand) t.truthy(positional.example, `${path.join(' ')} <${positional.name}>`);
});

test('the lists the table writes out are the library’s, in its order', (t) => {
  t.deepEqual(findCommand(['hooks', 'install'])!.positionals![0]!.choices, HOOK_NAMES);
  t.deepEqual(findCommand(['hooks', 'run'])!.positionals![0]!.choices, HOOK_NAMES);
  t.deepEqual(findCommand(['completion'])!.positionals![0]!.choices, COMPLETION_SHELLS);
  t.deepEqual(findCommand(['connectors', 'install'])!.options!.type!.choices, CONNECTOR_TYPES);
  t.deepEqual(findCommand(['vc', 'clone'])!.options!.layout!.choices, REMOTE_LAYOUTS);
  t.true(findCommand(['dream'])!.options!.kinds!.describe!.includes(DREAM_KINDS.join(',')));
});

test('an agent command loads only the agent commands’ part of the table (the built CLI, BRV_TRACE’s chunk list)', async (t) => {
  const repo = await makeRepo();
  // A text only the rest of the table holds (command-table.ts, not agent-commands.ts).
  const rest = findCommand(['vc', 'log'])!.describe;
  for (const args of [
    ['query', 'x'],
    ['curate', 'x', '--format', 'json'],
  ]) {
    const run = await brv(repo, args, { env: { BRV_TRACE: '1' } });
    const chunks = [...run.stderr.matchAll(/cli: chunk (\S+\.js)/g)].map((m) => m[1]!);
    t.true(chunks.length > 0, run.stderr);
    const texts = await Promise.all(chunks.map((c) => readFile(path.join(ROOT, 'dist/app', c), 'utf8')));
    t.false(
      texts.some((text) => text.includes(rest)),
      `${args[0]} loaded the whole command table`,
    );
    t.true(
      texts.some((text) => text.includes(findCommand([args[0]!])!.describe)),
      `${args[0]}'s declaration`,
    );
  }
});

test('brv completion --help says completion offers values', async (t) => {
  const text = (await help(['completion'])).replace(/\s+/g, ' ');
  for (const what of ['topic paths', 'branches', 'remotes', 'review ids', 'agents', 'setting keys', 'kinds'])
    t.true(text.includes(what), what);
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
  // One bash for every question (test/helpers/bash.ts).
  const bash = new Bash({ ...ENV, PATH: `${bin}:${process.env.PATH}` }, repo);
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
